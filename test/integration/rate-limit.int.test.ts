import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import { createRedisRateLimitBuckets } from '@mtc/adapters';
import { describeWithInfra, uniqueName } from '@mtc/adapters/contract';
import Koa from 'koa';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { errorMiddleware } from '../../services/api/src/errors.ts';
import { rateLimit, RateLimitConfigSchema, type RateLimitConfig } from '../../services/api/src/rate-limit.ts';

/**
 * Rate limiting in distributed mode, over HTTP: API replicas, each with its own Redis client, limit
 * a client from one shared bucket; with Redis out of reach they keep serving, each limiting on its
 * own. The replicas are the API's rate-limit middleware behind its error funnel on a small router.
 */
const ROUTES = ['/api/blocks', '/api/search', '/healthz'];

interface Replica {
  get(path: string): Promise<Response>;
  close(): Promise<void>;
}

const running: Replica[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((replica) => replica.close()));
});

async function startReplica(config: RateLimitConfig, redisUrl: string, prefix: string): Promise<Replica> {
  const buckets = await createRedisRateLimitBuckets({
    url: redisUrl,
    prefix,
    points: config.RATE_LIMIT_POINTS,
    windowS: config.RATE_LIMIT_WINDOW_S,
    timeoutMs: config.RATE_LIMIT_STORE_TIMEOUT_MS,
    logger: pino({ level: 'silent' }),
  });
  const app = new Koa();
  app.use(errorMiddleware());
  app.use(rateLimit({ config, buckets, routes: ROUTES }));
  const router = new Router();
  for (const path of ROUTES) router.get(path, (ctx) => void (ctx.body = { ok: true }));
  app.use(router.routes());
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const replica: Replica = {
    get: (path) => fetch(`http://127.0.0.1:${port}${path}`),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await buckets.close();
    },
  };
  running.push(replica);
  return replica;
}

describeWithInfra('rate limiting across API replicas', ['REDIS_URL'], ({ REDIS_URL }) => {
  const config = RateLimitConfigSchema.parse({
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_POINTS: '8',
    RATE_LIMIT_WINDOW_S: '60',
    RATE_LIMIT_COSTS: '/api/search=3',
  });

  it('draws every replica’s answers from one bucket per client', async () => {
    const prefix = `${uniqueName('test')}:`;
    const [a, b] = [await startReplica(config, REDIS_URL, prefix), await startReplica(config, REDIS_URL, prefix)];
    const seen: [number, string | null][] = [];
    for (const [replica, path] of [
      [a, '/api/blocks'],
      [b, '/api/search'],
      [a, '/api/search'],
      [b, '/api/blocks'],
      [a, '/api/blocks'],
      [b, '/healthz'],
    ] as const) {
      const res = await replica.get(path);
      seen.push([res.status, res.headers.get('ratelimit-remaining')]);
    }
    // 8 points: 1 + 3 + 3 + 1 spend them; the next is refused wherever it lands; probes are free.
    expect(seen).toEqual([
      [200, '7'],
      [200, '4'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
      [200, null],
    ]);
    const refused = await b.get('/api/blocks');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('keeps serving with Redis out of reach, each replica limiting on its own', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const unreachable = `redis://127.0.0.1:${port}`;
    const prefix = `${uniqueName('test')}:`;
    const [a, b] = [await startReplica(config, unreachable, prefix), await startReplica(config, unreachable, prefix)];
    const statuses = async (replica: Replica, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await replica.get('/api/blocks')).status);
      return out;
    };
    expect(await statuses(a, 9)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    // A bucket per replica while Redis is away: b's is still full.
    expect(await statuses(b, 1)).toEqual([200]);
  });
});
