import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import { waitFor } from '@mtc/adapters/contract';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { errorMiddleware } from './errors.ts';
import { OPENAPI_PATH } from './openapi.ts';
import {
  clientKey,
  createMemoryRateLimitBuckets,
  DEFAULT_RATE_LIMIT_COSTS,
  FREE_PATHS,
  rateLimit,
  RateLimitConfigSchema,
  type RateLimitBuckets,
  type RateLimitConfig,
} from './rate-limit.ts';
import { routerPath } from './route.ts';
import { allRoutes } from './routes/index.ts';

const ROUTES = allRoutes().map((route) => route.path);

function config(env: Record<string, string> = {}): RateLimitConfig {
  return RateLimitConfigSchema.parse({ RATE_LIMIT_ENABLED: 'true', ...env });
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

interface TestServer {
  get(path: string, options?: { headers?: Record<string, string>; from?: string; method?: string }): Promise<Answer>;
  close(): Promise<void>;
}

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/**
 * The middleware behind the real error funnel, on a router that serves every route pattern of the
 * API (each answering `{route}`), listening on a real socket. `from` picks the client's source
 * address on loopback (127.0.0.2 is a second client).
 */
async function serve(
  cfg: RateLimitConfig,
  options: { buckets?: RateLimitBuckets; proxy?: boolean } = {},
): Promise<TestServer> {
  const app = new Koa({ proxy: options.proxy ?? false, maxIpsCount: 1 });
  const buckets = options.buckets ?? createMemoryRateLimitBuckets(cfg);
  app.use(errorMiddleware());
  app.use(rateLimit({ config: cfg, buckets, routes: ROUTES }));
  const router = new Router();
  for (const path of ROUTES) router.get(routerPath(path), (ctx) => void (ctx.body = { route: path }));
  app.use(router.routes());
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const testServer: TestServer = {
    get: (path, { headers = {}, from = '127.0.0.1', method = 'GET' } = {}) =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method, headers, localAddress: from, agent: false });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        });
        req.on('error', reject);
        req.end();
      }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await buckets.close();
    },
  };
  open.push(testServer);
  return testServer;
}

const remaining = (answer: Answer): number => Number(answer.headers['ratelimit-remaining']);

describe('RateLimitConfigSchema', () => {
  it('is off by default, with the default costs', () => {
    const parsed = RateLimitConfigSchema.parse({});
    expect(parsed.RATE_LIMIT_ENABLED).toBe(false);
    expect(parsed.RATE_LIMIT_POINTS).toBe(600);
    expect(parsed.RATE_LIMIT_WINDOW_S).toBe(60);
    expect(parsed.API_PROXY_HOPS).toBe(0);
    expect(parsed.RATE_LIMIT_COSTS).toEqual([
      { path: '/api/search', cost: 5 },
      { path: '/api/token/{id}/locks', cost: 10 },
      { path: '/api/address/{id}/txs', cost: 3 },
      { path: '/api/v1/nft/{id}/image', cost: 5 },
      { path: '/api/v1/token/{id}/image', cost: 5 },
      { path: '/api/export/txs', cost: 60 },
      { path: '/api/export/address/{address}/activity', cost: 60 },
      { path: '/api/export/token/{id}/transfers', cost: 60 },
      { path: '/api/export/token/{id}/holders', cost: 60 },
      { path: '/api/export/nft/{id}/holders', cost: 60 },
      { path: '/api/export/stats/daily-txs', cost: 60 },
    ]);
  });

  it('reads costs as path=cost pairs, replacing the defaults', () => {
    expect(config({ RATE_LIMIT_COSTS: ' /api/blocks = 2 , /api/tx/{id}=0,' }).RATE_LIMIT_COSTS).toEqual([
      { path: '/api/blocks', cost: 2 },
      { path: '/api/tx/{id}', cost: 0 },
    ]);
  });

  it.each([
    ['/api/search', 'bad cost'],
    ['/api/search=-1', 'bad cost'],
    ['/api/search=1.5', 'bad cost'],
    ['api/search=2', 'bad cost'],
    ['/api/search=2=3', 'bad cost'],
    ['/api/{}/x=2', 'bad cost'],
    ['/api/search=2,/api/search=3', 'listed twice'],
    ['/healthz=1', 'never limited'],
    ['/api/openapi.json=1', 'never limited'],
  ])('rejects RATE_LIMIT_COSTS=%s', (costs, message) => {
    const result = RateLimitConfigSchema.safeParse({ RATE_LIMIT_COSTS: costs });
    expect(result.success).toBe(false);
    expect(result.error?.message).toContain(message);
  });

  it.each([
    ['RATE_LIMIT_POINTS', '0'],
    ['RATE_LIMIT_WINDOW_S', '0'],
    ['RATE_LIMIT_WINDOW_S', 'x'],
    ['RATE_LIMIT_ENABLED', 'maybe'],
    ['API_PROXY_HOPS', '-1'],
  ])('rejects %s=%s', (name, value) => {
    expect(RateLimitConfigSchema.safeParse({ [name]: value }).success).toBe(false);
  });

  it('has default costs for routes that exist, and free paths that exist', () => {
    for (const { path } of RateLimitConfigSchema.parse({ RATE_LIMIT_COSTS: DEFAULT_RATE_LIMIT_COSTS }).RATE_LIMIT_COSTS)
      expect(ROUTES).toContain(path);
    expect(FREE_PATHS).toContain(OPENAPI_PATH);
    for (const path of FREE_PATHS) expect(ROUTES).toContain(path);
  });
});

describe('rateLimit', () => {
  it('refuses to start with a cost for a path that is no route', () => {
    const buckets = createMemoryRateLimitBuckets(config());
    expect(() => rateLimit({ config: config({ RATE_LIMIT_COSTS: '/api/serch=5' }), buckets, routes: ROUTES })).toThrow(
      '/api/serch is no route',
    );
  });

  it('charges a route that costs more than a whole bucket the whole bucket', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '4', RATE_LIMIT_COSTS: '/api/search=5' }));
    const first = await api.get('/api/search?q=1');
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe(0);
    expect((await api.get('/api/search?q=2')).status).toBe(429);
  });

  it('serves a bucket of points, then answers 429 with the error body and headers', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '10', RATE_LIMIT_WINDOW_S: '60' }));
    for (let i = 1; i <= 10; i++) {
      const ok = await api.get('/api/blocks');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('10');
      expect(remaining(ok)).toBe(10 - i);
      const reset = Number(ok.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(ok.headers['retry-after']).toBeUndefined();
    }

    const refused = await api.get('/api/blocks');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['ratelimit-limit']).toBe('10');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        code: 'rate_limited',
        message: `rate limit exceeded: 10 points per 60 s, this request costs 1; retry in ${retryAfter} s`,
      },
    });
  });

  it('takes a weighted route’s cost, so costly requests empty the bucket sooner', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '12', RATE_LIMIT_COSTS: '/api/search=5' }));
    expect(remaining(await api.get('/api/search?q=1'))).toBe(7);
    expect(remaining(await api.get('/api/search?q=2'))).toBe(2);
    const refused = await api.get('/api/search?q=3');
    expect(refused.status).toBe(429);
    expect((JSON.parse(refused.text) as { error: { message: string } }).error.message).toContain('costs 5;');
    // The refused request spent its cost too: the bucket stays empty for cheap routes as well.
    expect((await api.get('/api/blocks')).status).toBe(429);
  });

  it('charges what the router serves: any case, a trailing slash, any id', async () => {
    const api = await serve(
      config({ RATE_LIMIT_POINTS: '1000', RATE_LIMIT_COSTS: '/api/token/{id}/locks=10,/api/search=5' }),
    );
    let left = 1000;
    for (const [path, cost] of [
      ['/api/token/7/locks', 10],
      ['/API/Token/7/LOCKS', 10],
      ['/api/token/7/locks/', 10],
      ['/api/token/%41b/locks', 10],
      ['/api/search/', 5],
      ['/api/token/7', 1],
      ['/api/nothing', 1],
    ] as const) {
      const answer = await api.get(path);
      expect(answer.status, path).toBe(path === '/api/nothing' ? 404 : 200);
      if (answer.status === 200) {
        const route = (JSON.parse(answer.text) as { route: string }).route;
        expect(route, path).toBe(
          cost === 10 ? '/api/token/{id}/locks' : cost === 5 ? '/api/search' : '/api/token/{id}',
        );
      }
      left -= cost;
      expect(remaining(answer), path).toBe(left);
    }
  });

  it('never limits the probes, the OpenAPI document or CORS preflights, and marks none of them', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '1' }));
    expect((await api.get('/api/blocks')).status).toBe(200);
    expect((await api.get('/api/blocks')).status).toBe(429);
    for (const path of ['/healthz', '/readyz', '/api/openapi.json', '/HEALTHZ', '/readyz/']) {
      for (let i = 0; i < 3; i++) {
        const answer = await api.get(path);
        expect(answer.status, path).toBe(200);
        expect(answer.headers['ratelimit-limit'], path).toBeUndefined();
      }
    }
    const preflight = await api.get('/api/blocks', { method: 'OPTIONS' });
    expect(preflight.status).not.toBe(429);
    expect(preflight.headers['ratelimit-limit']).toBeUndefined();
  });

  it('refills the bucket once the window has passed', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '2', RATE_LIMIT_WINDOW_S: '1' }));
    await api.get('/api/blocks');
    await api.get('/api/blocks');
    const refused = await api.get('/api/blocks');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    let answer: Answer | undefined;
    await waitFor(async () => (answer = await api.get('/api/blocks')).status === 200, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the bucket to refill',
    });
    expect(remaining(answer!)).toBe(1);
  });

  it('keeps one bucket per client address, and ignores X-Forwarded-For unless behind a proxy', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '2' }));
    await api.get('/api/blocks', { headers: { 'X-Forwarded-For': '198.51.100.1' } });
    await api.get('/api/blocks', { headers: { 'X-Forwarded-For': '198.51.100.2' } });
    expect((await api.get('/api/blocks', { headers: { 'X-Forwarded-For': '198.51.100.3' } })).status).toBe(429);
    const other = await api.get('/api/blocks', { from: '127.0.0.2' });
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(1);
  });

  it('behind a proxy, keys by the address the proxy appended, not by what the client wrote', async () => {
    const api = await serve(config({ RATE_LIMIT_POINTS: '1' }), { proxy: true });
    // The client wrote the first entry itself; the proxy appended the second.
    const a = { 'X-Forwarded-For': '203.0.113.9, 198.51.100.1' };
    expect((await api.get('/api/blocks', { headers: a })).status).toBe(200);
    expect(
      (await api.get('/api/blocks', { headers: { 'X-Forwarded-For': '203.0.113.10, 198.51.100.1' } })).status,
    ).toBe(429);
    expect((await api.get('/api/blocks', { headers: { 'X-Forwarded-For': '198.51.100.2' } })).status).toBe(200);
  });
});

describe('clientKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['', 'unknown'],
  ])('keys %s as %s', (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});
