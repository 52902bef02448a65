import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createMemoryReadStore } from '@mtc/adapters';
import type { Doc, ReadStore } from '@mtc/ports';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createResponseCache,
  HEAD_TTL_MS,
  MIN_COMPRESS_BYTES,
  STALE_WHILE_BUILDING_MS,
  type CachePolicy,
} from './http-cache.ts';
import { headMemory } from './head-cell.ts';
import { ALICE, buildChain, startTestApi, testConfig, type TestApi } from './testing/harness.ts';

/** The caches on, as in production: the head read once per 100 ms, answers kept in memory. */
const cached = (env: Record<string, string> = {}) =>
  testConfig({ API_HEAD_CACHE_MS: '100', API_RESPONSE_CACHE_MB: '8', ...env });

const fixture = buildChain(30);
let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const reads = (a: TestApi, collection: string): number => a.calls.filter((c) => c.collection === collection).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A memory store whose finds and multi-gets first wait `delayMs(collection)` milliseconds. */
function slowStore(delayMs: (collection: string) => number): ReadStore {
  const inner = createMemoryReadStore();
  return {
    ...inner,
    collection: <T extends Doc>(name: string) => {
      const c = inner.collection<T>(name);
      const wait = async () => {
        const ms = delayMs(name);
        if (ms > 0) await sleep(ms);
      };
      return {
        ...c,
        find: async (...args: Parameters<typeof c.find>) => (await wait(), c.find(...args)),
        getMany: async (...args: Parameters<typeof c.getMany>) => (await wait(), c.getMany(...args)),
      };
    },
  };
}

describe('HTTP caching by chain state', () => {
  it('answers If-None-Match with the current ETag by 304 without a body, and a stale one with 200', async () => {
    api = await startTestApi({ fixture, config: cached() });
    // fetch() adds `Cache-Control: no-cache` to a conditional request unless told otherwise.
    const identity = { 'Accept-Encoding': 'identity', 'Cache-Control': 'max-age=0' };
    const first = await api.get('/api/blocks', { headers: identity });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await fetch(`${api.url}/api/blocks`, { headers: { ...identity, 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const stale = await fetch(`${api.url}/api/blocks`, { headers: { ...identity, 'If-None-Match': '"not-this' } });
    expect(stale.status).toBe(200);
    expect(await stale.json()).toEqual(first.body);
  });

  it('serves an answer from memory while the head stays, and a new one once it moves', async () => {
    api = await startTestApi({ fixture, headAt: 20, config: cached() });
    const before = await api.get<{ blocks: { height: number }[] }>('/api/blocks');
    expect(before.body.blocks[0]!.height).toBe(20);
    const built = reads(api, 'blocks');
    expect(built).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) await api.get('/api/blocks');
    expect(reads(api, 'blocks')).toBe(built);

    await api.project(fixture); // blocks 21 … 30 get their head
    await sleep(150); // the head reading is at most 100 ms old
    const after = await api.get<{ blocks: { height: number }[] }>('/api/blocks');
    expect(after.body.blocks[0]!.height).toBe(30);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(reads(api, 'blocks')).toBeGreaterThan(built);
  });

  it('keeps answers that can no longer change across heads, with a long Cache-Control', async () => {
    api = await startTestApi({ fixture, headAt: 20, config: cached() });
    const tx = fixture.txs[0]!.id;
    const first = await api.get(`/api/tx/${tx}`);
    expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const built = reads(api, 'txs');
    await api.project(fixture);
    await sleep(150);
    expect((await api.get(`/api/tx/${tx}`)).body).toEqual(first.body);
    expect(reads(api, 'txs')).toBe(built);
  });

  it('rebuilds an answer that used the clock after HEAD_TTL_MS even at the same head', async () => {
    let now = 1_000_000;
    api = await startTestApi({ fixture, config: cached({ API_HEAD_CACHE_MS: '0' }), now: () => now });
    // An address's balances tell locked from unlocked by the clock.
    expect((await api.get(`/api/address/${ALICE}`)).status).toBe(200);
    const built = reads(api, 'wallets');
    now += HEAD_TTL_MS - 1;
    await api.get(`/api/address/${ALICE}`);
    expect(reads(api, 'wallets')).toBe(built);
    now += 1;
    await api.get(`/api/address/${ALICE}`);
    expect(reads(api, 'wallets')).toBeGreaterThan(built);
  });

  it('keeps an answer built from the read models alone for as long as the head stays', async () => {
    let now = 1_000_000;
    api = await startTestApi({ fixture, headAt: 20, config: cached({ API_HEAD_CACHE_MS: '0' }), now: () => now });
    for (const path of ['/api/blocks', `/api/address/${ALICE}/txs`]) expect((await api.get(path)).status).toBe(200);
    const built = [reads(api, 'blocks'), reads(api, 'address_txs')];
    expect(Math.min(...built)).toBeGreaterThan(0);
    now += 100 * HEAD_TTL_MS;
    for (const path of ['/api/blocks', `/api/address/${ALICE}/txs`]) await api.get(path);
    expect([reads(api, 'blocks'), reads(api, 'address_txs')]).toEqual(built);
    await api.project(fixture); // blocks 21 … 30 get their head
    const after = await api.get<{ blocks: { height: number }[] }>('/api/blocks');
    expect(after.body.blocks[0]!.height).toBe(30);
  });

  it('builds one answer for many concurrent requests of one URL', async () => {
    // A slow store: every request arrives while the first one's answer is still being built.
    const store = slowStore(() => 200);
    api = await startTestApi({ fixture, store, config: cached() });
    const answers = await Promise.all(Array.from({ length: 20 }, () => api!.get('/api/transactions')));
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
    expect(api.calls.filter((c) => c.collection === 'txs')).toHaveLength(1);
  });

  it('answers requests that arrive while the new head’s answer is built from the previous one, named by its height', async () => {
    let slow = false;
    const store = slowStore((collection) => (slow && collection === 'blocks' ? 300 : 0));
    api = await startTestApi({ fixture, store, headAt: 20, config: cached() });
    type Blocks = { blocks: { height: number }[] };
    expect((await api.get<Blocks>('/api/blocks')).body.blocks[0]!.height).toBe(20);
    await api.project(fixture); // blocks 21 … 30 get their head
    await sleep(150);
    slow = true;
    const builder = api.get<Blocks>('/api/blocks');
    await sleep(100);
    const joiner = await api.get<Blocks>('/api/blocks');
    expect([joiner.headers.get('x-indexed-height'), joiner.body.blocks[0]!.height]).toEqual(['20', 20]);
    const built = await builder;
    expect([built.headers.get('x-indexed-height'), built.body.blocks[0]!.height]).toEqual(['30', 30]);
    const after = await api.get<Blocks>('/api/blocks');
    expect([after.headers.get('x-indexed-height'), after.body.blocks[0]!.height]).toEqual(['30', 30]);
  });

  it('reads the head once for many requests within API_HEAD_CACHE_MS, plus once per answer built to validate it', async () => {
    api = await startTestApi({ fixture, config: cached({ API_HEAD_CACHE_MS: '10000' }) });
    const paths = ['/api/blocks', '/api/transactions', '/api/chain', '/api/block/3'];
    for (const path of paths) await api.get(path);
    // /blocks and /chain read only rows up to the head's height, which never change: not validated.
    expect(reads(api, 'head')).toBe(1 + paths.length - 2);
    // Held answers: no reads at all.
    for (const path of paths) await api.get(path);
    expect(reads(api, 'head')).toBe(1 + paths.length - 2);
  });

  it('shares one head between the API threads of a process: a head one of them read serves the other', async () => {
    const store = createMemoryReadStore();
    const config = cached({ API_HEAD_CACHE_MS: '10000' });
    const sharedHead = headMemory();
    const one = await startTestApi({ fixture, store, config, sharedHead });
    const two = await startTestApi({ store, config, sharedHead });
    try {
      expect((await one.get('/api/blocks')).headers.get('x-indexed-height')).toBe('30');
      await one.project(buildChain(31));
      // A validated answer reads the head after its reads: the second app finds 31 …
      expect((await two.get('/api/transactions')).headers.get('x-indexed-height')).toBe('31');
      // … and the first, whose own reading (30) is well within API_HEAD_CACHE_MS, answers at it.
      expect((await one.get('/api/blocks')).headers.get('x-indexed-height')).toBe('31');
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('does not keep errors', async () => {
    api = await startTestApi({ fixture, config: cached() });
    expect((await api.get('/api/block/31')).status).toBe(404);
    await api.project(buildChain(31)); // the same chain, one block longer
    await sleep(150);
    expect((await api.get('/api/block/31')).status).toBe(200);
  });
});

describe('createResponseCache', () => {
  type Built = { body: unknown; policy: CachePolicy };

  it('builds a miss at a new head itself when a build of the same key at the previous head is still in flight', async () => {
    const cache = createResponseCache({ maxBytes: 1 << 20 });
    const builds: number[] = [];
    let finishOld: (built: Built) => void = () => {};
    const old = cache.answer('/api/blocks', 20, () => {
      builds.push(20);
      return new Promise<Built>((resolve) => (finishOld = resolve));
    });
    // The head moves to 21 while the answer at 20 is still being built.
    const next = cache.answer('/api/blocks', 21, async () => {
      builds.push(21);
      return { body: { head: 21 }, policy: 'head' };
    });
    finishOld({ body: { head: 20 }, policy: 'head' });
    const [atOld, atNext] = await Promise.all([old, next]);
    expect(atNext.height).toBe(21);
    expect(JSON.parse(atNext.body.toString())).toEqual({ head: 21 });
    expect(builds).toEqual([20, 21]);
    expect(atOld.height).toBe(20);
    expect(JSON.parse(atOld.body.toString())).toEqual({ head: 20 });
  });
});

describe('serving the previous answer while a new one is built', () => {
  type Built = { body: unknown; policy: CachePolicy };
  const later = () => {
    let finish: (built: Built) => void = () => {};
    const built = new Promise<Built>((resolve) => (finish = resolve));
    return { built, finish: (head: number) => finish({ body: { head }, policy: 'head' }) };
  };
  const headOf = (a: { body: Buffer }) => (JSON.parse(a.body.toString()) as { head: number }).head;

  it('answers requests that join a build from the answer before it; the one that started it waits for the new one', async () => {
    let clock = 0;
    const cache = createResponseCache({ maxBytes: 1 << 20, now: () => clock });
    await cache.answer('/api/chain', 20, async () => ({ body: { head: 20 }, policy: 'head' }));
    const next = later();
    const builder = cache.answer('/api/chain', 21, () => next.built);
    const joiners = await Promise.all([cache.answer('/api/chain', 21, fail), cache.answer('/api/chain', 21, fail)]);
    expect(joiners.map((a) => [a.height, headOf(a)])).toEqual([
      [20, 20],
      [20, 20],
    ]);
    next.finish(21);
    expect(headOf(await builder)).toBe(21);
    expect((await cache.answer('/api/chain', 21, fail)).height).toBe(21);

    // At the same head once the answer expired (it may carry the clock): the same.
    clock += HEAD_TTL_MS;
    const again = later();
    const rebuilding = cache.answer('/api/chain', 21, () => again.built);
    const joiner = await cache.answer('/api/chain', 21, fail);
    expect([joiner.height, headOf(joiner)]).toEqual([21, 21]);
    again.finish(21);
    expect((await rebuilding).builtAt).toBe(clock);
  });

  it('never answers from an answer of a higher height, nor from one older than STALE_WHILE_BUILDING_MS', async () => {
    let clock = 0;
    const cache = createResponseCache({ maxBytes: 1 << 20, now: () => clock });
    await cache.answer('/api/chain', 30, async () => ({ body: { head: 30 }, policy: 'head' }));
    // The read models were rebuilt and the head is at 12: requests wait for the answer at 12.
    const rebuilt = later();
    const first = cache.answer('/api/chain', 12, () => rebuilt.built);
    const joiner = cache.answer('/api/chain', 12, fail);
    rebuilt.finish(12);
    expect([await first, await joiner].map(headOf)).toEqual([12, 12]);

    clock += STALE_WHILE_BUILDING_MS;
    const slow = later();
    const builder = cache.answer('/api/chain', 13, () => slow.built);
    const waiting = cache.answer('/api/chain', 13, fail);
    slow.finish(13);
    expect([await builder, await waiting].map(headOf)).toEqual([13, 13]);
  });
});

const fail = (): Promise<never> => Promise.reject(new Error('a request that joins a build must not build'));

describe('compression', () => {
  it('sends br or gzip as the client prefers, each with its own ETag, decoding to the identity body', async () => {
    api = await startTestApi({ fixture, config: cached() });
    const plain = await fetch(`${api.url}/api/transactions?limit=50`, { headers: { 'Accept-Encoding': 'identity' } });
    const identity = Buffer.from(await plain.arrayBuffer());
    expect(identity.length).toBeGreaterThan(MIN_COMPRESS_BYTES);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/Accept-Encoding/);

    const raw = async (encoding: string) => {
      // node:http keeps the bytes as sent (fetch would decode them).
      const { request } = await import('node:http');
      return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = request(
          `${api!.url}/api/transactions?limit=50`,
          { headers: { 'Accept-Encoding': encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res
              .on('data', (c: Buffer) => chunks.push(c))
              .on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject).end();
      });
    };
    const br = await raw('gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body)).toEqual(identity);
    expect(br.body.length).toBeLessThan(identity.length / 3);
    const gz = await raw('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body)).toEqual(identity);
    const etags = [plain.headers.get('etag'), br.headers['etag'], gz.headers['etag']];
    expect(new Set(etags).size).toBe(3);

    const revalidated = await fetch(`${api.url}/api/transactions?limit=50`, {
      headers: { 'Accept-Encoding': 'br', 'If-None-Match': String(br.headers['etag']), 'Cache-Control': 'max-age=0' },
    });
    expect(revalidated.status).toBe(304);
  });

  it('sends small bodies as they are', async () => {
    api = await startTestApi({ fixture, config: cached() });
    const res = await fetch(`${api.url}/api/tx-stats`, { headers: { 'Accept-Encoding': 'br, gzip' } });
    const body = await res.text();
    expect(body.length).toBeLessThan(MIN_COMPRESS_BYTES);
    expect(res.headers.get('content-encoding')).toBeNull();
  });
});
