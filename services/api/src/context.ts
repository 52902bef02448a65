import type { ChainSource, Counters, EventLog, ImageFetcher, ReadStore } from '@mtc/ports';
import type { OnResponse } from './access-log.ts';
import type { Models } from '@mtc/read-models';
import type { Logger } from 'pino';
import type { ApiConfig } from './config.ts';
import { localHeadCell, type HeadCell } from './head-cell.ts';
import type { HeadSource } from './consistent.ts';
import { readHead, type Head } from './head.ts';
import type { MainnetHeight } from './mainnet-height.ts';
import type { RateLimitBuckets } from './rate-limit.ts';

/** What the API is built from: its config and the ports it reads. */
export interface ApiDeps {
  config: ApiConfig;
  logger: Logger;
  store: ReadStore;
  counters: Counters;
  chain: ChainSource;
  /** NFT images from the URLs on chain (`createNftImageFetcher`); handed to the app, which closes it. */
  images: ImageFetcher;
  /** Wall clock in unix milliseconds (default: CLOCK_NOW_UNIX when set, else the system clock); tests pin it. */
  now?: () => number;
  /** Told of every finished request, e.g. for a latency histogram; `route` is the route pattern. */
  onResponse?: OnResponse;
  /**
   * Aborted when the process begins to stop (the shutdown's signal): /readyz answers 503 from then
   * on, while the requests in flight drain.
   */
  stopping?: AbortSignal;
  /** The block log the live stream (/api/stream) reads; without it the stream answers 503. */
  events?: { log: EventLog; blockTopic: string };
  /** Where rate-limit buckets live when RATE_LIMIT_ENABLED (Redis, shared by replicas); default: this process's memory. */
  rateLimitBuckets?: RateLimitBuckets;
  /** The head the API threads of one process share (`headMemory()`); default: this thread's own. */
  sharedHead?: SharedArrayBuffer;
  /**
   * The name under which the API threads of one process hand each other the answers they build
   * (`broadcastPeers`), so each is built once per process; default: this thread keeps its own.
   */
  sharedAnswers?: string;
}

/** What Koa keeps per request, set by the request scope before anything else runs. */
export interface ApiState {
  requestId: string;
  logger: Logger;
  /** The indexed head, read at most once per request. */
  head: () => Promise<Head>;
  /** The matched route pattern, once routed. */
  route?: string;
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
  /** Aborted once the process is stopping (ApiDeps.stopping). */
  stopping: AbortSignal;
}

/**
 * `context` for one answer's build, noting whether the build used what moves while the head stands
 * still: the clock (locks, today's figures), the counters, the node or its height. An answer that
 * used none of them is the read models' state at its height, true for as long as the head is.
 */
export function watchedContext(context: AppContext): { context: AppContext; live: () => boolean } {
  let live = false;
  const watched: AppContext = { ...context };
  for (const part of LIVE_PARTS)
    Object.defineProperty(watched, part, {
      enumerable: true,
      get: () => {
        live = true;
        return context[part];
      },
    });
  return { context: watched, live: () => live };
}

/** What an answer can depend on besides the read models at its height. */
const LIVE_PARTS = ['now', 'counters', 'chain', 'mainnet'] as const satisfies readonly (keyof AppContext)[];

/**
 * The head as requests share it: `current` costs one store read per `ttlMs` (0: every call reads),
 * concurrent callers waiting on the same read; `fresh` reads after the caller's own reads (callers
 * share that read while the read before it is answered), and what it reads is shared from then on.
 * The shared head never goes down: a read older than the one held (a slow answer overtaken by a
 * newer one) is not kept.
 */
export interface HeadReader extends HeadSource {
  /** The shared head if `current` would answer it without a read; undefined otherwise. */
  peek(): Head | undefined;
}

export function createHeadReader(
  models: Pick<Models, 'head'>,
  ttlMs: number,
  now: () => number,
  cell: HeadCell = localHeadCell(),
): HeadReader {
  let reading: Promise<Head> | undefined;
  let queued: Promise<Head> | undefined;
  let inFlight: Promise<Head> | undefined;
  const keep = (head: Head): Head => {
    cell.offer(head, now());
    return head;
  };
  const unexpired = (): Head | undefined => {
    if (ttlMs <= 0) return undefined;
    const held = cell.get();
    return held && now() - held.at < ttlMs ? held.head : undefined;
  };
  return {
    peek: unexpired,
    current: () => {
      const head = unexpired();
      if (head) return Promise.resolve(head);
      return (reading ??= readHead(models)
        .then(keep)
        .finally(() => (reading = undefined)));
    },
    fresh: () =>
      // One head read in flight at a time. A read issued before a caller's own reads finished cannot
      // validate them, so callers join the next read, issued once the one in flight is answered (and
      // at the end of this turn of the event loop at the earliest): under load every request that
      // finishes its reads meanwhile shares it, and a process issues one validating read per round trip.
      (queued ??= (async () => {
        await Promise.resolve();
        await inFlight?.catch(() => {});
        queued = undefined;
        const read = readHead(models).then(keep);
        inFlight = read;
        const answered = () => {
          if (inFlight === read) inFlight = undefined;
        };
        read.then(answered, answered);
        return read;
      })()),
  };
}
