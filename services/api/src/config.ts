import type { AllowedHost } from '@mtc/adapters';
import { parseConfig } from '@mtc/runtime';
import { z } from 'zod';
import { RateLimitConfigSchema } from './rate-limit.ts';
import { StreamConfigSchema } from './routes/stream/hub.ts';

/**
 * The API's configuration: raw environment → ApiConfigSchema → frozen ApiConfig, parsed once by the
 * process that starts the API. Features never read the environment; they get this object.
 */
export const TEMPLATE_TIERS = ['free', 'pro'] as const;
export type TemplateTier = (typeof TEMPLATE_TIERS)[number];

export interface TxTemplate {
  id: string;
  tier: TemplateTier;
}

const TEMPLATE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** `id:tier,id:tier`, e.g. `classic:free,certificate:pro`; ids are unique URL path segments. */
const TxTemplates = z.string().transform((text, ctx): TxTemplate[] => {
  const templates: TxTemplate[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const [id = '', tier = '', ...rest] = item.split(':').map((s) => s.trim());
    if (!TEMPLATE_ID.test(id) || rest.length > 0 || !(TEMPLATE_TIERS as readonly string[]).includes(tier)) {
      ctx.addIssue({ code: 'custom', message: `bad template "${item}": expected <id>:<free|pro>` });
      return z.NEVER;
    }
    if (templates.some((t) => t.id === id)) {
      ctx.addIssue({ code: 'custom', message: `template "${id}" is listed twice` });
      return z.NEVER;
    }
    templates.push({ id, tier: tier as TemplateTier });
  }
  return templates;
});

const nonNegativeInt = z.coerce.number().int().nonnegative();

const ALLOWED_HOST = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/;

/** `host` or `host:port`, comma-separated, e.g. `127.0.0.1:8545,images.test`. */
const AllowHosts = z.string().transform((text, ctx): AllowedHost[] => {
  const hosts: AllowedHost[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const match = ALLOWED_HOST.exec(item);
    const port = match?.[2] === undefined ? null : Number(match[2]);
    let hostname: string | null = null;
    try {
      // The same normalisation a fetched URL gets, so `0x7f.1` and `127.0.0.1` are one host.
      if (match?.[1] !== undefined) hostname = new URL(`http://${match[1]}/`).hostname;
    } catch {
      hostname = null;
    }
    if (hostname === null || hostname === '' || (port !== null && (port < 1 || port > 65_535))) {
      ctx.addIssue({ code: 'custom', message: `bad host "${item}": expected <host> or <host>:<port>` });
      return z.NEVER;
    }
    hosts.push({ hostname, port });
  }
  return hosts;
});

/**
 * A plain object schema (no outer transform), so a process that hosts the API can `.extend()` its own
 * schema with `ApiConfigSchema.shape`; the parsed config keeps the variable names.
 */
export const ApiConfigSchema = z.object({
  /** Where the transaction viewer lives; template URLs are `${VIEWER_BASE_URL}/${template}/${txid}`. */
  VIEWER_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://localhost:8080/viewer')
    .transform((url) => url.replace(/\/+$/, '')),
  TX_TEMPLATES: TxTemplates.prefault('classic:free,receipt:free,certificate:pro'),
  /** The statistics day's offset from UTC in minutes (0 = UTC days); must match the projector's. */
  STATS_UTC_OFFSET_MINUTES: z.coerce.number().int().min(-720).max(840).default(0),
  /** /readyz fails when the node is more than this many blocks ahead of the index. */
  READY_MAX_LAG: nonNegativeInt.default(5),
  /** How long the node's height is reused before asking again. */
  MAINNET_HEIGHT_CACHE_MS: nonNegativeInt.default(2000),
  /**
   * Pins the API's clock to this unix time (seconds): locks, today-so-far and the statistics days
   * are then computed at that moment. For reproducible end-to-end checks; unset in production.
   */
  CLOCK_NOW_UNIX: z.coerce.number().int().positive().optional(),
  /** /token/{id}/locks examines at most this many holders with a lock ahead (the spec's `max`). */
  /**
   * How long one reading of the indexed head serves every request (0: each request reads it). A
   * fresher head costs a store read per request; the answer cache is keyed by it.
   */
  API_HEAD_CACHE_MS: nonNegativeInt.max(10_000).default(100),
  /** Memory for answers built at the current head or that can no longer change (0: none kept). */
  API_RESPONSE_CACHE_MB: nonNegativeInt.max(4_096).default(64),
  /**
   * Request limits (limits.ts). A request not answered within API_REQUEST_TIMEOUT_MS gets a 503 (the
   * NFT image route adds NFT_IMAGE_TIMEOUT_MS for its outside fetch); a request head larger than
   * API_MAX_HEADER_BYTES (request line included) gets a 431, a URL longer than API_MAX_URL_BYTES a
   * 414; a client that has not sent its whole request head after API_HEADERS_TIMEOUT_MS gets a 408.
   */
  API_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(1500),
  API_MAX_HEADER_BYTES: z.coerce
    .number()
    .int()
    .min(4096)
    .max(2 ** 20)
    .default(16 * 1024),
  API_MAX_URL_BYTES: z.coerce.number().int().min(256).max(65_536).default(4096),
  API_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
  /**
   * On a stop (SIGTERM), /readyz answers 503 at once and the server takes no new connections; the
   * requests in flight (a long export) may finish within API_DRAIN_TIMEOUT_MS, then their
   * connections are closed and the process exits.
   */
  API_DRAIN_TIMEOUT_MS: nonNegativeInt.max(600_000).default(10_000),
  /**
   * The access log (one JSON line per request logged: method, route, url, status, ms, height,
   * requestId): this share of requests, drawn at random, and every 5xx and every request slower than
   * ACCESS_LOG_SLOW_MS (0: no slow ones).
   */
  ACCESS_LOG_SAMPLE: z.coerce.number().min(0).max(1).default(0.01),
  ACCESS_LOG_SLOW_MS: nonNegativeInt.max(600_000).default(1000),
  TOKEN_LOCKS_MAX: z.coerce.number().int().min(1).max(100_000).default(1000),
  /**
   * NFT images (the image fetcher of @mtc/adapters, nft-images.ts). Hosts fetched whatever address they resolve to, such as
   * the devnet's `127.0.0.1:<port>`; every other host must resolve to public addresses only.
   */
  NFT_IMAGE_ALLOW_HOSTS: AllowHosts.prefault(''),
  /** One deadline per fetch: waiting for a slot, DNS, connect, redirects, headers and body. */
  NFT_IMAGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** Larger images are refused (on Content-Length) or cut off mid-stream. */
  NFT_IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 2 ** 20)
    .default(5 * 2 ** 20),
  /** Fetches in flight at once, over all hosts. */
  NFT_IMAGE_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1024).default(32),
  /** Fetches in flight at once to one host name. */
  NFT_IMAGE_MAX_PER_HOST: z.coerce.number().int().min(1).max(256).default(4),
  /** How long a fetch over a limit waits for a slot before it fails (0: fails at once). */
  NFT_IMAGE_SLOT_WAIT_MS: nonNegativeInt.max(10_000).default(250),
  /** How long a failed URL, or an unreachable or timed-out host, is answered from memory (0: never). */
  NFT_IMAGE_FAILURE_TTL_MS: nonNegativeInt.max(3_600_000).default(30_000),
  /**
   * Exports (routes/exports/). An export past EXPORT_MAX_ROWS rows is refused before its first row
   * when its size is known up front, and cut off with an error line when it is not; the store is
   * read EXPORT_PAGE_ROWS rows at a time, and a page not read within EXPORT_PAGE_TIMEOUT_MS ends the
   * stream (a long healthy export is never cut by API_REQUEST_TIMEOUT_MS).
   */
  EXPORT_MAX_ROWS: z.coerce.number().int().min(1).max(100_000_000).default(1_000_000),
  EXPORT_PAGE_ROWS: z.coerce.number().int().min(1).max(10_000).default(1000),
  EXPORT_PAGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  ...RateLimitConfigSchema.shape,
  /** The live stream (/api/stream): heartbeats, caps and buffers (routes/stream/hub.ts). */
  ...StreamConfigSchema.shape,
});

export type ApiConfig = z.output<typeof ApiConfigSchema>;

/**
 * Parses the API's variables out of an environment (other variables are ignored) with the runtime's
 * parser: an empty variable counts as unset, and a ConfigError lists every problem.
 */
export function parseApiConfig(env: Record<string, string | undefined>): Readonly<ApiConfig> {
  return parseConfig(ApiConfigSchema, env);
}
