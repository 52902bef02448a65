import type { BalanceEntry, RawEntry, TokenState, TxSummary } from '@mtc/domain';
import type { CollectionSpec, Doc } from '@mtc/ports';

/**
 * The read models: what the projector writes and the API reads. One place names every collection,
 * its document shape and the indexes its queries need (created at start-up by both stores).
 */
export const COLLECTIONS = {
  head: 'head',
  blocks: 'blocks',
  txs: 'txs',
  wallets: 'wallets',
  tokens: 'tokens',
  dailyTx: 'daily_tx',
} as const;

/** `head/indexed`: the last block fully projected. Written after that block's documents. */
export interface HeadDoc extends Doc {
  _id: 'indexed';
  pos: string;
  height: number;
  hash: string;
  timestamp: number;
  /** Listed transactions indexed so far = next `seq`. */
  txCount: number;
}

export interface BlockDoc extends Doc {
  /** The height in decimal. */
  _id: string;
  height: number;
  hash: string;
  timestamp: number;
  txCount: number;
  txs: { id: string; timestamp: number }[];
}

export interface TxDoc extends Doc {
  /** The transaction hash. */
  _id: string;
  seq: number;
  height: number;
  index: number;
  timestamp: number;
  valid: boolean;
  summary: TxSummary;
  entries: RawEntry[];
}

export interface WalletDoc extends Doc {
  /** The address. */
  _id: string;
  pos: string;
  regdate: number;
  addinfo: string;
  balances: BalanceEntry[];
  mrc402: Record<string, { balance: string; saleamount: string; auctionamount: string }> | null;
}

export interface TokenDoc extends Doc, TokenState {
  /** The token id in decimal. */
  _id: string;
  pos: string;
  /** Lower-cased name and symbol, for exact case-insensitive search. */
  nameKey: string;
  symbolKey: string;
}

/** Listed transactions per calendar day (in the configured stats time zone). */
export interface DailyTxDoc extends Doc {
  /** `YYYY-MM-DD`. */
  _id: string;
  pos: string;
  count: number;
}

export const COLLECTION_SPECS: readonly CollectionSpec[] = [
  { name: COLLECTIONS.head, indexes: [] },
  {
    name: COLLECTIONS.blocks,
    indexes: [
      { fields: [['height', 1]], unique: true },
      { fields: [['hash', 1]], unique: true },
    ],
  },
  {
    name: COLLECTIONS.txs,
    indexes: [{ fields: [['seq', 1]], unique: true }, { fields: [['height', 1]] }],
  },
  { name: COLLECTIONS.wallets, indexes: [] },
  {
    name: COLLECTIONS.tokens,
    indexes: [{ fields: [['token', 1]], unique: true }, { fields: [['nameKey', 1]] }, { fields: [['symbolKey', 1]] }],
  },
  { name: COLLECTIONS.dailyTx, indexes: [] },
];

export const HEAD_ID = 'indexed';
export { canonicalJson, dumpReadModels, type ReadModelDump } from './dump.ts';
