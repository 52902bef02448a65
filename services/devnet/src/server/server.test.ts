import { RawBlock, RawHeight, RawTransaction } from '@mtc/domain';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDevnet, type Devnet } from '../chain/devnet.ts';
import { startDevnetServer, type DevnetServer } from './server.ts';

const options = { seed: 77, genesisTime: 1_700_000_000, historyBlocks: 60, blockIntervalSec: 10 };

describe('startDevnetServer', () => {
  let devnet: Devnet;
  let server: DevnetServer;

  beforeAll(async () => {
    devnet = createDevnet(options);
    server = await startDevnetServer(devnet, { port: 0 });
  });
  afterAll(() => server.close());

  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  it('answers GET /block and /block/ with the height as bare digits in text/html', async () => {
    for (const path of ['/block', '/block/']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-metacoin-node')).toBe('v2.2.0');
      const body = await res.text();
      expect(body).toBe(String(devnet.height()));
      expect(RawHeight.parse(body)).toBe(60);
    }
  });

  it('serves a block by number with keys in node order and sn as a string', async () => {
    const res = await get('/block/12');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^\{"id":"[0-9a-f]{64}","sn":"12","transaction":\[.*\],"timestamp":\d+\}$/);
    expect(RawBlock.parse(JSON.parse(text))).toEqual(devnet.block(12));
  });

  it('serves a block by its 64-hex data_hash, and pads numbers like the node', async () => {
    const block = devnet.block(9)!;
    expect(await (await get(`/block/${block.id}`)).json()).toEqual(block);
    expect(await (await get('/block/009')).json()).toEqual(block);
  });

  it("answers 404 with the node's plain-text messages for unknown and malformed blocks", async () => {
    const unknown = await get('/block/999');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('Block 999 not found');
    const hash = 'ab'.repeat(32);
    expect(await (await get(`/block/${hash}`)).text()).toBe(`Block ${hash} not found`);
    const bad = await get('/block/latest');
    expect(bad.status).toBe(404);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await bad.text()).toBe('Block is must be numeric or 64 bytes id');
  });

  it('serves a transaction as the JSON array of its entries', async () => {
    const txId = devnet.block(1)!.transaction[5]!.id;
    const res = await get(`/transaction/${txId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const entries = RawTransaction.parse(JSON.parse(await res.text()));
    expect(entries).toEqual(devnet.transaction(txId));
    expect(entries[0]!.type).toBe('tokenRegister');
  });

  it('answers 412 with the bridge message for an unknown transaction', async () => {
    const res = await get(`/transaction/${'0'.repeat(64)}`);
    expect(res.status).toBe(412);
    expect(await res.text()).toMatch(/^chaincode error .*Failed to get block for txID 0{64}/);
  });

  it("answers Express' HTML 404 page for unknown paths and methods", async () => {
    const res = await get('/nope?x=1');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-metacoin-node')).toBeNull();
    expect(await res.text()).toContain('<pre>Cannot GET /nope</pre>');
    const post = await get('/block', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.text()).toContain('Cannot POST /block');
  });

  it("does not serve the node's write-ish GET routes", async () => {
    for (const path of ['/mrc401/auctionfinish/x', '/mrc402/auctionfinish/x', '/mrc030/finish/x']) {
      expect((await get(path)).status).toBe(404);
    }
  });

  it('serves the world state on the devnet-only /debug/state route as JSON', async () => {
    const res = await get('/debug/state');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(devnet.worldState());
  });

  it('keeps connections alive', async () => {
    const res = await get('/block/3');
    expect(res.headers.get('connection')).toBe('keep-alive');
    await res.text();
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const res = await get('/block/3', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(JSON.stringify(devnet.block(3)).length));
    expect(await res.text()).toBe('');
  });

  it('sends a weak ETag and answers 304 when the client already has the body', async () => {
    const first = await get('/block/4');
    const tag = first.headers.get('etag')!;
    await first.text();
    expect(tag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect((await get('/block/4', { headers: { 'if-none-match': tag } })).status).toBe(304);
  });

  it('sees blocks cut after it started', async () => {
    devnet.cutBlock(2_000_000_000);
    expect(await (await get('/block')).text()).toBe(String(devnet.height()));
  });
});

describe('startDevnetServer with faults and live blocks', () => {
  it('answers 412 "MTC Server connection error" to the configured share of node requests', async () => {
    const server = await startDevnetServer(createDevnet(options), { faultRate: 1 });
    try {
      const res = await fetch(`${server.url}/block/1`);
      expect(res.status).toBe(412);
      expect(await res.text()).toBe('MTC Server connection error');
      expect((await fetch(`${server.url}/debug/state`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('cuts live blocks on its interval and stops when closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const devnet = createDevnet(options);
      const server = await startDevnetServer(devnet, { liveIntervalMs: 1_000 });
      vi.advanceTimersByTime(3_000);
      expect(devnet.height()).toBe(63);
      await server.close();
      vi.advanceTimersByTime(5_000);
      expect(devnet.height()).toBe(63);
    } finally {
      vi.useRealTimers();
    }
  });
});
