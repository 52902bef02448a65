import type { ChainSource, Counters, EventLog, ReadStore } from '@mtc/ports';
import { HEAD_ID, type Models } from '@mtc/read-models';
import type { Logger } from 'pino';
import type { ApiConfig } from './config.ts';
import type { MainnetHeight } from './mainnet-height.ts';
import type { RateLimitBuckets } from './rate-limit.ts';
import type { ImageFetcher } from './routes/nfts/image-fetch.ts';

/** What the API is built from: its config and the ports it reads. */
export interface ApiDeps {
  config: ApiConfig;
  logger: Logger;
  store: ReadStore;
  counters: Counters;
  chain: ChainSource;
  /** Wall clock in unix milliseconds (default: CLOCK_NOW_UNIX when set, else the system clock); tests pin it. */
  now?: () => number;
  /** Told of every finished request, e.g. for a latency histogram; `route` is the route pattern. */
  onResponse?: (info: { method: string; route: string; status: number; seconds: number }) => void;
  /** The block log the live stream (/api/stream) reads; without it the stream answers 503. */
  events?: { log: EventLog; blockTopic: string };
  /** Where rate-limit buckets live when RATE_LIMIT_ENABLED (Redis, shared by replicas); default: this process's memory. */
  rateLimitBuckets?: RateLimitBuckets;
}

/** The one context every handler gets. */
export interface AppContext {
  config: ApiConfig;
  logger: Logger;
  counters: Counters;
  chain: ChainSource;
  now: () => number;
  /** Every read model, opened from the registry (`openModels`). */
  models: Models;
  mainnet: MainnetHeight;
  /** NFT images from the URLs on chain, guarded and kept in the store; closed with the app. */
  images: ImageFetcher;
}

/**
 * The indexed head as one request sees it: read once per request, so every list in a response (and
 * its X-Indexed-Height header) describes the same snapshot. Zeros before the first block is indexed.
 */
export interface Head {
  height: number;
  txCount: number;
}

export async function readHead(models: Pick<Models, 'head'>): Promise<Head> {
  const doc = await models.head.get(HEAD_ID);
  return doc ? { height: doc.height, txCount: doc.txCount } : { height: 0, txCount: 0 };
}

/**
 * The head as requests share it: one store read serves every request for `ttlMs` (0: every call
 * reads), and concurrent callers wait on the same read.
 */
export function createHeadReader(models: Pick<Models, 'head'>, ttlMs: number, now: () => number): () => Promise<Head> {
  let held: { head: Head; at: number } | undefined;
  let reading: Promise<Head> | undefined;
  return () => {
    if (held && ttlMs > 0 && now() - held.at < ttlMs) return Promise.resolve(held.head);
    return (reading ??= readHead(models)
      .then((head) => {
        held = { head, at: now() };
        return head;
      })
      .finally(() => (reading = undefined)));
  };
}
