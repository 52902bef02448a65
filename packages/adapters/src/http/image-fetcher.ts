import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ImageFailure, ImageFailureCode, ImageFetcher, ImageOk, ImageResult, ImageType } from '@mtc/ports';
import { Agent, type Dispatcher } from 'undici';

/**
 * Fetches the image an NFT record points at (MRC-400 `image_url`, MRC-401 `item_image_url`, MRC-402
 * `image`). Anyone can write any URL on chain and the API is public, so this is an SSRF surface and a
 * resource risk; every guard below holds on every redirect hop:
 *
 * - only `http:` and `https:`, no credentials in the URL, at most `maxRedirects` redirects;
 * - the target must be a public unicast address (ipaddr.js classifies; IPv4-mapped IPv6 is judged as
 *   its IPv4, other IPv6 must lie in global unicast 2000::/3), unless its host is allow-listed. A
 *   literal IP is checked before any connection; a name is resolved inside the connection's own
 *   `lookup`, which refuses it when any address it resolves to is not public, so the socket connects to
 *   exactly the addresses that were checked (no DNS-rebinding gap);
 * - one deadline per fetch covers the wait for a slot, DNS, connect, every hop's headers and the body:
 *   a slow-drip body is cut when it passes;
 * - the body is capped: refused early on Content-Length, cut mid-stream when the count passes the cap;
 * - the type is sniffed from the bytes (PNG, JPEG, GIF, WebP), never taken from Content-Type. SVG is
 *   refused: it is a document that can carry script and external references, not a picture;
 * - at most `maxPerHost` fetches per host name and `maxInFlight` overall; one over a limit waits at
 *   most `slotWaitMs` for a slot (within its deadline), then fails with 502 `busy`. Concurrent fetches
 *   of one URL share one fetch, and failures are remembered for `failureTtlMs`: per URL, and per host
 *   when the host was unreachable or too slow, so a dead host is not asked again by every request.
 *
 * Results are values (see the port); resolved addresses and low-level errors go to the debug log only.
 * `fetch` rejects only when the `cache` seam's `get` does.
 */

/** The status each failure is answered with. */
const IMAGE_FAILURE_STATUS = {
  no_image: 404,
  unsupported_url: 404,
  forbidden_target: 404,
  unreachable: 502,
  timeout: 502,
  upstream_status: 502,
  too_many_redirects: 502,
  too_large: 502,
  not_an_image: 502,
  busy: 502,
} as const satisfies Record<ImageFailureCode, ImageFailure['status']>;

/** Where successful fetches are kept beyond this process (the API backs it with the read store). */
export interface ImageCache {
  get(url: string): Promise<ImageOk | null>;
  put(url: string, image: ImageOk): Promise<void>;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** A name's addresses; default `dns.lookup` with `all: true`. Tests inject their own. */
export type Resolve = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** A host whose images are fetched whatever it resolves to; `port` null: any port. */
export interface AllowedHost {
  /** As the WHATWG URL parser writes it: lower case, punycode, IPv4 dotted, IPv6 in brackets. */
  hostname: string;
  port: number | null;
}

export interface ImageFetcherOptions {
  /** Hosts fetched whatever they resolve to (NFT_IMAGE_ALLOW_HOSTS). */
  allowHosts?: readonly AllowedHost[];
  timeoutMs?: number;
  maxBytes?: number;
  /** Redirects followed per fetch; default 3. */
  maxRedirects?: number;
  maxInFlight?: number;
  maxPerHost?: number;
  slotWaitMs?: number;
  failureTtlMs?: number;
  /** Failures remembered at most; default 10,000. */
  failureEntries?: number;
  cache?: ImageCache;
  resolve?: Resolve;
  logger?: Logger;
}

const failure = (code: ImageFailureCode, message: string): ImageFailure => ({
  ok: false,
  status: IMAGE_FAILURE_STATUS[code],
  code,
  message,
});

// --- Addresses ---------------------------------------------------------------------------------

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an address (in the standard notation `dns.lookup` and the URL parser write) is one the
 * fetcher may connect to without an allow-list entry: public unicast only. Loopback, private,
 * link-local, unique-local, CGNAT, unspecified, multicast, broadcast, documentation, benchmarking and
 * other reserved ranges are refused, as are the IPv6 forms that embed an IPv4 address (NAT64, 6to4,
 * Teredo, IPv4-compatible): those are refused outright rather than decoded.
 */
export function isPublicAddress(text: string): boolean {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) === 0) return false;
  let address = ipaddr.parse(bare);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  return address.range() === 'unicast' && address.match(GLOBAL_UNICAST_V6);
}

/** Thrown inside a connection's lookup; never leaves the module. */
class ForbiddenTargetError extends Error {
  override name = 'ForbiddenTargetError';
}

const defaultResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `net.connect` lookup that resolves with `resolve` and, when `guarded`, refuses a name unless every
 * address it resolves to is public. The socket connects to what this returns, so what was checked is
 * what is connected to.
 */
function connectLookup(resolve: Resolve, guarded: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const family = isIP(bare);
    const resolved: Promise<readonly ResolvedAddress[]> =
      family === 0 ? resolve(bare) : Promise.resolve([{ address: bare, family: family === 6 ? 6 : 4 }]);
    resolved.then(
      (addresses) => {
        if (guarded && addresses.some((a) => !isPublicAddress(a.address))) {
          callback(new ForbiddenTargetError(`${hostname} resolves to an address that is not public`), []);
          return;
        }
        const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
        const first = usable[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no usable address`);
          error.code = 'ENOTFOUND';
          callback(error, []);
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

// --- Bytes -------------------------------------------------------------------------------------

/** Bytes needed to tell every supported type apart. */
const SNIFF_BYTES = 12;

/** The image type the bytes start with, or null (SVG, HTML, anything else). */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const at = (offset: number, ...expected: number[]): boolean =>
    bytes.length >= offset + expected.length && expected.every((b, i) => bytes[offset + i] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || at(0, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}

// --- Slots -------------------------------------------------------------------------------------

/** Waiters a gate keeps per slot; past that a fetch fails at once instead of queueing. */
const WAITERS_PER_SLOT = 4;

/** A counting semaphore whose waits are bounded in time and in number. */
class Gate {
  active = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }

  /** True once a slot is held; false when none came within `waitMs` or before `signal` aborted. */
  acquire(waitMs: number, signal: AbortSignal): Promise<boolean> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(true);
    }
    if (waitMs <= 0 || signal.aborted || this.waiters.length >= this.limit * WAITERS_PER_SLOT)
      return Promise.resolve(false);
    return new Promise((resolve) => {
      const give = (): void => {
        settle();
        resolve(true);
      };
      const giveUp = (): void => {
        settle();
        const index = this.waiters.indexOf(give);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(false);
      };
      const timer = setTimeout(giveUp, waitMs);
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', giveUp);
      };
      signal.addEventListener('abort', giveUp, { once: true });
      this.waiters.push(give);
    });
  }

  /** Hands the slot to the first waiter, if any. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }
}

// --- The fetcher -------------------------------------------------------------------------------

/** A failure raised inside one fetch and answered as it is. */
class Failed extends Error {
  readonly result: ImageFailure;

  constructor(result: ImageFailure) {
    super(result.message);
    this.result = result;
  }
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  accept: 'image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1',
  'user-agent': 'mtc-explorer-image-fetcher',
};

/** Failures that say the host, not just this URL, is unwell. */
const HOST_FAILURES: ReadonlySet<ImageFailureCode> = new Set(['unreachable', 'timeout']);

export function createImageFetcher(options: ImageFetcherOptions = {}): ImageFetcher {
  const allowHosts = options.allowHosts ?? [];
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 5 * 2 ** 20;
  const maxRedirects = options.maxRedirects ?? 3;
  const slotWaitMs = options.slotWaitMs ?? 250;
  const maxPerHost = options.maxPerHost ?? 4;
  const failureTtlMs = options.failureTtlMs ?? 30_000;
  const resolve = options.resolve ?? defaultResolve;
  const logger = options.logger?.child({ component: 'nft-image' });

  const agentOptions = (guarded: boolean): Agent.Options => ({
    connect: { lookup: connectLookup(resolve, guarded), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    allowH2: false,
  });
  /** Checks what every name resolves to. */
  const guardedAgent = new Agent(agentOptions(true));
  /** For allow-listed hosts only. */
  const openAgent = new Agent(agentOptions(false));

  const overall = new Gate(options.maxInFlight ?? 32);
  const perHost = new Map<string, Gate>();
  const inFlight = new Map<string, Promise<ImageResult>>();
  /** Keys `url <href>` and `host <hostname>`. */
  const failures =
    failureTtlMs > 0
      ? new LRUCache<string, ImageFailure>({ max: options.failureEntries ?? 10_000, ttl: failureTtlMs })
      : undefined;

  const isAllowListed = (url: URL): boolean => {
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return allowHosts.some((h) => h.hostname === url.hostname && (h.port === null || h.port === port));
  };

  /** The dispatcher for a hop to `url`, or why it may not be fetched. */
  const dispatcherFor = (url: URL): Dispatcher => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Failed(failure('unsupported_url', `${url.protocol} URLs are not fetched`));
    if (url.username !== '' || url.password !== '')
      throw new Failed(failure('unsupported_url', 'URLs with credentials are not fetched'));
    if (isAllowListed(url)) return openAgent;
    // A literal address never reaches a lookup: check it here, before any connection.
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 && !isPublicAddress(url.hostname))
      throw new Failed(forbidden(url));
    return guardedAgent;
  };

  const forbidden = (url: URL): ImageFailure =>
    failure('forbidden_target', `${url.hostname} is not a host images are fetched from`);

  const hostGate = (hostname: string): Gate => {
    let gate = perHost.get(hostname);
    if (!gate) {
      gate = new Gate(maxPerHost);
      perHost.set(hostname, gate);
    }
    return gate;
  };
  const releaseHost = (hostname: string, gate: Gate): void => {
    gate.release();
    if (gate.idle) perHost.delete(hostname);
  };

  /**
   * One fetch from its first hop to its last byte, under one deadline. `hostname` is the host of the
   * last hop tried; `remembered` says the answer came from the memory of that host's failure.
   */
  const fetchFresh = async (start: URL): Promise<{ result: ImageResult; hostname: string; remembered: boolean }> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let holdsOverall = false;
    let url = start;
    try {
      for (let hop = 0; ; hop++) {
        const dispatcher = dispatcherFor(url);
        const hostname = url.hostname;
        const hostFailure = failures?.get(`host ${hostname}`);
        if (hostFailure) return { result: hostFailure, hostname, remembered: true };
        // The host's slot first, so fetches queued behind a slow host hold no overall slot.
        const gate = hostGate(hostname);
        if (!(await gate.acquire(slotWaitMs, abort.signal))) {
          if (gate.idle) perHost.delete(hostname);
          throw new Failed(slotRefused(abort.signal, hostname, 'host'));
        }
        try {
          if (!holdsOverall) {
            holdsOverall = await overall.acquire(slotWaitMs, abort.signal);
            if (!holdsOverall) throw new Failed(slotRefused(abort.signal, hostname, 'overall'));
          }
          const next = await exchange(dispatcher, url, abort.signal);
          if (!(next instanceof URL)) return { result: next, hostname, remembered: false };
          if (hop >= maxRedirects)
            throw new Failed(failure('too_many_redirects', `more than ${maxRedirects} redirects`));
          url = next;
        } finally {
          releaseHost(hostname, gate);
        }
      }
    } catch (error) {
      const result = error instanceof Failed ? error.result : classify(error, url, abort.signal);
      return { result, hostname: url.hostname, remembered: false };
    } finally {
      clearTimeout(timer);
      if (holdsOverall) overall.release();
    }
  };

  const slotRefused = (signal: AbortSignal, hostname: string, limit: 'host' | 'overall'): ImageFailure =>
    signal.aborted
      ? failure('timeout', `the image host ${hostname} did not answer within ${timeoutMs} ms`)
      : failure(
          'busy',
          limit === 'host'
            ? `too many images are being fetched from ${hostname}; try again shortly`
            : 'too many images are being fetched; try again shortly',
        );

  /** One request: the image, or the URL a redirect points to. */
  const exchange = async (dispatcher: Dispatcher, url: URL, signal: AbortSignal): Promise<ImageOk | URL> => {
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: HEADERS,
      signal,
    });
    const { statusCode, headers, body } = response;
    if (REDIRECT.has(statusCode)) {
      discard(body);
      const location = headers.location;
      if (typeof location !== 'string' || location === '')
        throw new Failed(failure('upstream_status', `the image host answered ${statusCode} without a Location`));
      try {
        return new URL(location, url);
      } catch {
        throw new Failed(failure('upstream_status', 'the image host redirected to an invalid URL'));
      }
    }
    if (statusCode !== 200) {
      discard(body);
      throw new Failed(failure('upstream_status', `the image host answered ${statusCode}`));
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(body);
      throw new Failed(tooLarge());
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let sniffed: ImageType | null = null;
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      received += bytes.length;
      if (received > maxBytes) {
        discard(body);
        throw new Failed(tooLarge());
      }
      chunks.push(bytes);
      // Judged as soon as the type can be told, so a large page that is no image is not read whole.
      if (sniffed === null && received >= SNIFF_BYTES) {
        sniffed = sniffImageType(Buffer.concat(chunks));
        if (sniffed === null) {
          discard(body);
          throw new Failed(notAnImage());
        }
      }
    }
    const bytes = Buffer.concat(chunks);
    sniffed ??= sniffImageType(bytes);
    if (sniffed === null) throw new Failed(notAnImage());
    return { ok: true, bytes, contentType: sniffed };
  };

  const tooLarge = (): ImageFailure => failure('too_large', `the image is larger than ${maxBytes} bytes`);
  const notAnImage = (): ImageFailure =>
    failure('not_an_image', 'the URL does not hold a PNG, JPEG, GIF or WebP image (SVG is not served)');

  /** What a thrown transport error means for the client; the details go to the debug log. */
  const classify = (error: unknown, url: URL, signal: AbortSignal): ImageFailure => {
    let result: ImageFailure;
    if (causes(error).some((e) => e instanceof ForbiddenTargetError)) result = forbidden(url);
    else if (signal.aborted)
      result = failure('timeout', `the image host ${url.hostname} did not answer within ${timeoutMs} ms`);
    else result = failure('unreachable', `the image host ${url.hostname} could not be reached`);
    logger?.debug({ url: url.href, code: result.code, err: error }, 'nft image fetch failed');
    return result;
  };

  /** Fetches (or finds) the image of one normalised URL; failures are remembered. */
  const load = async (url: URL): Promise<ImageResult> => {
    const key = url.href;
    const failedBefore = failures?.get(`url ${key}`);
    if (failedBefore) return failedBefore;
    const cached = await options.cache?.get(key);
    if (cached) return cached;
    const { result, hostname, remembered } = await fetchFresh(url);
    if (result.ok) {
      if (options.cache)
        options.cache.put(key, result).catch((error: unknown) => {
          // The image is in hand; a lost cache write costs one more fetch later.
          logger?.warn({ url: key, err: error }, 'nft image cache write failed');
        });
    } else if (failures && result.code !== 'busy' && !remembered) {
      // Not renewed from the host's memory: a host is asked again once its failure is TTL old.
      failures.set(`url ${key}`, result);
      if (HOST_FAILURES.has(result.code)) failures.set(`host ${hostname}`, result);
    }
    return result;
  };

  return {
    fetch(text) {
      const trimmed = text?.trim() ?? '';
      if (trimmed === '') return Promise.resolve(failure('no_image', 'no image URL is set'));
      let url: URL;
      try {
        url = new URL(trimmed);
      } catch {
        return Promise.resolve(failure('unsupported_url', 'the image URL is not a valid absolute URL'));
      }
      // Refused before any cache read or slot: a URL this fetcher would never connect to.
      try {
        dispatcherFor(url);
      } catch (error) {
        if (error instanceof Failed) return Promise.resolve(error.result);
        throw error;
      }
      const key = url.href;
      let flight = inFlight.get(key);
      if (!flight) {
        flight = load(url).finally(() => inFlight.delete(key));
        inFlight.set(key, flight);
      }
      return flight;
    },
    async close() {
      await Promise.all([guardedAgent.close(), openAgent.close()]);
    },
  };
}

/**
 * Drops a body unread. The connection goes with it (it cannot be reused mid-answer); undici reports
 * the destruction as an error event, which is expected here.
 */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

/** The error, its causes and an AggregateError's members (net's happy eyeballs raises those). */
function causes(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.length < 16) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.includes(next)) continue;
    seen.push(next);
    if (next instanceof AggregateError) queue.push(...(next.errors as unknown[]));
    if (next instanceof Error && next.cause !== undefined) queue.push(next.cause);
  }
  return seen;
}
