import { createMemoryReadStore } from '@mtc/adapters';
import type { Collection, Doc, ReadStore } from '@mtc/ports';
import { COLLECTIONS, HEAD_ID, openModels, writingWrite } from '@mtc/read-models';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from './app.ts';
import { createNftImageFetcher } from './nft-images.ts';
import { ErrorBody } from './errors.ts';
import {
  ALICE,
  buildChain,
  fakeChain,
  fakeCounters,
  startTestApi,
  testConfig,
  type TestApi,
} from './testing/harness.ts';

/** 11 blocks of transfers, then the native coin's registration at height 12. */
const fixture = buildChain(11);
fixture.block([fixture.registerToken({ token: 0, name: 'Metacoin', symbol: 'MTC', owner: ALICE, totalsupply: '5' })]);
const TX = fixture.txs[0]!.id;

/** Every /api path with a valid request, one per route. */
const API_PATHS = [
  '/api/chain',
  '/api/tx-stats',
  '/api/blocks',
  '/api/block/3',
  '/api/rawblock/3',
  '/api/transactions',
  `/api/tx/${TX}`,
  `/api/rawtx/${TX}`,
  `/api/tx/${TX}/templates`,
  `/api/address/${ALICE}`,
  `/api/address/${ALICE}/txs`,
  '/api/tokens',
  '/api/token/0',
  '/api/token/0/holders',
  '/api/token/0/txs',
  '/api/token/0/history',
  '/api/token/0/locks',
  '/api/mtc-stats',
  '/api/search?q=3',
  '/api/openapi.json',
];

describe('createApiApp', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture });
  });
  afterAll(() => api.close());

  it('answers every route with JSON and the indexed height', async () => {
    for (const path of API_PATHS) {
      const res = await api.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(res.headers.get('x-indexed-height'), path).toBe('12');
      expect(res.headers.get('cache-control'), path).toMatch(/^public, max-age=\d+(, immutable)?$/);
    }
  });

  it('answers an unknown /api path with a JSON 404 that still carries the indexed height', async () => {
    const res = await api.get('/api/nothing/here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-indexed-height')).toBe('12');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
  });

  it('answers an unknown path outside /api with the same error shape', async () => {
    const res = await api.get('/nothing');
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
    expect(res.headers.get('x-indexed-height')).toBeNull();
  });

  it('carries the indexed height on a 400 too', async () => {
    const res = await api.get('/api/blocks?limit=51');
    expect(res.status).toBe(400);
    expect(res.headers.get('x-indexed-height')).toBe('12');
    expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
  });

  it('answers 405 with Allow when a path exists but the method is not GET', async () => {
    const res = await api.get('/api/chain', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(ErrorBody.parse(res.body).error.code).toBe('method_not_allowed');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await api.get('/api/chain', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await api.get('/api/chain', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the head once per request, and once more after its reads to validate the answer', async () => {
    api.calls.length = 0;
    await api.get('/api/address/' + ALICE);
    expect(api.calls.filter((c) => c.collection === COLLECTIONS.head)).toHaveLength(2);
  });

  it('reads the head once for an answer of blocks and transactions up to its height, which never change', async () => {
    api.calls.length = 0;
    await api.get('/api/chain');
    await api.get('/api/blocks?page=2');
    expect(api.calls.filter((c) => c.collection === COLLECTIONS.head)).toHaveLength(2);
  });

  it('answers blocks and transactions at the head while a batch is written over it, and waits on the rest', async () => {
    const store = createMemoryReadStore();
    const writing = await startTestApi({ fixture, store, config: testConfig({ API_REQUEST_TIMEOUT_MS: '300' }) });
    try {
      // A projector that began writing block 13 and never finished (stuck, or slower than any budget).
      const head = await openModels(store).head.get(HEAD_ID);
      await store.write([writingWrite(head, 13)]);
      for (const path of ['/api/chain', '/api/blocks?limit=5']) {
        const res = await writing.get(path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('x-indexed-height'), path).toBe('12');
      }
      const chain = (await writing.get('/api/chain')).body as { localBlock: number; blocks: { height: number }[] };
      expect([chain.localBlock, chain.blocks[0]?.height]).toEqual([12, 12]);
      // A holder balance read now may straddle the batch: it waits for it, and says so at the deadline.
      expect((await writing.get(`/api/address/${ALICE}`)).status).toBe(503);
    } finally {
      await writing.close();
    }
  });

  it('reports height 0 when nothing is indexed yet', async () => {
    const empty = await startTestApi();
    try {
      const res = await empty.get('/api/blocks');
      expect(res.headers.get('x-indexed-height')).toBe('0');
    } finally {
      await empty.close();
    }
  });
});

describe('createApiApp error funnel', () => {
  /** A store whose blocks collection fails like a dropped database connection. */
  function brokenStore(): ReadStore {
    const store = createMemoryReadStore();
    return {
      ...store,
      collection: <T extends Doc>(name: string): Collection<T> => {
        const c = store.collection<T>(name);
        if (name !== COLLECTIONS.blocks) return c;
        const fail = async (): Promise<never> => {
          throw new Error('connection refused by /srv/mongo/secret.sock');
        };
        return { get: fail, getMany: fail, find: fail, count: fail };
      },
    };
  }

  it('answers a fault with a generic 500 and logs it once with the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const api = await startTestApi({ store: brokenStore(), fixture, logger });
    try {
      const res = await api.get('/api/blocks', { headers: { 'X-Request-Id': 'req-1' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: 'internal', message: 'Internal server error' } });
      expect(JSON.stringify(res.body)).not.toContain('secret');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const logged = lines.filter((l) => l['msg'] === 'request failed');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ requestId: 'req-1', status: 500, path: '/api/blocks', level: 50 });
      expect(JSON.stringify(logged[0]!['err'])).toContain('secret.sock');
    } finally {
      await api.close();
    }
  });

  it('does not log client errors', async () => {
    const lines: unknown[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const api = await startTestApi({ fixture, logger });
    try {
      await api.get('/api/blocks?page=0');
      await api.get('/api/block/999');
      expect(lines).toEqual([]);
    } finally {
      await api.close();
    }
  });
});

describe('startApi', () => {
  it('listens on an ephemeral port and closes', async () => {
    const config = testConfig();
    const logger = pino({ level: 'silent' });
    const store = createMemoryReadStore();
    const running = await startApi({
      config,
      logger,
      store,
      images: createNftImageFetcher({ config, logger, store }),
      counters: fakeCounters(),
      chain: fakeChain(null),
      port: 0,
      host: '127.0.0.1',
    });
    const res = await fetch(`${running.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    await running.close();
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });
});

describe('rate limiting in the app', () => {
  it('is off by default, and when on answers 429 with its headers once a client spent its points', async () => {
    const off = await startTestApi({ fixture });
    try {
      for (let i = 0; i < 5; i++) expect((await off.get('/api/blocks')).status).toBe(200);
      expect((await fetch(`${off.url}/api/blocks`)).headers.get('RateLimit-Limit')).toBeNull();
    } finally {
      await off.close();
    }
    const config = testConfig({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_POINTS: '6', RATE_LIMIT_WINDOW_S: '60' });
    const on = await startTestApi({ fixture, config });
    try {
      // /api/search costs 5 of the 6 points by default; /api/blocks costs 1.
      const first = await fetch(`${on.url}/api/search?q=3`);
      expect(first.status).toBe(200);
      expect(first.headers.get('RateLimit-Limit')).toBe('6');
      expect(first.headers.get('RateLimit-Remaining')).toBe('1');
      expect((await fetch(`${on.url}/api/blocks`)).status).toBe(200);
      const refused = await fetch(`${on.url}/api/blocks`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(refused.headers.get('RateLimit-Remaining')).toBe('0');
      expect(((await refused.json()) as ErrorBody).error.code).toBe('rate_limited');
      // The probes are never limited.
      expect((await fetch(`${on.url}/healthz`)).status).toBe(200);
    } finally {
      await on.close();
    }
  });
});
