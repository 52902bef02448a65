import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Rate-limit buckets on Redis, shared by every API replica: one key per client,
 * `<prefix>ratelimit:<client>`, counting the points spent in its window and expiring with it
 * (rate-limiter-flexible's atomic Lua script). The API's middleware owns the port; this module only
 * keeps the buckets.
 *
 * The limiter must never take the API down with it. Calls are bounded by `timeoutMs` (the client's
 * command timeout), are refused at once while the connection is not ready (no offline queue), and
 * are never retried; whatever fails is answered by the library's insurance limiter, the same
 * buckets in this process's memory. So while Redis is down or slow each replica limits on its own
 * (fail open, up to one bucket per replica), and the outage is logged once, as is the recovery.
 */
export interface RedisRateLimitOptions {
  url: string;
  /** Key prefix (REDIS_PREFIX), so that several deployments or test files share one server. */
  prefix?: string;
  /** A bucket's size. */
  points: number;
  /** Seconds after a bucket's first request at which it is full again. */
  windowS: number;
  /** How long one Redis call may take before memory answers instead. */
  timeoutMs: number;
  logger?: Logger;
}

/** The API's `RateLimitBuckets` port (services/api/src/rate-limit.ts), which this satisfies. */
export interface RedisRateLimitBuckets {
  /** Takes `cost` points from `key`'s bucket; never rejects. */
  take(key: string, cost: number): Promise<{ taken: boolean; remaining: number; resetMs: number }>;
  close(): Promise<void>;
}

/** How long creation waits for the first connection; an unreachable Redis is then an outage like any other. */
const START_WAIT_MS = 2_000;

/** Never rejects: resolves once connected, or after the first failure or START_WAIT_MS. */
export async function createRedisRateLimitBuckets(options: RedisRateLimitOptions): Promise<RedisRateLimitBuckets> {
  const prefix = options.prefix ?? 'mtc:';
  const log = options.logger?.child({ component: 'rate-limit' });
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    commandTimeout: options.timeoutMs,
    maxRetriesPerRequest: 0,
  });

  // Counts the calls the insurance answered: a take during which it did not move was Redis's.
  let fallbacks = 0;
  let degraded = false;
  const degrade = (err: unknown): void => {
    if (degraded) return;
    degraded = true;
    log?.warn({ err }, 'rate-limit store unavailable: each API process limits on its own until it is back');
  };
  // Without a listener ioredis prints every failed reconnect; the outage is logged once instead.
  redis.on('error', degrade);

  const insurance = new InsuranceLimiter({ points: options.points, duration: options.windowS }, () => {
    fallbacks++;
    degrade(new Error('rate-limit store call failed or timed out'));
  });
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}ratelimit`,
    points: options.points,
    duration: options.windowS,
    rejectIfRedisNotReady: true,
    // A client over its limit stays refused until its window ends: answer that from memory.
    inMemoryBlockOnConsumed: options.points + 1,
    insuranceLimiter: insurance,
  });
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, START_WAIT_MS);
    redis.once('ready', done).once('error', done);
  });

  return {
    async take(key, cost) {
      const before = fallbacks;
      let res: RateLimiterRes;
      let taken = true;
      try {
        res = await limiter.consume(key, cost);
      } catch (refused) {
        // The library rejects with the bucket's state when it holds too few points; with an
        // insurance limiter it has no other reason to reject.
        if (!(refused instanceof RateLimiterRes)) throw refused;
        res = refused;
        taken = false;
      }
      if (degraded && fallbacks === before && redis.status === 'ready') {
        degraded = false;
        log?.info('rate-limit store is back: buckets shared again');
      }
      return { taken, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
    },
    async close() {
      // Buckets are disposable: nothing to flush, and no waiting on a server that may be gone.
      redis.disconnect();
    },
  };
}

/** The in-memory buckets that answer when Redis cannot; tells `onUse` each time it does. */
class InsuranceLimiter extends RateLimiterMemory {
  readonly #onUse: () => void;

  constructor(options: { points: number; duration: number }, onUse: () => void) {
    super(options);
    this.#onUse = onUse;
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.#onUse();
    return super.consume(...args);
  }
}
