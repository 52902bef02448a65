import { chainPos, isKnownActivity, type BlockEvent, type KnownActivity } from '@mtc/domain';
import { filterSuffixes } from './filters.ts';
import { defineSeries, type Appended, type FiledKeys, type SeriesRow } from './series.ts';

/**
 * A token's activity: every activity event about it (transfers, reserves, mints, burns, updates,
 * DEX orders and settlements), newest first — the same events, keyed the same way, as the
 * `mtc.activity.v1` topic. A multitransfer is one row listing its recipients.
 */
export type TokenTxDoc = SeriesRow & {
  token: number;
  txId: string;
  height: number;
  timestamp: number;
  /** The activity's job type, e.g. `transfer`, `receive`, `multi_transfer`, `mrc010_buy`. */
  type: string;
  kind: string;
  from: string;
  to: string;
  amount: string;
  recipients: { to: string; amount: string }[];
  memo: string;
};

export const tokenTxs = defineSeries<TokenTxDoc>('token_txs');

/** The from/to/amount view of an activity, from the token's point of view. */
export function tokenTxView(a: KnownActivity): { from: string; to: string; amount: string; memo: string } {
  switch (a.kind) {
    case 'transfer':
      return { from: a.from, to: a.to, amount: a.amount, memo: a.memo };
    case 'tokenCreate':
      return { from: a.owner, to: '', amount: a.totalsupply, memo: '' };
    case 'tokenReserve':
      return { from: a.from, to: a.to, amount: a.amount, memo: '' };
    case 'tokenMint':
      return { from: '', to: a.owner, amount: a.amount, memo: a.memo };
    case 'tokenBurn':
      return { from: a.owner, to: '', amount: a.amount, memo: a.memo };
    case 'tokenUpdate':
      return { from: a.owner, to: '', amount: '0', memo: '' };
    case 'sell':
    case 'auction':
      return { from: a.seller, to: a.dexId, amount: a.amount, memo: '' };
    case 'sellCancel':
    case 'auctionCancel':
      return { from: a.dexId, to: a.seller, amount: a.amount, memo: '' };
    case 'buy':
    case 'buyRequestAccept':
      return { from: a.seller, to: a.buyer, amount: a.amount, memo: '' };
    case 'buyRequest':
      return { from: a.buyer, to: a.dexId, amount: a.amount, memo: '' };
    case 'buyRequestCancel':
      return { from: a.dexId, to: a.buyer, amount: '0', memo: '' };
    case 'bid':
      return { from: a.bidder, to: a.dexId, amount: '0', memo: '' };
    case 'auctionFinish':
      return a.outcome === 'failure'
        ? { from: a.dexId, to: a.seller, amount: a.amount, memo: '' }
        : { from: a.seller, to: a.winner, amount: a.amount, memo: '' };
    case 'walletCreate':
    case 'other':
    // NFT activity is about an NFT, not an MRC-010 token (tokenTxItems takes only `tokenId` kinds).
    case 'nftCreate':
    case 'nftUpdate':
    case 'nftMint':
    case 'nftBurn':
    case 'nftTransfer':
    case 'nftMelt':
    case 'nftSell':
    case 'nftSellCancel':
    case 'nftBuy':
    case 'nftAuction':
    case 'nftAuctionCancel':
    case 'nftBid':
    case 'nftAuctionFinish':
      return { from: '', to: '', amount: '0', memo: '' };
  }
}

/** The filtered lists a token's row is filed under (filters.ts): by its kind. */
export const tokenTxFiledKeys: FiledKeys<TokenTxDoc> = (_key, row) =>
  filterSuffixes({ token: [], direction: [], kind: [row.kind] });

/** The rows of every token, under its own key. */
export function tokenTxItems(events: readonly BlockEvent[]): Appended<TokenTxDoc>[] {
  const out: Appended<TokenTxDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      // One row per multitransfer (per token), at its first recipient's position.
      const multi = new Map<number, Appended<TokenTxDoc>>();
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a) || !('tokenId' in a)) return;
        const pos = chainPos(e.height, tx.index, i);
        if (a.kind === 'transfer' && a.jobType === 'multi_transfer') {
          const row = multi.get(a.tokenId);
          if (row) {
            row.row.recipients.push({ to: a.to, amount: a.amount });
            row.row.amount = (BigInt(row.row.amount) + BigInt(a.amount)).toString();
            return;
          }
        }
        const view = tokenTxView(a);
        const item: Appended<TokenTxDoc> = {
          key: String(a.tokenId),
          pos,
          row: {
            token: a.tokenId,
            txId: tx.id,
            height: e.height,
            timestamp: tx.timestamp,
            type: a.jobType,
            kind: a.kind,
            ...view,
            recipients: a.kind === 'transfer' && a.jobType === 'multi_transfer' ? [{ to: a.to, amount: a.amount }] : [],
          },
        };
        if (a.kind === 'transfer' && a.jobType === 'multi_transfer') multi.set(a.tokenId, item);
        out.push(item);
      });
    }
  }
  return out;
}
