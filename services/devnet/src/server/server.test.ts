import { RawBlock, RawHeight, RawTransaction } from '@mtc/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDevnet, type Devnet } from '../chain/devnet.ts';
import type { FaultKind } from './faults.ts';
import { startDevnetServer, type DevnetServer, type DevnetServerOptions } from './server.ts';

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

  it('serves NFT images at /images/<name>.png|jpg: the type the extension names, the same bytes for the same name', async () => {
    const png = await get('/images/aB3xYz.png');
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngBytes = Buffer.from(await png.arrayBuffer());
    expect(pngBytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(Number(png.headers.get('content-length'))).toBe(pngBytes.length);
    expect(Buffer.from(await (await get('/images/aB3xYz.png')).arrayBuffer())).toEqual(pngBytes);
    expect(Buffer.from(await (await get('/images/other.png')).arrayBuffer())).not.toEqual(pngBytes);

    const jpg = await get('/images/aB3xYz.jpg');
    expect(jpg.status).toBe(200);
    expect(jpg.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await jpg.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    for (const path of ['/images/aB3xYz.gif', '/images/../block.png', '/images/a_b.png'])
      expect((await get(path)).status, path).toBe(404);
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
  /** A server that fails every node request with one of `kinds`; closed after the test. */
  const faulty = async (kinds: FaultKind[] | undefined, extra: Partial<DevnetServerOptions> = {}) => {
    const devnet = createDevnet(options);
    const server = await startDevnetServer(devnet, { faultRate: 1, ...(kinds && { faultKinds: kinds }), ...extra });
    servers.push(server);
    return { devnet, url: server.url, server };
  };
  const servers: DevnetServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it("answers with the real node's own transient failures by default: height 0, tx not found, block not found", async () => {
    const { devnet, url } = await faulty(undefined);
    const height = await fetch(`${url}/block`);
    expect(height.status).toBe(200);
    expect(height.headers.get('x-metacoin-node')).toBe('v2.2.0');
    expect(await height.text()).toBe('0');
    const txId = devnet.block(1)!.transaction[0]!.id;
    const tx = await fetch(`${url}/transaction/${txId}`);
    expect(tx.status).toBe(404);
    expect(await tx.text()).toBe(`Transaction ${txId} not found`);
    const block = await fetch(`${url}/block/3`);
    expect(block.status).toBe(404);
    expect(await block.text()).toBe('Block 3 not found');
    expect((await fetch(`${url}/debug/state`)).status).toBe(200);
  });

  it('keeps a block it answered missing missing for faultBlockMissingMs, then serves it again', async () => {
    const { devnet, url } = await faulty(['block-missing'], { faultRate: 0.5, faultBlockMissingMs: 300 });
    // Fault draws continue after the window; keep asking until the block is missing once.
    let askedAt = Date.now();
    let first = await fetch(`${url}/block/4`);
    while (first.status === 200) {
      askedAt = Date.now();
      first = await fetch(`${url}/block/4`);
    }
    expect(await first.text()).toBe('Block 4 not found');
    const hiddenAt = askedAt;
    // Within the window every request is answered 404 without a new draw.
    for (let i = 0; i < 5 && Date.now() - hiddenAt < 200; i++) expect((await fetch(`${url}/block/4`)).status).toBe(404);
    let again = await fetch(`${url}/block/4`);
    while (again.status !== 200) again = await fetch(`${url}/block/4`);
    expect(Date.now() - hiddenAt).toBeGreaterThanOrEqual(300);
    expect(await again.json()).toEqual(devnet.block(4));
  });

  it('answers 500 and 502 from the proxy with its short HTML page and no node header', async () => {
    for (const [kind, status, title] of [
      ['proxy-500', 500, '500 Internal Server Error'],
      ['proxy-502', 502, '502 Bad Gateway'],
    ] as const) {
      const { url } = await faulty([kind]);
      const res = await fetch(`${url}/block/1`);
      expect(res.status).toBe(status);
      expect(res.headers.get('x-metacoin-node')).toBeNull();
      expect(res.headers.get('server')).toBe('nginx');
      expect(await res.text()).toContain(`<title>${title}</title>`);
    }
  });

  it('leaves a request unanswered for faultTimeoutMs, longer than a client waits', async () => {
    const { devnet, url } = await faulty(['timeout'], { faultTimeoutMs: 400 });
    await expect(fetch(`${url}/block`, { signal: AbortSignal.timeout(100) })).rejects.toThrow(/timeout|aborted/i);
    const started = Date.now();
    const patient = await fetch(`${url}/block`);
    expect(await patient.text()).toBe(String(devnet.height()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('sends the headers at once and the body slowly over faultSlowBodyMs', async () => {
    const { devnet, url } = await faulty(['slow-body'], { faultSlowBodyMs: 400 });
    const started = Date.now();
    const res = await fetch(`${url}/block/5`);
    const headersAfter = Date.now() - started;
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(Date.now() - started - headersAfter).toBeGreaterThanOrEqual(250);
    expect(JSON.parse(body)).toEqual(devnet.block(5));
  });

  it('cuts a JSON body short, with framing that matches what is sent', async () => {
    const { devnet, url } = await faulty(['truncated-json']);
    const full = JSON.stringify(devnet.block(6));
    const res = await fetch(`${url}/block/6`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(body.length).toBeLessThan(full.length);
    expect(full.startsWith(body)).toBe(true);
    expect(() => JSON.parse(body) as unknown).toThrow();
    // The height is not JSON: it is never truncated.
    expect(await (await fetch(`${url}/block`)).text()).toBe(String(devnet.height()));
  });

  it('resets the connection without an answer', async () => {
    const { url } = await faulty(['reset']);
    await expect(fetch(`${url}/block/1`)).rejects.toThrow(/fetch failed/);
  });

  it('meets the same faults for the same requests in the same order when seeded alike', async () => {
    const kinds: FaultKind[] = ['height-zero', 'proxy-500', 'proxy-502'];
    const statuses = async () => {
      const { url } = await faulty(kinds, { faultRate: 0.5, faultSeed: 7 });
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${url}/block`);
        out.push(`${res.status}:${(await res.text()).slice(0, 20)}`);
      }
      return out;
    };
    const first = await statuses();
    expect(await statuses()).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(2);
  });

  it('counts each answer it altered by kind, and serves the counts on /debug/faults', async () => {
    const { devnet, url, server } = await faulty(['tx-not-found', 'truncated-json'], { faultRate: 0.5, faultSeed: 3 });
    const txId = devnet.block(1)!.transaction[0]!.id;
    const seen = { 'tx-not-found': 0, 'truncated-json': 0 };
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${url}/transaction/${txId}`);
      const body = await res.text();
      if (res.status === 404) seen['tx-not-found']++;
      else if (body !== devnet.transactionJson(txId)) seen['truncated-json']++;
    }
    expect(seen['tx-not-found']).toBeGreaterThan(0);
    expect(seen['truncated-json']).toBeGreaterThan(0);
    expect(server.faultCounts()).toMatchObject({ ...seen, reset: 0, 'height-zero': 0 });
    // The height route has neither kind: nothing altered, nothing counted.
    for (let i = 0; i < 10; i++) await fetch(`${url}/block`);
    const report = (await (await fetch(`${url}/debug/faults`)).json()) as Record<string, unknown>;
    expect(report).toMatchObject({ rate: 0.5, kinds: ['tx-not-found', 'truncated-json'], seed: 3, injected: seen });
  });

  it('hides a block on purpose whatever the rate: from the first request once the chain has it, until revealed', async () => {
    const { devnet, url, server } = await faulty(undefined, { faultRate: 0 });
    const next = devnet.height() + 1;
    server.hideBlock(next);
    // Not cut yet: the node's ordinary miss, not a fault.
    expect((await fetch(`${url}/block/${next}`)).status).toBe(404);
    expect(server.faultCounts()['block-missing']).toBe(0);
    devnet.cutBlock();
    expect(await (await fetch(`${url}/block`)).text()).toBe(String(next));
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/block/${next}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(`Block ${next} not found`);
    }
    expect((await fetch(`${url}/block/${devnet.block(next)!.id}`)).status).toBe(404);
    expect(server.faultCounts()['block-missing']).toBe(4);
    expect((await fetch(`${url}/block/${next - 1}`)).status).toBe(200);
    server.revealBlock(next);
    expect(await (await fetch(`${url}/block/${next}`)).json()).toEqual(devnet.block(next));
  });

  it('hides faultHideBlock for faultHideBlockMs from the first request for it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { devnet, url } = await faulty(undefined, { faultRate: 0, faultHideBlock: 5, faultHideBlockMs: 30_000 });
      vi.setSystemTime(Date.now() + 60_000);
      expect((await fetch(`${url}/block/5`)).status).toBe(404);
      vi.setSystemTime(Date.now() + 29_999);
      expect((await fetch(`${url}/block/5`)).status).toBe(404);
      vi.setSystemTime(Date.now() + 1);
      expect(await (await fetch(`${url}/block/5`)).json()).toEqual(devnet.block(5));
    } finally {
      vi.useRealTimers();
    }
  });

  it('closes promptly with a request still held by a timeout fault', async () => {
    const { url, server } = await faulty(['timeout'], { faultTimeoutMs: 60_000 });
    const held = fetch(`${url}/block`).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(async () => {
      // The request has reached the server once closing cuts it off.
      const res = await fetch(`${url}/debug/state`);
      expect(res.status).toBe(200);
    });
    servers.splice(servers.indexOf(server), 1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await held).toBe('failed');
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
