import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, BOB, buildChain, rawRequest, startTestApi, testConfig, type TestApi } from './testing/harness.ts';

/** The caches on, as in production. */
const cached = () => testConfig({ API_HEAD_CACHE_MS: '10000', API_RESPONSE_CACHE_MB: '8' });

const fixture = buildChain(30);
let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** One request as its bytes arrive, headers by lower-case name as text. */
async function raw(base: string, path: string, headers: Record<string, string>, method = 'GET') {
  const answer = await rawRequest(base, path, { method, headers });
  return { ...answer, headers: Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k, String(v)])) };
}

const without = (headers: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));

describe('held answers sent before routing', () => {
  it('send the bytes and headers the routed way sends, for every kind of answer and request', async () => {
    api = await startTestApi({ fixture, config: cached() });
    const tx = fixture.txs[4]!.id;
    const paths = [
      '/api/chain',
      '/api/blocks',
      '/api/transactions?page=2&limit=5',
      '/api/tx-stats',
      '/api/block/3',
      `/api/tx/${tx}`,
      `/api/address/${ALICE}`,
      `/api/address/${BOB}/txs`,
      '/api/tokens',
    ];
    const variants: Record<string, string>[] = [
      {},
      { 'Accept-Encoding': 'gzip, deflate, br' },
      { 'Accept-Encoding': 'gzip' },
      { Origin: 'https://explorer.example' },
      { 'X-Request-Id': 'client-chosen-42' },
    ];
    const compressed = new Set<string>();
    let heldBefore = api.heldServed();
    for (const path of paths) {
      for (const headers of variants) {
        // An ETag that matches nothing: the routed way answers it, as a plain 200.
        const routed = await raw(api.url, path, { ...headers, 'If-None-Match': '"none"' });
        expect(routed.status, path).toBe(200);
        expect(api.heldServed()).toBe(heldBefore);
        const held = await raw(api.url, path, headers);
        expect(api.heldServed(), `${path} ${JSON.stringify(headers)} was answered before routing`).toBe(heldBefore + 1);
        heldBefore = api.heldServed();
        expect(held.status).toBe(200);
        expect(held.body.equals(routed.body), path).toBe(true);
        const ignored = ['date', ...(headers['X-Request-Id'] ? [] : ['x-request-id'])];
        if (held.headers['content-encoding']) compressed.add(held.headers['content-encoding']);
        expect(without(held.headers, ...ignored), `${path} ${JSON.stringify(headers)}`).toEqual(
          without(routed.headers, ...ignored),
        );
        expect(held.headers['x-request-id']).toMatch(headers['X-Request-Id'] ?? /^[0-9a-f-]{36}$/);
      }
    }
    expect([...compressed].sort()).toEqual(['br', 'gzip']);
  });

  it('name the indexed head for answers that never change, and never serve an answer of an older head', async () => {
    api = await startTestApi({ fixture, headAt: 20, config: testConfig({ API_RESPONSE_CACHE_MB: '8' }) });
    const paths = ['/api/block/3', '/api/blocks'];
    for (const path of paths) expect((await raw(api.url, path, {})).headers['x-indexed-height']).toBe('20');
    await api.project(fixture); // blocks 21 … 30 get their head
    const before = api.heldServed();
    for (const path of paths) {
      // Every request reads the head (API_HEAD_CACHE_MS=0): none may be answered before routing.
      const after = await raw(api.url, path, {});
      expect(after.headers['x-indexed-height'], path).toBe('30');
    }
    expect(api.heldServed()).toBe(before);
  });

  it('name the indexed head for a block or transaction held since an older head', async () => {
    api = await startTestApi({
      fixture,
      headAt: 20,
      config: testConfig({ API_RESPONSE_CACHE_MB: '8', API_HEAD_CACHE_MS: '100' }),
    });
    expect((await raw(api.url, '/api/block/3', {})).headers['x-indexed-height']).toBe('20');
    await api.project(fixture);
    await new Promise((r) => setTimeout(r, 150));
    await raw(api.url, '/api/blocks', {}); // reads the head anew
    const before = api.heldServed();
    const held = await raw(api.url, '/api/block/3', {});
    expect(api.heldServed()).toBe(before + 1);
    expect(held.headers['x-indexed-height']).toBe('30');
  });

  it('leave conditional requests, HEAD, and encodings not negotiated yet to the routed way', async () => {
    api = await startTestApi({ fixture, config: cached() });
    const first = await raw(api.url, '/api/blocks', {});
    const before = api.heldServed();
    const notModified = await raw(api.url, '/api/blocks', { 'If-None-Match': first.headers['etag']! });
    expect(notModified.status).toBe(304);
    expect((await raw(api.url, '/api/blocks', {}, 'HEAD')).status).toBe(200);
    const odd = await raw(api.url, '/api/blocks', { 'Accept-Encoding': 'deflate, gzip' });
    expect(odd.headers['content-encoding']).toBe('gzip');
    expect(api.heldServed()).toBe(before);
    // Once negotiated and compressed, that encoding is held too.
    await raw(api.url, '/api/blocks', { 'Accept-Encoding': 'deflate, gzip' });
    expect(api.heldServed()).toBe(before + 1);
  });
});
