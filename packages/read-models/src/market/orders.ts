import type { BlockEvent, NftItemState } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * The DEX market's orders, replicated from the records the chain writes (never recomputed): every
 * `DEX010_…` (MRC-010 sales, requests to buy, auctions) and `DEX402_…` order (MRC-402 sales and
 * auctions) as last written, and each MRC-401 item while it is offered (an item holds its own sale
 * or auction). Status, side and price come from the written fields alone, so an order is what it was
 * at the height the read models stand at, whatever the wall clock says: an auction past its end that
 * nobody finished is still open (its `expiry` says it ended).
 */
export type MarketProtocol = 'MRC010' | 'MRC402' | 'MRC401';
export type MarketSide = 'sell' | 'buy' | 'auction';
export type MarketStatus = 'open' | 'filled' | 'cancelled' | 'sold' | 'failed';

export interface MarketAuction {
  startDate: number;
  endDate: number;
  startPrice: string;
  buyNowPrice: string;
  biddingUnit: string;
  currentPrice: string;
  currentBidder: string;
}

export type MarketOrderDoc = {
  /** The order's record key: `DEX010_…`, `DEX402_…`, or the MRC-401 item's id. */
  _id: string;
  pos: string;
  jobType: string;
  protocol: MarketProtocol;
  /** The MRC-010 token id in decimal, the `MRC402_…` id, or an item's `MRC400_…` collection. */
  asset: string;
  /** The MRC-402 or the item; "" for MRC-010. */
  nftId: string;
  side: MarketSide;
  status: MarketStatus;
  open: boolean;
  /** The seller of a sale or auction, the buyer of a request to buy. */
  owner: string;
  amount: string;
  remaining: string;
  /** Per `unit` units for a sale or request; for the whole amount for an auction. */
  price: string;
  unit: string;
  payToken: number;
  createdAt: number;
  /** An auction's end; 0 for sales and requests. */
  expiry: number;
  auction: MarketAuction | null;
  platform: { name: string; url: string; address: string; commission: string };
  /**
   * What a side's best-first order sorts by, ascending: a sale's price per single unit scaled by
   * 10^8 (min_trade_unit is a power of ten up to 10^8, so it is an integer) zero-padded; a request's
   * the nines' complement of the same (the highest price first); an auction's end, padded.
   */
  rank: string;
};

export const marketOrders = defineModel<MarketOrderDoc>('market_orders', [
  {
    fields: [
      ['asset', 1],
      ['open', 1],
      ['side', 1],
      ['rank', 1],
      ['_id', 1],
    ],
  },
  {
    fields: [
      ['asset', 1],
      ['open', 1],
      ['createdAt', -1],
      ['_id', -1],
    ],
  },
  {
    fields: [
      ['owner', 1],
      ['open', 1],
      ['createdAt', -1],
      ['_id', -1],
    ],
  },
]);

/** A DEX order's record key: the family prefix, 32 hex digits and a retry digit. */
export const DEX_ORDER_ID = /^DEX(010|402)_[0-9a-f]{32}[0-9]$/;

const RANK_DIGITS = 100;
const pad = (n: bigint | number, width: number): string => {
  const s = n.toString();
  return s.length >= width ? '9'.repeat(width) : s.padStart(width, '0');
};
const complement = (digits: string): string => digits.replace(/[0-9]/g, (d) => String(9 - Number(d)));

/** An integer as written (a string or a number); anything else, "" included, reads as 0. */
export const writtenInt = (v: unknown): bigint => {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  return /^-?[0-9]+$/.test(s) ? BigInt(s) : 0n;
};
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number => Number(writtenInt(v));
/** An amount as written, "" (Go's zero value) read as "0". */
const amount = (v: unknown): string => writtenInt(v).toString();

/** The rank of a side's best-first order (see MarketOrderDoc.rank). */
export function orderRank(side: MarketSide, price: string, unit: string, expiry: number): string {
  if (side === 'auction') return pad(expiry, 20);
  const perUnit = (BigInt(price) * 100_000_000n) / (BigInt(unit) > 0n ? BigInt(unit) : 1n);
  const key = pad(perUnit < 0n ? 0n : perUnit, RANK_DIGITS);
  return side === 'buy' ? complement(key) : key;
}

/** An order from a `DEX010_…`/`DEX402_…` record's written values. */
export function dexOrderDoc(key: string, pos: string, jobType: string, v: Record<string, unknown>): MarketOrderDoc {
  const protocol: MarketProtocol = key.startsWith('DEX010_') ? 'MRC010' : 'MRC402';
  const auction = num(v['auction_start_date']) > 0;
  const side: MarketSide = auction ? 'auction' : protocol === 'MRC010' && text(v['buy_token']) !== '' ? 'buy' : 'sell';
  const cancelled = num(v['cancel_date']) > 0;
  const status: MarketStatus = cancelled
    ? 'cancelled'
    : auction
      ? num(v['auction_settle_date']) > 0
        ? num(v['sell_date']) > 0
          ? 'sold'
          : 'failed'
        : 'open'
      : text(v['remain_amount']) === '0' || num(v['sell_date']) > 0
        ? 'filled'
        : 'open';
  const unit =
    side !== 'auction' && protocol === 'MRC010' && writtenInt(v['min_trade_unit']) > 0n
      ? amount(v['min_trade_unit'])
      : '1';
  const price = auction
    ? num(v['auction_bid_count']) > 0
      ? amount(v['auction_current_price'])
      : amount(v['auction_start_price'])
    : amount(side === 'buy' ? v['buy_price'] : v['sell_price']);
  const expiry = auction ? num(v['auction_end_date']) : 0;
  const open = status === 'open';
  return {
    _id: key,
    pos,
    jobType,
    protocol,
    asset: protocol === 'MRC010' ? writtenInt(v['mrc010']).toString() : text(v['mrc402']),
    nftId: protocol === 'MRC010' ? '' : text(v['mrc402']),
    side,
    status,
    open,
    owner: text(side === 'buy' ? v['buyer'] : v['seller']),
    amount: amount(v['amount']),
    remaining: auction ? (open ? amount(v['amount']) : '0') : amount(v['remain_amount']),
    price,
    unit,
    payToken: num(side === 'buy' ? v['buy_token'] : v['sell_token']),
    createdAt: num(v['regdate']),
    expiry,
    auction: auction
      ? {
          startDate: num(v['auction_start_date']),
          endDate: expiry,
          startPrice: amount(v['auction_start_price']),
          buyNowPrice: amount(v['auction_buynow_price']),
          biddingUnit: amount(v['auction_bidding_unit']),
          currentPrice: amount(v['auction_current_price']),
          currentBidder: text(v['auction_current_bidder']),
        }
      : null,
    platform: platformOf(v),
    rank: orderRank(side, price, unit, expiry),
  };
}

const platformOf = (v: Record<string, unknown>) => ({
  name: text(v['platform_name']),
  url: text(v['platform_url']),
  address: text(v['platform_address']),
  commission: text(v['platform_commission']),
});

/**
 * How each item job type that may end an offer ends it: the side it ended and the status, for an
 * item written by it and no longer offered. Other item writes (create, update, transfer, melt) never
 * touch an offer, so they cost the market nothing.
 */
const ITEM_OFFER_ENDS: ReadonlyMap<string, { side: MarketSide; status: MarketStatus }> = new Map([
  ['mrc401_buy', { side: 'sell', status: 'filled' }],
  ['mrc401_unsell', { side: 'sell', status: 'cancelled' }],
  ['mrc401_unauction', { side: 'auction', status: 'cancelled' }],
  ['mrc401_auctionwinning', { side: 'auction', status: 'sold' }],
  ['mrc401_auctionbuynow', { side: 'auction', status: 'sold' }],
  ['mrc401_auctionfailure', { side: 'auction', status: 'failed' }],
]);

/**
 * An MRC-401 item's offer as its write leaves it: open while the item is offered; closed (as the job
 * type ended it, at the price it traded at, if it did) when the write ended it; null when the write
 * has nothing to do with the market. Only open offers are stored (`itemOrderWrite`); a closed one
 * is what the live stream tells of the end.
 */
export function itemOrderDoc(pos: string, jobType: string, item: NftItemState): MarketOrderDoc | null {
  const auction = item.auction_date > 0;
  const open = auction || item.sell_date > 0;
  const end = open ? undefined : ITEM_OFFER_ENDS.get(jobType);
  if (!open && !end) return null;
  const side: MarketSide = end?.side ?? (auction ? 'auction' : 'sell');
  const price = end
    ? amount(end.status === 'filled' || end.status === 'sold' ? item.last_trade_amount : '')
    : auction
      ? item.auction_current_bidder !== ''
        ? amount(item.auction_current_price)
        : amount(item.auction_start_price)
      : amount(item.sell_price);
  const expiry = auction ? item.auction_end : 0;
  return {
    _id: item.id,
    pos,
    jobType,
    protocol: 'MRC401',
    asset: item.mrc400,
    nftId: item.id,
    side,
    status: end?.status ?? 'open',
    open,
    owner: item.owner,
    amount: '1',
    remaining: open ? '1' : '0',
    price,
    unit: '1',
    payToken: num(end ? item.last_trade_token : auction ? item.auction_token : item.sell_token),
    createdAt: auction ? item.auction_date : item.sell_date,
    expiry,
    auction: auction
      ? {
          startDate: item.auction_date,
          endDate: expiry,
          startPrice: amount(item.auction_start_price),
          buyNowPrice: amount(item.auction_buynow_price),
          biddingUnit: amount(item.auction_bidding_unit),
          currentPrice: amount(item.auction_current_price),
          currentBidder: item.auction_current_bidder,
        }
      : null,
    platform: {
      name: item.platform_name,
      url: item.platform_url,
      address: item.platform_address,
      commission: item.platform_commission,
    },
    rank: orderRank(side, price, '1', expiry),
  };
}

/** The market's write for an item write: its offer put while open, removed once ended, or nothing. */
export function itemOrderWrite(pos: string, jobType: string, item: NftItemState): Write | null {
  const doc = itemOrderDoc(pos, jobType, item);
  if (!doc) return null;
  return doc.open
    ? { op: 'putIfNewer', collection: marketOrders.name, doc }
    : { op: 'delete', collection: marketOrders.name, id: item.id };
}

export function dexOrderWrite(key: string, pos: string, jobType: string, values: Record<string, unknown>): Write {
  return { op: 'putIfNewer', collection: marketOrders.name, doc: dexOrderDoc(key, pos, jobType, values) };
}

/** The market's order writes for a batch's blocks: each order's newest write only. */
export function marketOrderWrites(events: readonly BlockEvent[]): Write[] {
  const newest = new Map<string, Write>();
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes) {
        if (w.kind === 'other' && DEX_ORDER_ID.test(w.key))
          newest.set(w.key, dexOrderWrite(w.key, w.pos, w.jobType, w.values));
        else if (w.kind === 'nftItem') {
          const write = itemOrderWrite(w.pos, w.jobType, w.item);
          if (write) newest.set(w.key, write);
        }
      }
  return [...newest.values()];
}
