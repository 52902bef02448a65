import cors from '@koa/cors';
import type { Middleware } from 'koa';
import { ALLOWED_METHODS } from './limits.ts';

/**
 * CORS for a public read API: any origin may read every answer (errors too), without credentials.
 * A preflight is answered 204 with the allowed methods and a max-age; the headers a client script
 * needs (validators, the request id, the indexed height, retry and rate-limit hints) are exposed.
 */
export const EXPOSED_HEADERS = [
  'ETag',
  'X-Request-Id',
  'X-Indexed-Height',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
] as const;

/** How long a browser may reuse a preflight's answer: nothing in it changes while the API runs. */
export const PREFLIGHT_MAX_AGE_S = 86_400;

export function corsMiddleware(): Middleware {
  return cors({
    origin: '*',
    allowMethods: [...ALLOWED_METHODS],
    exposeHeaders: [...EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
}
