import { STATUS_CODES, type IncomingMessage, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { ApiState } from './context.ts';
import type { ApiConfig } from './config.ts';
import {
  ApiError,
  ERROR_CODES,
  RETRY_AFTER_SECONDS,
  toErrorResponse,
  type ErrorBody,
  type ErrorCode,
} from './errors.ts';

/**
 * What the API accepts of a request before any route sees it, and how long it may take:
 *
 * - the HTTP server refuses, before Koa, a request head over API_MAX_HEADER_BYTES (431), a head not
 *   received within API_HEADERS_TIMEOUT_MS (408: a slowloris client holds a socket no longer), and
 *   whatever its parser cannot parse (400); `answerClientError` answers those in the API's error shape;
 * - `requestGate` refuses a URL over API_MAX_URL_BYTES (414), an HTTP/1.1 request without Host (400)
 *   and any method but GET, HEAD and OPTIONS (405): the API is read-only;
 * - `timeBudget` answers 503 when the handler has not answered within its budget, so a slow or hung
 *   store never leaves a socket waiting; the late result is dropped.
 */

/** Every route is read-only: these are the methods of every path. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
export const ALLOW = ALLOWED_METHODS.join(', ');

/**
 * How often the server looks for requests over their time limits (Node's default, 30 s, would let a
 * slow client hold a socket up to 30 s past API_HEADERS_TIMEOUT_MS).
 */
const CONNECTIONS_CHECK_MS = 1000;

/** Options of the API's `http.Server`. */
export function serverOptions(config: ApiConfig): ServerOptions {
  return {
    maxHeaderSize: config.API_MAX_HEADER_BYTES,
    headersTimeout: config.API_HEADERS_TIMEOUT_MS,
    // Requests have no body: the whole request is its head.
    requestTimeout: config.API_HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    // Node would answer a missing Host with an empty 400; requestGate answers it in the error shape.
    requireHostHeader: false,
  };
}

/** Refusals that need no route: URL length, Host, method (see the top of this module). */
export function requestGate(config: ApiConfig): Middleware<ApiState> {
  return async (ctx, next) => {
    if (ctx.url.length > config.API_MAX_URL_BYTES) {
      throw new ApiError('uri_too_long', `the URL is longer than ${config.API_MAX_URL_BYTES} bytes`);
    }
    if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) {
      throw new ApiError('bad_request', 'an HTTP/1.1 request needs a Host header');
    }
    if (ctx.method === 'OPTIONS') {
      // A CORS preflight was answered before this; a plain OPTIONS asks what the server allows.
      ctx.status = 204;
      ctx.set('Allow', ALLOW);
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      // A client error like a 400, but worth one line where a scanner's methods can be seen.
      ctx.state.logger.debug({ method: ctx.method, path: ctx.path }, 'method not allowed');
      throw new ApiError('method_not_allowed', `${ctx.method} is not allowed: the API is read-only (${ALLOW})`, {
        headers: { Allow: ALLOW },
      });
    }
    await next();
  };
}

/**
 * Answers 503 when the rest of the chain has not settled within `budgetMs(ctx)` milliseconds. The
 * work goes on in the background (a promise cannot be cancelled) and its result is dropped; if it
 * fails late with a server fault, that still goes to `app.on('error')` like any other.
 */
export function timeBudget(budgetMs: (ctx: ParameterizedContext<ApiState>) => number): Middleware<ApiState> {
  return async (ctx, next) => {
    const ms = budgetMs(ctx);
    const work = next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(resolve, ms, 'expired');
    });
    try {
      const outcome = await Promise.race([work.then(() => 'done' as const), expired]);
      if (outcome === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    work.catch((error: unknown) => {
      if (toErrorResponse(error).status >= 500) ctx.app.emit('error', error, ctx);
    });
    throw new ApiError('unavailable', `the request was not answered within its time budget (${ms} ms)`, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  };
}

/** What the HTTP server's parser refused, as the client is told. */
function parserRefusal(code: unknown, config: ApiConfig): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        message: `the request line and headers are larger than ${config.API_MAX_HEADER_BYTES} bytes`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return { code: 'bad_request', message: 'malformed HTTP request' };
  }
}

/** A whole HTTP/1.1 error answer in the API's error shape, for a socket that has no Koa context. */
export function rawErrorAnswer(code: ErrorCode, message: string, headers: readonly string[] = []): string {
  const status = ERROR_CODES[code];
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Access-Control-Allow-Origin: *',
    'X-Content-Type-Options: nosniff',
    ...headers,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The server's `connect` listener: Node hands a CONNECT request to it, not to Koa, and without one
 * closes the socket unanswered. It is a method like any other the API does not allow.
 */
export function answerConnect(logger: Logger): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    logger.debug({ method: req.method, path: req.url }, 'method not allowed');
    socket.end(
      rawErrorAnswer('method_not_allowed', `CONNECT is not allowed: the API is read-only (${ALLOW})`, [
        `Allow: ${ALLOW}`,
      ]),
      () => socket.destroy(),
    );
  };
}

/**
 * The server's `clientError` listener: what Node's HTTP parser refused (bad bytes, a head too large or
 * too slow) is answered in the error shape with `Connection: close` instead of Node's empty body,
 * and logged in one line, without stack or the request's bytes.
 */
export function answerClientError(
  config: ApiConfig,
  logger: Logger,
): (error: Error & { code?: unknown }, socket: Duplex) => void {
  return (error, socket) => {
    // The client went away: nobody to answer.
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = parserRefusal(error.code, config);
    logger.info(
      {
        code: error.code,
        status: ERROR_CODES[refusal.code],
        remoteAddress: (socket as { remoteAddress?: string }).remoteAddress,
      },
      'request refused by the HTTP server',
    );
    // Like Node's own answer: only when no answer to an earlier request on this socket has begun,
    // or the bytes would corrupt it.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorAnswer(refusal.code, refusal.message), () => socket.destroy());
  };
}
