import {
  activityAsset,
  chainPos,
  isKnownActivity,
  type BlockEvent,
  type KnownActivity,
  type NftProtocol,
} from '@mtc/domain';
import { defineSeries, type Appended, type SeriesRow } from './series.ts';

/**
 * NFT activity, numbered in chain order per NFT: every NFT activity event (creation, update, mint,
 * burn, transfer, melt, sale, auction …) under the NFT it is about, and an MRC-401 item's also under
 * its collection, so one range query pages an MRC-402's lifecycle, an item's history from its
 * minting on, or a collection's history with its items.
 */
export type NftActivityDoc = SeriesRow & {
  /** The NFT the activity is about (for a collection's rows: the item, or the collection itself). */
  nftId: string;
  protocol: NftProtocol;
  kind: string;
  jobType: string;
  txId: string;
  height: number;
  /** The transaction's timestamp (client clock). */
  timestamp: number;
  from: string;
  to: string;
  /** Units moved (MRC-402 units; "1" for an item; "0" when nothing moved). */
  amount: string;
  /** A price where the activity has one (offer, bid, settlement), in `payToken`; "" otherwise. */
  price: string;
  payToken: number | null;
};

export const nftActivity = defineSeries<NftActivityDoc>('nft_activity');

type View = Pick<NftActivityDoc, 'from' | 'to' | 'amount' | 'price' | 'payToken'>;

const moved = (from: string, to: string, amount: string): View => ({ from, to, amount, price: '', payToken: null });

/** An activity about an NFT. */
export type NftActivity = Extract<KnownActivity, { nftId: string }>;

/** From, to, amount and price of an NFT activity. */
export function nftActivityView(a: NftActivity): View {
  switch (a.kind) {
    case 'nftCreate':
      return moved('', a.owner, a.amount);
    case 'nftUpdate':
      return moved(a.owner, '', '0');
    case 'nftMint':
      return moved('', a.owner, a.amount);
    case 'nftBurn':
    case 'nftMelt':
      return moved(a.owner, '', a.amount);
    case 'nftTransfer':
      return moved(a.from, a.to, a.amount);
    case 'nftSell':
      return { from: a.seller, to: a.dexId, amount: a.amount, price: a.price, payToken: a.payToken };
    case 'nftSellCancel':
    case 'nftAuctionCancel':
      return moved(a.dexId, a.seller, a.amount);
    case 'nftBuy': {
      // What the buyer paid in: the settlement's payments out of its wallet.
      const paid = a.payments.filter((p) => p.from === a.buyer).reduce((sum, p) => sum + BigInt(p.amount), 0n);
      return { from: a.seller, to: a.buyer, amount: a.amount, price: paid.toString(), payToken: a.payToken };
    }
    case 'nftAuction':
      return { from: a.seller, to: a.dexId, amount: a.amount, price: a.startPrice, payToken: a.payToken };
    case 'nftBid':
      return { from: a.bidder, to: a.dexId, amount: '0', price: a.price, payToken: a.payToken };
    case 'nftAuctionFinish':
      return a.outcome === 'failure'
        ? { from: a.dexId, to: a.seller, amount: a.amount, price: '', payToken: a.payToken }
        : { from: a.seller, to: a.winner, amount: a.amount, price: a.price, payToken: a.payToken };
  }
}

export function nftActivityItems(events: readonly BlockEvent[]): Appended<NftActivityDoc>[] {
  const out: Appended<NftActivityDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a) || !('nftId' in a)) return;
        const view = nftActivityView(a);
        const pos = chainPos(e.height, tx.index, i);
        const row = {
          ...view,
          nftId: a.nftId,
          protocol: a.protocol,
          kind: a.kind,
          jobType: a.jobType,
          txId: tx.id,
          height: e.height,
          timestamp: tx.timestamp,
        };
        out.push({ key: a.nftId, pos, row });
        // An item's activity is its collection's history too.
        const collection = activityAsset(a);
        if (collection !== null && collection !== a.nftId) out.push({ key: collection, pos, row });
      });
    }
  }
  return out;
}

/**
 * The NFTs in order of creation, for the NFT list: MRC-402s and MRC-400 collections under `all`, and
 * each under its list's protocol filter (`MRC402`; `MRC401` for collections, whose items are the
 * MRC-401s). Items are numbered per collection under the collection's id, for its item list.
 */
export type NftListDoc = SeriesRow & {
  nftId: string;
  protocol: NftProtocol;
  /** Who created it (the caller of the create). */
  creator: string;
  txId: string;
  height: number;
  timestamp: number;
};

export const nftLists = defineSeries<NftListDoc>('nft_lists');

/** The key of the collection item list of `collection` (apart from the protocol lists). */
export const collectionItemsKey = (collection: string): string => `items:${collection}`;

export function nftListItems(events: readonly BlockEvent[]): Appended<NftListDoc>[] {
  const out: Appended<NftListDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a) || a.kind !== 'nftCreate') return;
        const pos = chainPos(e.height, tx.index, i);
        const row = {
          nftId: a.nftId,
          protocol: a.protocol,
          creator: a.creator,
          txId: tx.id,
          height: e.height,
          timestamp: tx.timestamp,
        };
        if (a.protocol === 'MRC401') {
          out.push({ key: collectionItemsKey(a.parent), pos, row });
          return;
        }
        out.push({ key: 'all', pos, row });
        out.push({ key: a.protocol === 'MRC402' ? 'MRC402' : 'MRC401', pos, row });
      });
    }
  }
  return out;
}
