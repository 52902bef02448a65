import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, briefly, errorMiddleware, RETRY_AFTER_SECONDS, toErrorResponse } from './errors.ts';

describe('toErrorResponse', () => {
  it('keeps the status and code of an ApiError', () => {
    expect(toErrorResponse(new ApiError('rate_limited', 'slow down'))).toEqual({
      status: 429,
      body: { error: { code: 'rate_limited', message: 'slow down' } },
    });
    expect(toErrorResponse(new ApiError('uri_too_long', 'long')).status).toBe(414);
    expect(toErrorResponse(new ApiError('headers_too_large', 'big')).status).toBe(431);
  });

  it("answers a store's time-budget error (status 503) 503 unavailable, with a short message of its own", () => {
    const timeout = Object.assign(new Error('find on blocks over 1000 ms (mongodb://user:secret@db)'), {
      name: 'StoreTimeoutError',
      status: 503,
    });
    expect(toErrorResponse(timeout)).toEqual({
      status: 503,
      body: { error: { code: 'unavailable', message: 'the data store did not answer in time' } },
    });
    const other = Object.assign(new Error('secret'), { status: 503 });
    expect(toErrorResponse(other).body.error).toEqual({ code: 'unavailable', message: 'a dependency is unavailable' });
  });

  it('names a 4xx http-error by its status, and answers any other status 500', () => {
    expect(toErrorResponse(Object.assign(new Error('x'), { status: 414 })).body.error.code).toBe('uri_too_long');
    expect(toErrorResponse(Object.assign(new Error('x'), { status: 418 })).body.error.code).toBe('bad_request');
    expect(toErrorResponse(Object.assign(new Error('/etc/secret'), { status: 504 }))).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'Internal server error' } },
    });
  });
});

describe('briefly', () => {
  it('puts an error and its causes on one line, without stack', () => {
    const error = new Error('the store did not answer', { cause: new TypeError('socket hang up') });
    expect(briefly(error)).toBe('Error: the store did not answer <- TypeError: socket hang up');
  });
});

describe('errorMiddleware', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(fail: Koa.Middleware): Promise<string> {
    const app = new Koa();
    app.on('error', () => {});
    app.use(errorMiddleware());
    app.use(fail);
    const handle = app.callback();
    server = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('drops the headers of an answer the handler was building, so they never describe the error', async () => {
    const url = await serve((ctx) => {
      ctx.set('Content-Encoding', 'br');
      ctx.set('ETag', '"abc-br"');
      ctx.set('Last-Modified', new Date(0).toUTCString());
      throw new ApiError('unavailable', 'the request was not answered within its time budget (1500 ms)');
    });
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('last-modified')).toBeNull();
    expect(await res.json()).toEqual({
      error: { code: 'unavailable', message: 'the request was not answered within its time budget (1500 ms)' },
    });
  });

  it('tells when to retry on every 503, unless the error said it', async () => {
    const said: { retryAfter?: string } = {};
    const url = await serve(() => {
      const headers: Record<string, string> = said.retryAfter === undefined ? {} : { 'Retry-After': said.retryAfter };
      throw new ApiError('unavailable', 'down', { headers });
    });
    expect((await fetch(url)).headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    said.retryAfter = '30';
    expect((await fetch(url)).headers.get('retry-after')).toBe('30');
  });

  it('sends the headers an ApiError carries, e.g. on a 429', async () => {
    const url = await serve(() => {
      throw new ApiError('rate_limited', 'too many requests', {
        headers: { 'Retry-After': '7', 'RateLimit-Remaining': '0' },
      });
    });
    const res = await fetch(url);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
