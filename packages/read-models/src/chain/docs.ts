import type { RawEntry, TxSummary } from '@mtc/domain';
import { defineModel } from '../model.ts';

/**
 * `head/indexed`: the last block fully projected, and the version stamp of every read model.
 *
 * A batch becomes visible whole. On a store whose write calls are atomic (SQLite), a batch and its
 * head are one call. On one whose are not (MongoDB without transactions), the projector first
 * rewrites the head with `writing` set to the height it is about to reach, then writes the batch,
 * then the new head without `writing`. A reader therefore knows the read models are exactly the
 * state at `height` while the head it read before its reads is the head it reads after them, with
 * no `writing` (an optimistic read, validated like a seqlock: see services/api `consistent.ts`).
 */
export type HeadDoc = {
  _id: 'indexed';
  pos: string;
  height: number;
  hash: string;
  timestamp: number;
  /** Listed transactions indexed so far = next `seq`. */
  txCount: number;
  /** Set while a batch up to this height is being written over the state at `height`. */
  writing?: number;
  /** The layout of the read models under this head (READ_MODELS_LAYOUT when written; absent: 1). */
  layout?: number;
};
export const HEAD_ID = 'indexed';

/**
 * The read models' layout: raised when a release changes what stored documents look like (2:
 * series rows keyed by their number). A store written in another layout is rebuilt from the block
 * topic (`npm run rebuild`), never read or extended as if it were this one. Layout 2 also gave
 * blocks their `firstSeq`; layout 3 added the ranked lists of holders (`holders/ranked.ts`); layout
 * 4 stores large lists once by content (`shared-values.ts`): transactions' MRC-402 holdings maps, the
 * holding-change log's lock-ups; layout 5 files activity rows by reference under their filtered
 * lists (`series/filters.ts`, `series/series.ts`) and gives them their kind; layout 6 adds the DEX
 * market (`market/`).
 */
export const READ_MODELS_LAYOUT = 6;

/** Why the read models under `head` cannot be used by this release, or null when they can. */
export function layoutMismatch(head: HeadDoc | null): string | null {
  const layout = head?.layout ?? (head === null ? READ_MODELS_LAYOUT : 1);
  return layout === READ_MODELS_LAYOUT
    ? null
    : `the read models were written in layout ${layout} and this release reads and writes layout ${READ_MODELS_LAYOUT}: rebuild them from the block topic (npm run rebuild with REBUILD_DROP=true, or point the store at an empty database)`;
}

export type BlockDoc = {
  /** The height in decimal. */
  _id: string;
  height: number;
  hash: string;
  timestamp: number;
  txCount: number;
  /** The seq of its first transaction (of the next block's, when it has none). */
  firstSeq: number;
  txs: { id: string; timestamp: number }[];
};

export type TxDoc = {
  /** The transaction hash. */
  _id: string;
  seq: number;
  height: number;
  index: number;
  timestamp: number;
  valid: boolean;
  summary: TxSummary;
  /** The entries as the block topic carries them, less the `values.mrc402` maps listed in `maps`. */
  entries: RawEntry[];
  /**
   * Entries whose `values.mrc402` is a shared value (`shared-values.ts`), by its id. A wallet write
   * records the wallet's whole MRC-402 holdings, so inline they would make a transaction's document
   * grow with what its wallets hold.
   */
  maps?: { entry: number; id: string }[];
};

/** Listed transactions per calendar day (in the configured stats time zone). */
export type DailyTxDoc = {
  /** `YYYY-MM-DD`. */
  _id: string;
  pos: string;
  count: number;
};

export const head = defineModel<HeadDoc>('head');
export const blocks = defineModel<BlockDoc>('blocks', [
  { fields: [['height', 1]], unique: true },
  { fields: [['hash', 1]], unique: true },
  // Rebuilding the today-so-far counters reads the last two days of blocks by time.
  { fields: [['timestamp', 1]] },
]);
export const txs = defineModel<TxDoc>('txs', [{ fields: [['seq', 1]], unique: true }, { fields: [['height', 1]] }]);
export const dailyTx = defineModel<DailyTxDoc>('daily_tx');
