import { z } from 'zod';

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
  TOKEN_LOCKS_MAX: z.coerce.number().int().min(1).max(100_000).default(1000),
});

export type ApiConfig = z.output<typeof ApiConfigSchema>;

export class ApiConfigError extends Error {
  override name = 'ApiConfigError';
}

/**
 * Parses the API's variables out of an environment (other variables are ignored). An empty variable
 * counts as unset, so its default applies. Throws ApiConfigError listing every problem.
 */
export function parseApiConfig(env: Record<string, string | undefined>): Readonly<ApiConfig> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = ApiConfigSchema.safeParse(cleaned);
  if (!result.success) throw new ApiConfigError(`invalid API configuration:\n${z.prettifyError(result.error)}`);
  return Object.freeze(result.data);
}
