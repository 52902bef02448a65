import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type Koa from 'koa';
import { LRUCache } from 'lru-cache';

/** Cache-Control per kind of answer. */
export const CACHE = {
  /** Facts that never change once indexed: a block, a transaction (Fabric has no reorgs). */
  immutable: 'public, max-age=31536000, immutable',
  /** Anything that moves with the indexed head. */
  head: 'public, max-age=2',
  /** Derived from configuration only. */
  config: 'public, max-age=300',
  none: 'no-store',
} as const;
export type CachePolicy = keyof typeof CACHE;

/**
 * HTTP caching by chain state. A JSON answer is serialised, hashed (its strong ETag) and, when a
 * client asks for it, compressed (brotli or gzip, in libuv's thread pool) once; then it is served
 * from memory for as long as it can be right:
 * - `immutable` answers (a block, a transaction: Fabric has no reorgs) until evicted;
 * - `head` answers while the indexed head is the one they were built at; those whose build used
 *   the clock, the counters or the node (`live`: locks, today-so-far figures, the node's height)
 *   for at most HEAD_TTL_MS too;
 * - `config` answers for CONFIG_TTL_MS.
 * Concurrent misses for one URL at one head run the handler once, and while it runs the requests
 * that join it are answered from the answer before it (built at most STALE_WHILE_BUILDING_MS ago, at
 * this head or an earlier one: true at the height it names), so a new head or an expired answer
 * costs the one request that rebuilds it, not every request that arrives meanwhile. The request that
 * starts a build waits for it: a client that asks again after the head moved sees the new head.
 * `If-None-Match` with the current ETag gets 304. The cache is bounded in bytes (LRU); 0 turns
 * storing off, not ETags or compression. With `peers`, every answer it keeps is handed to the other
 * caches of the process, and it keeps theirs (unless it holds a newer answer for the key).
 */
export const HEAD_TTL_MS = 1_000;
/** How old an answer may be and still be served to the requests that arrive while it is rebuilt. */
export const STALE_WHILE_BUILDING_MS = 5_000;
const CONFIG_TTL_MS = 60_000;
/** Bodies below this are sent as they are: compressing them saves less than a packet. */
export const MIN_COMPRESS_BYTES = 1_024;

export type Encoding = 'br' | 'gzip';
const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];

const compressors: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 5: most of brotli's gain on JSON at a small fraction of the default (11)'s CPU.
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

export interface CachedAnswer {
  body: Buffer;
  /** Strong ETag of the identity body, quoted. */
  etag: string;
  policy: CachePolicy;
  /** The indexed height it was built at: what X-Indexed-Height names when it is served. */
  height: number;
  builtAt: number;
  expiresAt: number;
  encoded: Partial<Record<Encoding, Promise<Buffer>>>;
  /** The compressed bodies made so far (what `encoded` resolved to). */
  ready: Partial<Record<Encoding, Buffer>>;
  /** The route pattern that answered it (for metrics of answers sent before routing). */
  route?: string;
}

/** An answer as it travels between caches: without its compressed bodies (each cache makes its own). */
export type SharedAnswer = Omit<CachedAnswer, 'encoded' | 'ready'>;

/**
 * The other answer caches of one process (the all-in-one's API threads): what one builds, the others
 * keep, so an answer is built once per process rather than once per thread.
 */
export interface AnswerPeers {
  publish(key: string, answer: SharedAnswer): void;
  /** Calls `take` with every answer another peer publishes. */
  subscribe(take: (key: string, answer: SharedAnswer) => void): void;
  close(): void;
}

/** What a build hands the cache: the body, its policy, the route that answered, and whether it is `live`. */
export interface Built {
  body: unknown;
  policy: CachePolicy;
  route?: string;
  /** The build used the clock, the counters or the node: a `head` answer then lives HEAD_TTL_MS at most. */
  live?: boolean;
}

export interface ResponseCache {
  /**
   * The answer for `key` at `height`: from memory when still valid, else from `build` (at most one
   * build per key and height at a time; a request that joins a build in flight gets the previous
   * answer when there is one of `height` or below, built within STALE_WHILE_BUILDING_MS). `build`'s
   * errors propagate and leave nothing behind. The answer's `height` is the one it is true at.
   */
  answer(key: string, height: number, build: () => Promise<Built>): Promise<CachedAnswer>;
  /** The answer held for `key` at `height`, if one is still valid; builds nothing. */
  held(key: string, height: number): CachedAnswer | undefined;
  /** Bytes held (for tests and metrics). */
  size(): number;
}

export function createResponseCache(options: {
  maxBytes: number;
  now?: () => number;
  peers?: AnswerPeers;
}): ResponseCache {
  const now = options.now ?? Date.now;
  const store =
    options.maxBytes > 0
      ? new LRUCache<string, CachedAnswer>({
          maxSize: options.maxBytes,
          // Compressed variants are smaller than the body; counting the body twice bounds both.
          sizeCalculation: (a) => 2 * a.body.length + 256,
        })
      : null;
  const building = new Map<string, Promise<CachedAnswer>>();
  if (store)
    options.peers?.subscribe((key, answer) => {
      const held = store.peek(key);
      if (held && (held.height > answer.height || (held.height === answer.height && held.builtAt >= answer.builtAt)))
        return;
      store.set(key, { ...answer, encoded: {}, ready: {} });
    });

  const valid = (a: CachedAnswer, height: number): boolean =>
    (a.policy === 'immutable' || a.height === height) && now() < a.expiresAt;
  // Never an answer of a height above the head's: the index may have been rebuilt below it.
  const servableWhileBuilding = (a: CachedAnswer, height: number): boolean =>
    a.height <= height && now() - a.builtAt < STALE_WHILE_BUILDING_MS;

  return {
    async answer(key, height, build) {
      const held = store?.get(key);
      if (held && valid(held, height)) return held;
      const flight = `${height} ${key}`;
      const pending = building.get(flight);
      if (pending) return held && servableWhileBuilding(held, height) ? held : pending;
      const made = build().then(({ body, policy, route, live }) => {
        const answer = toAnswer(body, policy, height, now(), live ?? true);
        if (route !== undefined) answer.route = route;
        if (policy !== 'none' && store) {
          store.set(key, answer);
          const { encoded: _encoded, ready: _ready, ...shared } = answer;
          options.peers?.publish(key, shared);
        }
        return answer;
      });
      building.set(flight, made);
      try {
        return await made;
      } finally {
        building.delete(flight);
      }
    },
    held(key, height) {
      const held = store?.get(key);
      return held && valid(held, height) ? held : undefined;
    },
    size: () => store?.calculatedSize ?? 0,
  };
}

/**
 * An answer ready to send (and to keep, unless its policy is `none`). A `head` answer that is not
 * `live` has no time limit: it is valid while the head is the one it was built at.
 */
export function toAnswer(body: unknown, policy: CachePolicy, height: number, now: number, live = true): CachedAnswer {
  const bytes = Buffer.from(JSON.stringify(body));
  const ttl =
    policy === 'immutable' || (policy === 'head' && !live)
      ? Infinity
      : policy === 'config'
        ? CONFIG_TTL_MS
        : HEAD_TTL_MS;
  return {
    body: bytes,
    etag: `"${hash('sha1', bytes, 'base64url')}"`,
    policy,
    height,
    builtAt: now,
    expiresAt: now + ttl,
    encoded: {},
    ready: {},
  };
}

/**
 * The encoding to send `answer` in: brotli when the client takes it, else gzip, else none. A request
 * without Accept-Encoding gets the identity body (what clients that send nothing expect).
 */
function chooseEncoding(ctx: Koa.Context, answer: CachedAnswer): Encoding | null {
  const accepted = ctx.get('Accept-Encoding');
  const known = knownEncoding(answer, accepted);
  if (known !== undefined) return known;
  // Clients send few distinct Accept-Encoding values: each is negotiated once.
  const chosen = ENCODINGS.find((e) => ctx.acceptsEncodings(e) === e) ?? null;
  if (chosenEncodings.size >= CHOSEN_ENCODINGS_MAX) chosenEncodings.clear();
  chosenEncodings.set(accepted, chosen);
  return chosen;
}

const CHOSEN_ENCODINGS_MAX = 256;
const chosenEncodings = new Map<string, Encoding | null>();

/**
 * The encoding `sendAnswer` would choose for a request with this Accept-Encoding (absent: ''), if
 * that value was negotiated before; undefined when it was not (the caller leaves it to `sendAnswer`).
 */
export function knownEncoding(answer: CachedAnswer, acceptEncoding: string): Encoding | null | undefined {
  if (answer.body.length < MIN_COMPRESS_BYTES || !acceptEncoding) return null;
  return chosenEncodings.get(acceptEncoding);
}

/** The ETag `sendAnswer` sends for `answer` in `encoding`. */
export function etagOf(answer: CachedAnswer, encoding: Encoding | null): string {
  return encoding ? `${answer.etag.slice(0, -1)}-${encoding}"` : answer.etag;
}

/** Sends a cached answer: Cache-Control, Vary, ETag per representation, 304 when the client holds it. */
export async function sendAnswer(ctx: Koa.Context, answer: CachedAnswer): Promise<void> {
  ctx.set('Cache-Control', CACHE[answer.policy]);
  ctx.vary('Accept-Encoding');
  const encoding = chooseEncoding(ctx, answer);
  // Each representation has its own strong validator (RFC 9110 §8.8.3).
  ctx.set('ETag', etagOf(answer, encoding));
  ctx.status = 200;
  ctx.type = 'application/json; charset=utf-8';
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (!encoding) {
    ctx.body = answer.body;
    return;
  }
  let encoded = answer.encoded[encoding];
  if (!encoded) {
    encoded = compressors[encoding](answer.body);
    answer.encoded[encoding] = encoded;
    encoded.then(
      (bytes) => (answer.ready[encoding] = bytes),
      () => {},
    );
    // A failed compression is not kept: the next request tries again.
    encoded.catch(() => delete answer.encoded[encoding]);
  }
  ctx.set('Content-Encoding', encoding);
  ctx.body = await encoded;
}
