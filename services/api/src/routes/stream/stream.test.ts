import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createFileEventLog } from '@mtc/adapters';
import type { BlockEvent } from '@mtc/domain';
import type { EventLog, ReadOptions, LogRecord } from '@mtc/ports';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, badChecksum, buildChain, startTestApi, testConfig, type TestApi } from '../../testing/harness.ts';
import { CAROL, OWNER, tokenEconomy } from '../../testing/token-economy.ts';
import { CAT_3, CATS, nftEconomy } from '../../testing/nft-economy.ts';
import type { AddressTxsPage } from '../addresses/schemas.ts';
import type { TokenTxsPage } from '../tokens/schemas.ts';
import { createStreamHub } from './hub.ts';
import { openSse, type SseClient } from './sse-client.ts';

const root = mkdtempSync(join(tmpdir(), 'mtc-stream-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const TOPIC = 'mtc.blocks.v3';

/** A file log in a fresh directory holding `events` as the follower publishes them (key = height). */
async function logOf(events: readonly BlockEvent[]): Promise<EventLog> {
  const log = createFileEventLog({ dir: join(root, `log-${dirs++}`), pollMs: 20 });
  await log.publish(
    TOPIC,
    events.map((e) => ({ key: String(e.height), value: e })),
  );
  return log;
}

/** The log, counting the readers it has running (a reader that was never stopped leaks). */
function countingReaders(log: EventLog): EventLog & { running: () => number } {
  let running = 0;
  return {
    ...log,
    running: () => running,
    async read(options: ReadOptions, handler: (batch: readonly LogRecord[]) => Promise<void>) {
      const sub = await log.read(options, handler);
      running++;
      let stopped = false;
      const once = () => {
        if (!stopped) running--;
        stopped = true;
      };
      void sub.done.then(once, once);
      return { done: sub.done, stop: async () => (await sub.stop(), once()) };
    },
  };
}

const silent = pino({ level: 'silent' });
const waitUntil = async (check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('GET /api/stream', () => {
  const apis: TestApi[] = [];
  const logs: EventLog[] = [];
  const clients: SseClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const a of apis.splice(0)) await a.close();
    for (const l of logs.splice(0)) await l.close();
  });

  const start = async (
    fixture: ReturnType<typeof buildChain>,
    options: { headAt?: number; env?: Record<string, string>; log?: EventLog } = {},
  ) => {
    const log = options.log ?? (await logOf(fixture.events));
    logs.push(log);
    const api = await startTestApi({
      fixture,
      ...(options.headAt === undefined ? {} : { headAt: options.headAt }),
      config: testConfig({ STREAM_HEAD_POLL_MS: '20', ...options.env }),
      events: { log, blockTopic: TOPIC },
    });
    apis.push(api);
    return { api, log };
  };
  const sse = async (url: string, headers: Record<string, string> = {}): Promise<SseClient> => {
    const client = await openSse(url, headers);
    clients.push(client);
    return client;
  };

  it('sends every block, then its transactions, in chain order with position ids, from after lastEventId', async () => {
    const chain = buildChain(6);
    const { api } = await start(chain);
    const client = await sse(`${api.url}/api/stream?lastEventId=0`);
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.headers.get('cache-control')).toBe('no-store');
    await client.until((events) => events.some((e) => e.id === '6'));
    // Block h holds h % 3 transfers (buildChain): the raw chain says which.
    const expected = chain.events.flatMap((b) => [
      `block@${b.height}`,
      ...b.txs.map((tx) => `tx@${b.height}:${tx.index}`),
    ]);
    expect(client.events.map((e) => `${e.event}@${e.id}`)).toEqual(expected);
    const block5 = chain.events[4]!;
    expect(client.events.find((e) => e.id === '5')!.data).toEqual({
      height: 5,
      hash: block5.hash,
      timestamp: block5.timestamp,
      txCount: 2,
    });
    const tx = block5.txs[1]!;
    expect(client.events.find((e) => e.id === '5:1')!.data).toEqual({
      id: tx.id,
      type: 'transfer',
      from: tx.summary.from,
      to: tx.summary.to,
      amount: '1000',
      token: tx.summary.token,
      blockNum: 5,
      blockTs: block5.timestamp,
    });
    expect(client.retry).toBe(2000);
  });

  it('starts at the next block without an id, and sends a block only once the read models hold it', async () => {
    const chain = buildChain(3);
    const { api, log } = await start(chain);
    const client = await sse(`${api.url}/api/stream`);
    // Blocks 4 and 5 reach the log; the index holds only block 4 at first.
    chain.block([]);
    chain.block([]);
    await log.publish(
      TOPIC,
      chain.events.slice(3).map((e) => ({ key: String(e.height), value: e })),
    );
    await api.project(chain, { headAt: 4 });
    await client.until((events) => events.some((e) => e.id === '4'));
    await new Promise((r) => setTimeout(r, 300)); // several head polls
    expect(client.events.map((e) => e.id)).toEqual(['4']);
    await api.project(chain);
    await client.until((events) => events.some((e) => e.id === '5'));
    expect(client.events.map((e) => e.id)).toEqual(['4', '5']);
  });

  it('resumes right after a Last-Event-ID inside a block, the header winning over the query', async () => {
    const chain = buildChain(5);
    const { api } = await start(chain);
    const client = await sse(`${api.url}/api/stream?lastEventId=1`, { 'Last-Event-ID': '2:0' });
    await client.until((events) => events.some((e) => e.id === '5'));
    expect(client.events.map((e) => e.id)).toEqual(['2:1', '3', '4', '4:0', '5', '5:0', '5:1']);
  });

  it("carries only the subscribed token's activity, as /api/token/{id}/txs lists it", async () => {
    const chain = tokenEconomy();
    const { api } = await start(chain);
    const client = await sse(`${api.url}/api/stream?token=1&lastEventId=0`);
    await client.until((events) => events.some((e) => e.id === String(chain.height)));
    const listed = await api.get<TokenTxsPage>('/api/token/1/txs?limit=100');
    const activity = client.events.filter((e) => e.event !== 'block');
    expect(activity.every((e) => e.event === 'token')).toBe(true);
    expect(activity).toHaveLength(9); // token 1's nine rows (see tokens/activity.test.ts)
    expect(activity.map((e) => e.data)).toEqual([...listed.body.data].reverse());
    expect(client.events.filter((e) => e.event === 'block')).toHaveLength(chain.height);
  });

  it("carries only the subscribed address's activity, as /api/address/{id}/txs lists it", async () => {
    const chain = tokenEconomy();
    const { api } = await start(chain);
    const client = await sse(`${api.url}/api/stream?address=${CAROL}&lastEventId=0`);
    await client.until((events) => events.some((e) => e.id === String(chain.height)));
    const listed = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?limit=100`);
    const activity = client.events.filter((e) => e.event !== 'block');
    expect(activity.length).toBeGreaterThan(0);
    expect(activity.every((e) => e.event === 'address')).toBe(true);
    // The list's rows without the names it looks up in the store; the stream adds the token id.
    expect(activity.map(({ data }) => ({ ...(data as object), tokenId: undefined }))).toEqual(
      [...listed.body.data].reverse().map(({ tokenName, tokenSymbol, parentName, ...row }) => {
        void [tokenName, tokenSymbol, parentName];
        return { ...row, tokenId: undefined };
      }),
    );
    expect(activity.map((e) => (e.data as { tokenId: number | null }).tokenId)).toContain(1);
  });

  it("carries only the subscribed asset's market: its trades as /api/market/trades lists them, its orders as written", async () => {
    const chain = nftEconomy();
    chain.openWallet(ALICE, [{ token: 0, balance: '1000' }]);
    chain.block([chain.buyItem({ item: CAT_3, buyer: ALICE })]);
    const { api } = await start(chain);
    const client = await sse(`${api.url}/api/stream?market=${CATS}&lastEventId=0`);
    await client.until((events) => events.some((e) => e.id === String(chain.height)));
    const market = client.events.filter((e) => e.event !== 'block');
    // The sale of CAT_3 (block 13 of the economy), then its purchase: the trade, then the offer closed.
    expect(market.map((e) => e.event)).toEqual(['order', 'trade', 'order']);
    const [offered, trade, closed] = market.map((e) => e.data as Record<string, unknown>);
    expect(offered).toMatchObject({ id: CAT_3, side: 'sell', status: 'open', owner: OWNER, price: '500', payToken: 0 });
    expect(trade).toMatchObject({ orderId: CAT_3, kind: 'sale', seller: OWNER, buyer: ALICE, value: '500' });
    expect(closed).toMatchObject({ id: CAT_3, side: 'sell', status: 'filled', owner: ALICE, price: '500' });
    const listed = await api.get<{ items: unknown[] }>(`/api/market/trades?asset=${CATS}`);
    expect(listed.body.items).toEqual([trade]);
    // Ids: the trade and the closed offer share their transaction, numbered in that order.
    const [, tradeId, closedId] = market.map((e) => e.id);
    expect(tradeId).toBe(`${chain.height}:0:0`);
    expect(closedId).toBe(`${chain.height}:0:1`);
  });

  it.each([
    ['an undeclared parameter', '?from=1', /query\.from: unknown parameter/],
    ['a repeated parameter', '?token=1&token=2', /query\.token: given more than once/],
    ['an address of the wrong form', `?address=${CAROL.toLowerCase()}`, /query\.address/],
    ['both filters', `?token=1&address=${CAROL}`, /one of address, token and market/],
    ['a market and a token', '?token=1&market=1', /one of address, token and market/],
    ['a market that is no asset', '?market=MRC401_x', /query\.market/],
    ['a lastEventId that is no position', '?lastEventId=abc', /query\.lastEventId/],
  ])('answers 400 JSON to %s', async (_, query, message) => {
    const { api } = await start(buildChain(2));
    const res = await api.get(`/api/stream${query}`);
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.message).toMatch(message);
  });

  // Of the form the OpenAPI pattern states, so not a bad request: an address that cannot exist.
  it.each([
    ['a wrong checksum', `?address=${badChecksum(CAROL)}`],
    ['the checksum schemathesis sent', `?address=MT${'0'.repeat(38)}`],
  ])('answers 404 JSON to an address of the right form with %s', async (_, query) => {
    const { api } = await start(buildChain(2));
    const res = await api.get(`/api/stream${query}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ErrorBody.parse(res.body).error).toEqual({
      code: 'not_found',
      message: expect.stringContaining('query.address: no such address') as unknown,
    });
  });

  it('answers 400 JSON to a Last-Event-ID header that is no position', async () => {
    const { api } = await start(buildChain(2));
    const res = await api.get('/api/stream', { headers: { 'Last-Event-ID': '12:x' } });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.message).toMatch(/Last-Event-ID/);
  });

  it('sends a heartbeat comment every STREAM_HEARTBEAT_MS while idle', async () => {
    const { api } = await start(buildChain(2), { env: { STREAM_HEARTBEAT_MS: '100' } });
    const client = await sse(`${api.url}/api/stream`);
    const deadline = Date.now() + 10_000;
    while (client.comments.filter((c) => c === 'heartbeat').length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(client.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3);
    expect(client.events).toEqual([]);
  });

  it('refuses a client over its connections with 429 and Retry-After, and frees the slot when one disconnects', async () => {
    const { api } = await start(buildChain(2), { env: { STREAM_MAX_PER_CLIENT: '2' } });
    const first = await sse(`${api.url}/api/stream`);
    await sse(`${api.url}/api/stream`);
    const refused = await api.get('/api/stream');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(ErrorBody.parse(refused.body).error.code).toBe('rate_limited');
    first.close();
    let again: Awaited<ReturnType<typeof openSse>> | undefined;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      again = await sse(`${api.url}/api/stream`);
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again?.status).toBe(200);
  });

  it('refuses connections over the total with 503 and Retry-After', async () => {
    const { api } = await start(buildChain(2), { env: { STREAM_MAX_CONNECTIONS: '1' } });
    await sse(`${api.url}/api/stream`);
    const refused = await api.get('/api/stream');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
  });
});

describe('createStreamHub', () => {
  const config = (env: Record<string, string> = {}) =>
    testConfig({ STREAM_HEAD_POLL_MS: '20', STREAM_TAIL_IDLE_MS: '0', ...env });
  /** A socket that reads all it is sent; `ids` are the ids of the events in it, in order. */
  const collecting = () => {
    let text = '';
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        text += chunk.toString();
        done();
      },
    });
    return Object.assign(sink, {
      ids: () => [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]!),
      /** Whether the stream began (the retry hint comes right before its start is read off the head). */
      began: () => text.startsWith('retry:'),
    });
  };
  /** Every event id of `events`' blocks, in chain order, as the unfiltered stream carries them. */
  const allIds = (events: readonly BlockEvent[]) =>
    events.flatMap((b) => [String(b.height), ...b.txs.map((tx) => `${b.height}:${tx.index}`)]);

  it('frees the slot, its reader and its timers when the client disconnects', async () => {
    const chain = buildChain(3);
    const log = countingReaders(await logOf(chain.events));
    const hub = createStreamHub({ log, topic: TOPIC, head: async () => 3, config: config(), logger: silent });
    const release = hub.admit('client');
    const sink = new Writable({ write: (_chunk, _enc, done) => done() });
    const serving = hub.serve(sink, { after: null, filter: { kind: 'all' } }).finally(release);
    await waitUntil(() => log.running() === 1, 'the reader to start');
    expect(hub.connections()).toBe(1);
    sink.destroy(); // the socket closing
    await serving;
    expect(hub.connections()).toBe(0);
    // The shared tail's reader stops STREAM_TAIL_IDLE_MS (here 0) after its last connection left.
    await waitUntil(() => log.running() === 0, 'the idle tail to stop');
    await hub.close();
    await log.close();
  });

  it('serves every live connection from one log reader, each block in order', async () => {
    const chain = buildChain(3);
    const log = countingReaders(await logOf(chain.events));
    let head = 3;
    const hub = createStreamHub({ log, topic: TOPIC, head: async () => head, config: config(), logger: silent });
    const sinks = Array.from({ length: 25 }, collecting);
    let most = 0;
    const counting = setInterval(() => (most = Math.max(most, log.running())), 5);
    const serving = sinks.map((sink) => hub.serve(sink, { after: null, filter: { kind: 'all' } }));
    // Each starts at the next block past the head it read (3), before blocks 4-6 arrive.
    await waitUntil(() => sinks.every((s) => s.began()), 'every stream to begin');
    for (let i = 0; i < 3; i++) chain.block([]);
    const more = chain.events.slice(3);
    await log.publish(
      TOPIC,
      more.map((e) => ({ key: String(e.height), value: e })),
    );
    head = chain.height;
    const expected = allIds(more);
    await waitUntil(() => sinks.every((s) => s.ids().length === expected.length), 'every connection to get blocks 4-6');
    clearInterval(counting);
    for (const sink of sinks) expect(sink.ids()).toEqual(expected);
    expect(Math.max(most, log.running())).toBe(1);
    for (const sink of sinks) sink.destroy();
    await Promise.all(serving);
    await hub.close();
    await log.close();
  });

  it('catches a connection far behind up with a reader of its own, then moves it onto the tail', async () => {
    const chain = buildChain(40);
    const log = countingReaders(await logOf(chain.events));
    let head = 40;
    const hub = createStreamHub({
      log,
      topic: TOPIC,
      head: async () => head,
      config: config({ STREAM_TAIL_BLOCKS: '5' }),
      logger: silent,
    });
    const sink = collecting();
    const serving = hub.serve(sink, { after: [0], filter: { kind: 'all' } });
    await waitUntil(() => sink.ids().includes('40'), 'block 40');
    // Caught up: its own reader stopped once the tail held its next block, the tail's runs on.
    await waitUntil(() => log.running() === 1, 'the catch-up reader to stop');
    chain.block([]);
    chain.block([]);
    await log.publish(
      TOPIC,
      chain.events.slice(40).map((e) => ({ key: String(e.height), value: e })),
    );
    head = 42;
    await waitUntil(() => sink.ids().includes('42'), 'blocks 41 and 42 from the tail');
    expect(sink.ids()).toEqual(allIds(chain.events));
    expect(log.running()).toBe(1);
    sink.destroy();
    await serving;
    await hub.close();
    await log.close();
  });

  it('drops a client that stops reading once its buffer stays full, holding no more than the buffer', async () => {
    const chain = buildChain(300, () => 3);
    const log = countingReaders(await logOf(chain.events));
    const hub = createStreamHub({
      log,
      topic: TOPIC,
      head: async () => 300,
      config: config({ STREAM_BUFFER_BYTES: '4096', STREAM_SLOW_CLIENT_MS: '200' }),
      logger: silent,
    });
    let written = 0;
    let most = 0;
    // A client that never reads: nothing written ever completes.
    const sink = new Writable({ highWaterMark: 1024, write: () => {} });
    const write = sink.write.bind(sink);
    const counted = Object.assign(sink, {
      write: (chunk: string) => {
        written += chunk.length;
        const ok = write(chunk);
        most = Math.max(most, sink.writableLength);
        return ok;
      },
    });
    await hub.serve(counted, { after: [0], filter: { kind: 'all' } });
    expect(sink.destroyed).toBe(true);
    await waitUntil(() => log.running() === 0, 'every reader to stop');
    // The buffer, plus the one event that passed it: far below the 300 blocks' worth.
    expect(most).toBeLessThan(4096 + 1024);
    expect(written).toBe(most);
    await hub.close();
    await log.close();
  });
});
