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
  /** The client did not send its request head in time (answered by the HTTP server, before routing). */
  request_timeout: 408,
  uri_too_long: 414,
  rate_limited: 429,
  /** Answered by the HTTP server, before routing. */
  headers_too_large: 431,
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

/** How long a client is told to wait (Retry-After, seconds) after a 503 that names no other time. */
export const RETRY_AFTER_SECONDS = 2;

export interface ApiErrorOptions extends ErrorOptions {
  /** Sent with the error answer, e.g. `Allow` on a 405, `Retry-After` and `RateLimit-*` on a 429. */
  headers?: Readonly<Record<string, string>>;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: ErrorStatus;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options?: ApiErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code];
    this.headers = options?.headers ?? {};
  }
}

export const badRequest = (message: string): ApiError => new ApiError('bad_request', message);
export const notFound = (message: string): ApiError => new ApiError('not_found', message);
export const badGateway = (message: string): ApiError => new ApiError('bad_gateway', message);
export const unavailable = (message: string, cause?: unknown): ApiError =>
  new ApiError('unavailable', message, cause === undefined ? undefined : { cause });

/**
 * The `params` of a zod issue that says a well-formed value names nothing that can exist (an address
 * whose checksum fails): the request is right by the document's schema, which cannot state such a
 * rule, so the answer is a 404 like any unknown entity's, not a 400.
 */
export const NO_SUCH_ENTITY = { noSuchEntity: true } as const;

const namesNothing = (issue: z.core.$ZodIssue): boolean =>
  issue.code === 'custom' && (issue.params as { noSuchEntity?: unknown } | undefined)?.noSuchEntity === true;

/** Where a route's input failed to decode: the path's or the query's zod error. */
export interface InputFailure {
  where: 'path' | 'query';
  error: z.ZodError;
}

/**
 * The answer to input that did not decode, naming each offending parameter, e.g.
 * `query.limit: Too big: expected number to be <=50`: a 400 for any malformed or out-of-range value,
 * else (every issue is a NO_SUCH_ENTITY one) a 404.
 */
export function invalidInput(failures: readonly InputFailure[]): ApiError {
  const issues = failures.flatMap(({ where, error }) => error.issues.map((issue) => ({ where, issue })));
  const malformed = issues.filter(({ issue }) => !namesNothing(issue));
  const problems = (malformed.length > 0 ? malformed : issues).map(({ where, issue }) => {
    const name = [where, ...issue.path.map(String)].join('.');
    return `${name}: ${issue.message}`;
  });
  return malformed.length > 0 ? badRequest(problems.join('; ')) : notFound(problems.join('; '));
}

const INTERNAL_MESSAGE = 'Internal server error';

const CODE_OF_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_CODES).map(([code, status]) => [status, code as ErrorCode]),
);

/**
 * Maps a thrown value to the status and body the client sees. Besides ApiError, an error that carries
 * its own HTTP status keeps it when it is a 4xx (http-errors from Koa) or a 503: a store call over its
 * time budget rejects with `status = 503` (`StoreTimeoutError`), which is the store being slow, not a
 * fault of ours. Any other error is a 500 that says nothing of it.
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof ApiError)
    return { status: error.status, body: { error: { code: error.code, message: error.message } } };
  const status = httpStatusOf(error);
  if (status !== null && status >= 400 && status < 500) {
    const code = CODE_OF_STATUS.get(status) ?? 'bad_request';
    const message = error instanceof Error && (error as { expose?: unknown }).expose === true ? error.message : code;
    return { status, body: { error: { code, message } } };
  }
  if (status === 503) {
    const message =
      (error as { name?: unknown }).name === 'StoreTimeoutError'
        ? 'the data store did not answer in time'
        : 'a dependency is unavailable';
    return { status, body: { error: { code: 'unavailable', message } } };
  }
  return { status: 500, body: { error: { code: 'internal', message: INTERNAL_MESSAGE } } };
}

/**
 * A thrown value in one short line for a log, without its stack: its name and message, then its
 * causes'. For failures that are not faults of ours (a dependency's), whose stack says nothing.
 */
export function briefly(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 4 && at !== undefined && at !== null; depth++) {
    parts.push(at instanceof Error ? `${at.name}: ${at.message}` : typeof at === 'string' ? at : typeof at);
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(' <- ');
}

function httpStatusOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && Number.isInteger(status) ? status : null;
}

/** Headers a handler may have set for the answer it was building; they must not describe an error body. */
const ANSWER_HEADERS = ['Content-Encoding', 'ETag', 'Last-Modified'] as const;

/**
 * The single error funnel. Answers every failure in the error shape with no cache, and hands server
 * faults (5xx) to `app.on('error')`, the one place that logs them. A 503 always says when to retry.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, body } = toErrorResponse(error);
      for (const name of ANSWER_HEADERS) ctx.remove(name);
      ctx.status = status;
      ctx.body = body;
      ctx.set('Cache-Control', 'no-store');
      if (error instanceof ApiError) ctx.set({ ...error.headers });
      if (status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      if (status >= 500) ctx.app.emit('error', error, ctx);
    }
  };
}
