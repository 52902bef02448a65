import {
  activityAsset,
  chainPos,
  isKnownActivity,
  type BlockEvent,
  type KnownActivity,
  type NftItemState,
} from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { defineModel } from '../model.ts';
import { defineSeries, type Appended, type FiledKeys, type SeriesRow } from '../series/series.ts';
import { DEX_ORDER_ID, writtenInt, type MarketProtocol } from './orders.ts';

/**
 * The DEX market's trades: each settlement of a sale (`buy`), a request to buy (`acceptreqsell`) or
 * an auction (won or bought out), MRC-010, MRC-402 and MRC-401 alike, numbered per asset in chain
 * order (a series, so pages and cursors cost what they do on every list), each filed by reference
 * under its pay token. The quantity and parties come from the settlement's activity; its price from
 * the order record the same transaction wrote (sell_price, buy_price, min_trade_unit, or the item's
 * last_trade_amount), so a trade's value is the chain's own: amount × price / unit for a sale or
 * request, the winning bid for an auction.
 */
export type MarketTradeKind = 'sale' | 'request' | 'auction';

export type MarketTradeDoc = SeriesRow & {
  txId: string;
  height: number;
  timestamp: number;
  protocol: MarketProtocol;
  asset: string;
  nftId: string;
  orderId: string;
  kind: MarketTradeKind;
  seller: string;
  buyer: string;
  amount: string;
  price: string;
  unit: string;
  payToken: number;
  value: string;
};

export const marketTrades = defineSeries<MarketTradeDoc>('market_trades');

/** The filed list of an asset's trades in one pay token. */
export const payTokenSuffix = (payToken: number): string => `pay=${payToken}`;

export const marketTradeFiledKeys: FiledKeys<MarketTradeDoc> = (_key, row) => [payTokenSuffix(row.payToken)];

type Trade = Omit<MarketTradeDoc, keyof SeriesRow | 'txId' | 'height' | 'timestamp'>;

/** What the transaction wrote: its DEX order records' values and its items, by key. */
interface Written {
  orders: Map<string, Record<string, unknown>>;
  items: Map<string, NftItemState>;
}

/** A sale or request at `price` per `unit` units. */
function priced(amount: string, price: bigint, unit: bigint): Pick<Trade, 'amount' | 'price' | 'unit' | 'value'> {
  const per = unit > 0n ? unit : 1n;
  return { amount, price: price.toString(), unit: per.toString(), value: ((BigInt(amount) * price) / per).toString() };
}

/** An NFT trade's protocol: MRC-400 collections themselves are never traded, their items are. */
const nftProtocol = (p: string): MarketProtocol => (p === 'MRC402' ? 'MRC402' : 'MRC401');

/** The trade an activity settles, or null. */
function tradeOf(a: KnownActivity, written: Written): Trade | null {
  const asset = activityAsset(a) ?? '';
  if (a.kind === 'buy' || a.kind === 'buyRequestAccept') {
    const v = written.orders.get(a.dexId) ?? {};
    const request = a.kind === 'buyRequestAccept';
    return {
      protocol: 'MRC010',
      asset,
      nftId: '',
      orderId: a.dexId,
      kind: request ? 'request' : 'sale',
      seller: a.seller,
      buyer: a.buyer,
      payToken: a.payToken,
      ...priced(a.amount, writtenInt(request ? v['buy_price'] : v['sell_price']), writtenInt(v['min_trade_unit'])),
    };
  }
  if (a.kind === 'nftBuy') {
    const item = a.protocol === 'MRC401';
    const price = item
      ? writtenInt(written.items.get(a.nftId)?.last_trade_amount)
      : writtenInt(written.orders.get(a.dexId)?.['sell_price']);
    return {
      protocol: nftProtocol(a.protocol),
      asset,
      nftId: a.nftId,
      orderId: a.dexId,
      kind: 'sale',
      seller: a.seller,
      buyer: a.buyer,
      payToken: a.payToken,
      ...priced(item ? '1' : a.amount, price, 1n),
    };
  }
  if ((a.kind === 'auctionFinish' || a.kind === 'nftAuctionFinish') && a.outcome !== 'failure') {
    const nft = a.kind === 'nftAuctionFinish';
    return {
      protocol: nft ? nftProtocol(a.protocol) : 'MRC010',
      asset,
      nftId: nft ? a.nftId : '',
      orderId: a.dexId,
      kind: 'auction',
      seller: a.seller,
      buyer: a.winner,
      payToken: a.payToken,
      amount: nft && a.protocol === 'MRC401' ? '1' : a.amount,
      price: a.price,
      unit: '1',
      value: a.price,
    };
  }
  return null;
}

/** The trades of a batch's blocks, under their asset's key. */
export function marketTradeItems(events: readonly BlockEvent[]): Appended<MarketTradeDoc>[] {
  const out: Appended<MarketTradeDoc>[] = [];
  for (const e of events)
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      let written: Written | undefined;
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a)) return;
        written ??= writtenBy(tx.writes);
        const trade = tradeOf(a, written);
        if (!trade) return;
        out.push({
          key: trade.asset,
          pos: chainPos(e.height, tx.index, i),
          row: { txId: tx.id, height: e.height, timestamp: tx.timestamp, ...trade },
        });
      });
    }
  return out;
}

function writtenBy(writes: BlockEvent['txs'][number]['writes']): Written {
  const written: Written = { orders: new Map(), items: new Map() };
  for (const w of writes) {
    if (w.kind === 'other' && DEX_ORDER_ID.test(w.key)) written.orders.set(w.key, w.values);
    else if (w.kind === 'nftItem') written.items.set(w.key, w.item);
  }
  return written;
}

/**
 * An asset's trading in one pay token since its first trade: count, volume (Σ value) and the last
 * trade. The 24-hour figures are not kept: they are the sum of the pay token's filed trades in the
 * last day's window of blocks, read as of the height asked (a bisection and the window's rows).
 */
export type MarketStatsDoc = {
  /** `<asset>|<payToken>`. */
  _id: string;
  asset: string;
  payToken: number;
  trades: number;
  volume: string;
  lastPrice: string;
  lastUnit: string;
  /** The block time of the last trade. */
  lastTime: number;
  /** The last trade counted: a replayed batch counts no trade twice. */
  pos: string;
};

export const marketStats = defineModel<MarketStatsDoc>('market_stats', [{ fields: [['asset', 1]] }]);

export const marketStatsId = (asset: string, payToken: number): string => `${asset}|${payToken}`;

/** The stats documents a batch's trades move. */
export const marketStatsIds = (items: readonly Appended<MarketTradeDoc>[]): string[] => [
  ...new Set(items.map((t) => marketStatsId(t.row.asset, t.row.payToken))),
];

/**
 * The stats after a batch's trades, put if newer: trades at or before a stored document's position
 * are in it. `blockTime` gives a trade's block time (what `lastTime` is, as the 24-hour window is).
 */
export function projectMarketStats(
  items: readonly Appended<MarketTradeDoc>[],
  stored: readonly MarketStatsDoc[],
  blockTime: (height: number) => number,
): Write[] {
  const docs = new Map(stored.map((d) => [d._id, d]));
  const moved = new Map<string, MarketStatsDoc>();
  for (const { pos, row } of items) {
    const _id = marketStatsId(row.asset, row.payToken);
    const had = moved.get(_id) ?? docs.get(_id);
    if (had && had.pos >= pos) continue;
    moved.set(_id, {
      _id,
      asset: row.asset,
      payToken: row.payToken,
      trades: (had?.trades ?? 0) + 1,
      volume: (BigInt(had?.volume ?? '0') + BigInt(row.value)).toString(),
      lastPrice: row.price,
      lastUnit: row.unit,
      lastTime: blockTime(row.height),
      pos,
    });
  }
  return [...moved.values()].map((doc) => ({ op: 'putIfNewer', collection: marketStats.name, doc }));
}
