import type { RawEntry, TxSummary } from '@mtc/domain';
import { defineModel } from '../model.ts';

/** `head/indexed`: the last block fully projected. Written after every other write of its batch. */
export type HeadDoc = {
  _id: 'indexed';
  pos: string;
  height: number;
  hash: string;
  timestamp: number;
  /** Listed transactions indexed so far = next `seq`. */
  txCount: number;
};
export const HEAD_ID = 'indexed';

export type BlockDoc = {
  /** The height in decimal. */
  _id: string;
  height: number;
  hash: string;
  timestamp: number;
  txCount: number;
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
  entries: RawEntry[];
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
