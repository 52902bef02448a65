import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.ts';

/**
 * Bytes answers (images) per key and indexed height, per app. JSON answers go through the response
 * cache (http-cache.ts); image routes keep what they served here, so a busy image costs no store read,
 * fetch or hash while the indexed head stays. Off when the response cache is (API_RESPONSE_CACHE_MB=0).
 */
export interface Served<M extends string = string> {
  height: number;
  bytes: Uint8Array;
  mediaType: M;
  etag: string;
}

const MAX_BYTES = 16 * 2 ** 20;
const byRoute = new Map<string, WeakMap<AppContext, LRUCache<string, Served>>>();

/** The served-answer cache of one route (`name`) in `app`, or undefined when caching is off. */
export function servedCache<M extends string>(app: AppContext, name: string): LRUCache<string, Served<M>> | undefined {
  if (app.config.API_RESPONSE_CACHE_MB <= 0) return undefined;
  let perApp = byRoute.get(name);
  if (!perApp) byRoute.set(name, (perApp = new WeakMap()));
  let cache = perApp.get(app);
  if (!cache) {
    cache = new LRUCache<string, Served>({ maxSize: MAX_BYTES, sizeCalculation: (s) => s.bytes.length + 64 });
    perApp.set(app, cache);
  }
  return cache as unknown as LRUCache<string, Served<M>>;
}
