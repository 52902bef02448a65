import type { Middleware } from 'koa';
import { z } from 'zod';

/**
 * The one error shape of the API, `{"error":{"code","message"}}`, with a real HTTP status. Handlers
 * throw ApiError for what the client can act on; anything else becomes a 500 whose message says
 * nothing about the server's insides.
 */
export const ERROR_CODES = {
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  internal: 500,
  /** A host the API fetches from on the client's behalf (an NFT's image host) failed. */
  bad_gateway: 502,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode];

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe('For people; do not parse it.'),
    }),
  })
  .describe('Every error response has this body.');
export type ErrorBody = z.infer<typeof ErrorBody>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: ErrorStatus;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.status = ERROR_CODES[code];
  }
}

export const badRequest = (message: string): ApiError => new ApiError('bad_request', message);
export const notFound = (message: string): ApiError => new ApiError('not_found', message);
export const badGateway = (message: string): ApiError => new ApiError('bad_gateway', message);
export const unavailable = (message: string, cause?: unknown): ApiError =>
  new ApiError('unavailable', message, cause === undefined ? undefined : { cause });

/** A 400 that names every offending parameter, e.g. `query.limit: Too big: expected number to be <=50`. */
export function invalidInput(where: 'path' | 'query', error: z.ZodError): ApiError {
  const problems = error.issues.map((issue) => {
    const name = [where, ...issue.path.map(String)].join('.');
    return `${name}: ${issue.message}`;
  });
  return badRequest(problems.join('; '));
}

const INTERNAL_MESSAGE = 'Internal server error';

/** Maps a thrown value to the status and body the client sees. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof ApiError)
    return { status: error.status, body: { error: { code: error.code, message: error.message } } };
  // http-errors thrown by Koa or the router (405 from allowedMethods, 400 from a bad Host …).
  const status = httpStatusOf(error);
  if (status !== null && status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found' : status === 405 ? 'method_not_allowed' : 'bad_request';
    const message = error instanceof Error && (error as { expose?: unknown }).expose === true ? error.message : code;
    return { status, body: { error: { code, message } } };
  }
  return { status: 500, body: { error: { code: 'internal', message: INTERNAL_MESSAGE } } };
}

function httpStatusOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && Number.isInteger(status) ? status : null;
}

/**
 * The single error funnel. Answers every failure in the error shape with no cache, and hands server
 * faults (5xx) to `app.on('error')`, the one place that logs them.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, body } = toErrorResponse(error);
      ctx.status = status;
      ctx.body = body;
      ctx.set('Cache-Control', 'no-store');
      // Every route is read-only, so a path that exists allows exactly these.
      if (status === 405) ctx.set('Allow', 'GET, HEAD');
      if (status >= 500) ctx.app.emit('error', error, ctx);
    }
  };
}
