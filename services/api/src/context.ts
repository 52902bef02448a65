import type { ChainSource, Collection, Counters, ReadStore } from '@mtc/ports';
import {
  COLLECTIONS,
  HEAD_ID,
  type BlockDoc,
  type DailyTxDoc,
  type HeadDoc,
  type TokenDoc,
  type TxDoc,
  type WalletDoc,
} from '@mtc/read-models';
import type { Logger } from 'pino';
import type { ApiConfig } from './config.ts';
import type { MainnetHeight } from './mainnet-height.ts';

/** What the API is built from: its config and the ports it reads. */
export interface ApiDeps {
  config: ApiConfig;
  logger: Logger;
  store: ReadStore;
  counters: Counters;
  chain: ChainSource;
  /** Wall clock in unix milliseconds; tests pin it. */
  now?: () => number;
  /** Told of every finished request, e.g. for a latency histogram; `route` is the route pattern. */
  onResponse?: (info: { method: string; route: string; status: number; seconds: number }) => void;
}

/** The one context every handler gets. */
export interface AppContext {
  config: ApiConfig;
  logger: Logger;
  counters: Counters;
  chain: ChainSource;
  now: () => number;
  models: ReadModels;
  mainnet: MainnetHeight;
}

export interface ReadModels {
  head: Collection<HeadDoc>;
  blocks: Collection<BlockDoc>;
  txs: Collection<TxDoc>;
  wallets: Collection<WalletDoc>;
  tokens: Collection<TokenDoc>;
  dailyTx: Collection<DailyTxDoc>;
}

export function readModels(store: ReadStore): ReadModels {
  return {
    head: store.collection<HeadDoc>(COLLECTIONS.head),
    blocks: store.collection<BlockDoc>(COLLECTIONS.blocks),
    txs: store.collection<TxDoc>(COLLECTIONS.txs),
    wallets: store.collection<WalletDoc>(COLLECTIONS.wallets),
    tokens: store.collection<TokenDoc>(COLLECTIONS.tokens),
    dailyTx: store.collection<DailyTxDoc>(COLLECTIONS.dailyTx),
  };
}

/**
 * The indexed head as one request sees it: read once per request, so every list in a response (and
 * its X-Indexed-Height header) describes the same snapshot. Zeros before the first block is indexed.
 */
export interface Head {
  height: number;
  txCount: number;
}

export async function readHead(models: ReadModels): Promise<Head> {
  const doc = await models.head.get(HEAD_ID);
  return doc ? { height: doc.height, txCount: doc.txCount } : { height: 0, txCount: 0 };
}
