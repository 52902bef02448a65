import ipaddr from 'ipaddr.js';
import type Koa from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { ApiError } from './errors.ts';

/**
 * Rate limiting. Every client has a bucket of RATE_LIMIT_POINTS points that refills whole
 * RATE_LIMIT_WINDOW_S seconds after its first request of the window (rate-limiter-flexible's fixed
 * window); each request takes its route's cost, and one that finds too few points left is answered
 * 429. A refused request's cost is spent too, so a client that keeps hammering stays refused until
 * the window ends.
 *
 * The buckets live in this process (embedded mode: `createMemoryRateLimitBuckets`) or in Redis, so
 * that every API replica draws from the same bucket (`createRedisRateLimitBuckets` in @mtc/adapters).
 *
 * The client is the socket's peer address. Behind reverse proxies set API_PROXY_HOPS to their
 * number (Koa's `app.proxy` and `maxIpsCount`): the client is then the address the outermost proxy
 * appended to X-Forwarded-For, and entries a client wrote there itself are ignored. With
 * API_PROXY_HOPS=0 the header is never read, since anyone can write it.
 */

/** Never limited and never charged: probes, and the document clients need to call us at all. */
export const FREE_PATHS: readonly string[] = ['/healthz', '/readyz', '/api/openapi.json'];

/** A route pattern as the OpenAPI document writes it, e.g. `/api/token/{id}/locks`. */
const PATH_PATTERN = /^(?:\/(?:[A-Za-z0-9._~-]+|\{[A-Za-z_][A-Za-z0-9_]*\}))+$/;

export interface RouteCost {
  /** A route pattern, `{name}` standing for one path segment. */
  path: string;
  /** Points a request takes; 0: free and never limited. */
  cost: number;
}

/**
 * The routes that cost more than one point, heavier than a keyed read: a search over several
 * models, a scan of locked holders, an address's history and the two image routes (a fetch from
 * outside or a resize), and the exports. Every other route costs 1.
 */
export const DEFAULT_RATE_LIMIT_COSTS = [
  '/api/search=5,/api/token/{id}/locks=10,/api/address/{id}/txs=3,/api/v1/nft/{id}/image=5,/api/v1/token/{id}/image=5',
  // An export may stream a million rows: a tenth of the default bucket each.
  '/api/export/txs=60,/api/export/address/{address}/activity=60,/api/export/token/{id}/transfers=60',
  '/api/export/token/{id}/holders=60,/api/export/nft/{id}/holders=60,/api/export/stats/daily-txs=60',
].join(',');

/** `path=cost,path=cost`, e.g. `/api/search=5,/api/token/{id}/locks=10`. */
const RouteCosts = z.string().transform((text, ctx): RouteCost[] => {
  const costs: RouteCost[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const [path = '', cost = '', ...rest] = item.split('=').map((s) => s.trim());
    if (!PATH_PATTERN.test(path) || !/^\d{1,7}$/.test(cost) || rest.length > 0) {
      ctx.addIssue({ code: 'custom', message: `bad cost "${item}": expected <route pattern>=<points>` });
      return z.NEVER;
    }
    if (FREE_PATHS.includes(path)) {
      ctx.addIssue({ code: 'custom', message: `${path} is never limited and has no cost` });
      return z.NEVER;
    }
    if (costs.some((c) => c.path === path)) {
      ctx.addIssue({ code: 'custom', message: `${path} is listed twice` });
      return z.NEVER;
    }
    costs.push({ path, cost: Number(cost) });
  }
  return costs;
});

/** The rate limiter's variables; a plain object schema, so the API's config extends its shape. */
export const RateLimitConfigSchema = z.object({
  /** Off by default: the embedded demo serves one person. */
  RATE_LIMIT_ENABLED: z.stringbool().default(false),
  /** A bucket's size: the points a client may spend in one window. */
  RATE_LIMIT_POINTS: z.coerce.number().int().min(1).max(1_000_000).default(600),
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Routes that cost other than 1 point (the list replaces the defaults whole). */
  RATE_LIMIT_COSTS: RouteCosts.prefault(DEFAULT_RATE_LIMIT_COSTS),
  /**
   * How long a call to the shared buckets (Redis) may take; past it, or while Redis is down, each
   * replica limits on its own from memory rather than fail or hold the request.
   */
  RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().min(10).max(5_000).default(100),
  /** Reverse proxies in front of the API that append to X-Forwarded-For (0: none, header ignored). */
  API_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
});
export type RateLimitConfig = z.output<typeof RateLimitConfigSchema>;

/** A client's bucket after a request took, or failed to take, its cost. */
export interface BucketState {
  /** False: the bucket held fewer points than the cost, and the request is refused. */
  taken: boolean;
  /** Points left in the window. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * Where the buckets live. `take` never rejects: an implementation whose store fails or is slow
 * answers from memory instead (the API must not go down with its limiter).
 */
export interface RateLimitBuckets {
  take(key: string, cost: number): Promise<BucketState>;
  close(): Promise<void>;
}

/** Buckets in this process's memory: the embedded mode, or one API process on its own. */
export function createMemoryRateLimitBuckets(
  config: Pick<RateLimitConfig, 'RATE_LIMIT_POINTS' | 'RATE_LIMIT_WINDOW_S'>,
): RateLimitBuckets {
  const limiter = new RateLimiterMemory({ points: config.RATE_LIMIT_POINTS, duration: config.RATE_LIMIT_WINDOW_S });
  return {
    async take(key, cost) {
      try {
        const res = await limiter.consume(key, cost);
        return { taken: true, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
      } catch (refused) {
        // The library rejects with the bucket's state when it holds too few points.
        if (!(refused instanceof RateLimiterRes)) throw refused;
        return { taken: false, remaining: refused.remainingPoints, resetMs: refused.msBeforeNext };
      }
    },
    async close() {},
  };
}

/**
 * The bucket a request draws from: its client's IPv4 address, or the /64 of its IPv6 address (a
 * provider hands a host a whole /64, so one address each would let it mint millions of buckets).
 * IPv4-mapped IPv6 counts as the IPv4 address.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip === '' ? 'unknown' : ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${address.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

export interface RateLimitOptions {
  config: RateLimitConfig;
  buckets: RateLimitBuckets;
  /** Every route pattern the app serves: a cost for anything else is a configuration mistake. */
  routes: readonly string[];
}

/**
 * The middleware. Put it after the error funnel (which turns its ApiError into the 429 JSON) and
 * before anything that reads the store, so a refused request costs us nothing. Every limited answer,
 * the 429 too, carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds); the
 * 429 adds `Retry-After` (seconds). Free paths and CORS preflights get none of them.
 *
 * Throws at creation when RATE_LIMIT_COSTS names no route (a typo would silently cost 1).
 */
export function rateLimit(options: RateLimitOptions): Koa.Middleware {
  const { config, buckets } = options;
  const points = config.RATE_LIMIT_POINTS;
  const costs = config.RATE_LIMIT_COSTS.map(({ path, cost }) => {
    if (!options.routes.includes(path)) throw new Error(`RATE_LIMIT_COSTS: ${path} is no route of this API`);
    // A request never costs more than a whole bucket, or its route could never be served.
    return { match: routeMatcher(path), cost: Math.min(cost, points) };
  });
  const free = FREE_PATHS.map(routeMatcher);
  const costOf = (path: string): number => {
    if (free.some((match) => match(path))) return 0;
    return costs.find(({ match }) => match(path))?.cost ?? 1;
  };

  return async (ctx, next) => {
    const cost = ctx.method === 'OPTIONS' ? 0 : costOf(ctx.path);
    if (cost === 0) {
      await next();
      return;
    }
    const bucket = await buckets.take(clientKey(ctx.ip), cost);
    const resetS = Math.max(0, Math.ceil(bucket.resetMs / 1000));
    const headers = {
      'RateLimit-Limit': String(points),
      'RateLimit-Remaining': String(bucket.remaining),
      'RateLimit-Reset': String(resetS),
    };
    if (!bucket.taken) {
      const retryS = Math.max(1, resetS);
      throw new ApiError(
        'rate_limited',
        `rate limit exceeded: ${points} points per ${config.RATE_LIMIT_WINDOW_S} s, this request costs ${cost}; retry in ${retryS} s`,
        { headers: { ...headers, 'Retry-After': String(retryS) } },
      );
    }
    ctx.set(headers);
    await next();
  };
}

/**
 * Whether a path is served by the route `pattern`, as the router decides it: case-insensitive, a
 * trailing slash allowed, `{name}` being one non-empty segment.
 */
function routeMatcher(pattern: string): (path: string) => boolean {
  const source = pattern
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const regex = new RegExp(`^${source}/?$`, 'i');
  return (path) => regex.test(path);
}
