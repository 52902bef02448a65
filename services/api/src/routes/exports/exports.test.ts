import { gunzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { createMemoryReadStore } from '@mtc/adapters';
import type { Collection, Doc, Filter, FindOptions, ReadStore } from '@mtc/ports';
import { COLLECTIONS } from '@mtc/read-models';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import {
  ALICE,
  BOB,
  address,
  badChecksum,
  createChain,
  GENESIS_TS,
  rawRequest,
  startTestApi,
  testConfig,
  type Chain,
  type TestApi,
} from '../../testing/harness.ts';

/**
 * The exports against the paged lists they export, on a chain of transfers, MRC-402 and MRC-400
 * holdings written as events and projected by the real projections; consistency at the starting
 * height is checked by writing blocks while an export is held between two pages.
 */
const WALLETS = Array.from({ length: 12 }, (_, i) => address(`holder-${i}`));
const NFT = `MRC402_${'d'.repeat(32)}0`;
const COLL = `MRC400_${'c'.repeat(32)}0`;
const ITEMS = Array.from({ length: 8 }, (_, i) => `${COLL}_${String(i).repeat(40).slice(0, 40)}`);
const CLOCK = (GENESIS_TS + 100_000) * 1000;

function fixture(): Chain {
  const chain = createChain();
  chain.openWallet(
    ALICE,
    [0, 1, 2].map((token) => ({ token, balance: '1000000000000000' })),
  );
  chain.openWallet(BOB, [{ token: 0, balance: '0' }]);
  for (const w of WALLETS) chain.openWallet(w, [{ token: 0, balance: '0' }]);
  chain.block([
    chain.registerToken({ token: 1, name: 'Silver', symbol: 'SLV', owner: ALICE, totalsupply: '1000000000000000' }),
    chain.createMrc402({ id: NFT, creator: ALICE, name: 'Gold', totalsupply: '1000' }),
    chain.createCollection({ id: COLL, owner: ALICE, name: 'Cats', image: 'https://img.example/cats.png' }),
  ]);
  chain.block([chain.createItems({ collection: COLL, owner: ALICE, items: ITEMS })]);
  WALLETS.forEach((w, i) => {
    chain.block([
      chain.transfer({ from: ALICE, to: w, amount: String(100 * (i + 1)), token: 1 }),
      chain.transfer({ from: ALICE, to: BOB, amount: '7', token: i % 3 }),
      chain.transferMrc402({ id: NFT, from: ALICE, to: w, amount: String(i + 1) }),
      ...(i < ITEMS.length ? [chain.transferItem({ item: ITEMS[i]!, from: ALICE, to: w })] : []),
    ]);
  });
  return chain;
}

/** Blocks after the fixture that change holdings ahead of any cursor: deletions, new holders, new amounts. */
function moveOn(chain: Chain): void {
  const last = WALLETS.at(-1)!;
  const newcomer = address('newcomer');
  chain.openWallet(newcomer, [{ token: 0, balance: '0' }]);
  chain.block([
    chain.transfer({ from: last, to: ALICE, amount: String(100 * WALLETS.length), token: 1 }),
    chain.transfer({ from: ALICE, to: newcomer, amount: '5', token: 1 }),
    chain.transfer({ from: ALICE, to: WALLETS[5]!, amount: '1', token: 1 }),
    chain.transferMrc402({ id: NFT, from: last, to: newcomer, amount: String(WALLETS.length) }),
    chain.transferItem({ item: ITEMS[7]!, from: WALLETS[7]!, to: newcomer }),
    chain.transferItem({ item: ITEMS[6]!, from: WALLETS[6]!, to: WALLETS[0]! }),
  ]);
}

interface Exported {
  status: number;
  headers: Headers;
  lines: string[];
}

async function exportOf(api: TestApi, path: string, init?: RequestInit): Promise<Exported> {
  const res = await fetch(`${api.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, lines: text.split('\n').filter((l) => l !== '') };
}

async function ndjson(api: TestApi, path: string) {
  const res = await exportOf(api, `${path}${path.includes('?') ? '&' : '?'}format=ndjson`);
  expect(res.status, res.lines[0]).toBe(200);
  const [meta, ...rows] = res.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { meta: meta!, rows, headers: res.headers };
}

/** Every item of a paged list, walking its pages until one comes back short. */
async function allPages<T>(api: TestApi, path: string, items: (body: never) => T[], limit: number): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await api.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=${limit}`);
    expect(status).toBe(200);
    const got = items(body as never);
    out.push(...got);
    if (got.length < limit) return out;
  }
}

const byAddress = <T extends { address: string }>(rows: T[]): T[] =>
  [...rows].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));

/** Every list an export mirrors, as the paged API gives it now (series oldest first, holders by address). */
async function listsNow(api: TestApi) {
  return {
    txs: (await allPages(api, '/api/transactions', (b: { transactions: object[] }) => b.transactions, 50)).reverse(),
    activity: (await allPages(api, `/api/address/${BOB}/txs`, (b: { data: object[] }) => b.data, 100)).reverse(),
    transfers: (await allPages(api, '/api/token/1/txs', (b: { data: object[] }) => b.data, 100)).reverse(),
    holders: byAddress(
      await allPages(api, '/api/token/1/holders', (b: { holders: { address: string }[] }) => b.holders, 100),
    ),
    mrc402: byAddress(
      await allPages(api, `/api/nft-holders?id=${NFT}`, (b: { holders: { address: string }[] }) => b.holders, 100),
    ),
    collection: byAddress(
      await allPages(api, `/api/nft-holders?id=${COLL}`, (b: { holders: { address: string }[] }) => b.holders, 100),
    ),
  };
}

async function exportsNow(api: TestApi, height: number) {
  return {
    txs: (await ndjson(api, `/api/export/txs?fromHeight=1&toHeight=${height}`)).rows,
    activity: (await ndjson(api, `/api/export/address/${BOB}/activity`)).rows,
    transfers: (await ndjson(api, '/api/export/token/1/transfers')).rows,
    holders: (await ndjson(api, '/api/export/token/1/holders')).rows,
    mrc402: (await ndjson(api, `/api/export/nft/${NFT}/holders`)).rows,
    collection: (await ndjson(api, `/api/export/nft/${COLL}/holders`)).rows,
  };
}

/**
 * A store whose export reads of one collection (keyset reads: a filter on `_id` or `seq`) can be
 * held: `hold()` makes the next such read wait until `release()`; `reads` counts them, and each
 * takes a turn of the event loop.
 */
function holdableStore(inner: ReadStore, collection: string, key: '_id' | 'seq') {
  let gate: { opened: Promise<void>; open: () => void } | null = null;
  let waiting: (() => void) | null = null;
  const state = {
    reads: 0,
    hold() {
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open };
    },
    /** Resolves once a read is waiting at the gate. */
    held: () => new Promise<void>((resolve) => (waiting = resolve)),
    release() {
      gate?.open();
      gate = null;
    },
  };
  const store: ReadStore = {
    ...inner,
    collection: <T extends Doc>(name: string): Collection<T> => {
      const c = inner.collection<T>(name);
      if (name !== collection) return c;
      return {
        ...c,
        get: (id) => c.get(id),
        getMany: (ids) => c.getMany(ids),
        count: (filter) => c.count(filter),
        async find(filter: Filter<T>, options?: FindOptions<T>) {
          if (key in filter) {
            state.reads++;
            // A read takes a turn of the event loop, as a real store's I/O does.
            await new Promise((resolve) => setImmediate(resolve));
            if (gate) {
              waiting?.();
              await gate.opened;
            }
          }
          return c.find(filter, options);
        },
      };
    },
  };
  return { store, state };
}

describe('exports', () => {
  let api: TestApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('gives, for each export kind, the rows of the paged list at the same height', async () => {
    const chain = fixture();
    api = await startTestApi({ fixture: chain, now: () => CLOCK, config: testConfig({ EXPORT_PAGE_ROWS: '3' }) });
    const lists = await listsNow(api);
    expect(lists.txs.length).toBe(chain.txCount);
    expect(lists.holders.length).toBeGreaterThan(WALLETS.length);
    expect(lists.mrc402.length).toBe(WALLETS.length + 1);
    expect(lists.collection.length).toBe(ITEMS.length);
    expect(await exportsNow(api, chain.height)).toEqual(lists);
    // The fixture's blocks are all on 2023-11-14; the clock is two days later.
    const days = await ndjson(api, '/api/export/stats/daily-txs?fromDate=2023-11-14');
    const stats = await api.get<{ history: object[] }>('/api/tx-stats?days=3');
    expect(days.rows).toEqual(stats.body.history);
    expect(days.rows.reduce((n, r) => n + (r['count'] as number), 0)).toBe(chain.txCount);
  });

  it('is gzip-compressed for a client that takes gzip, with the same rows, and plain for one that does not', async () => {
    const chain = fixture();
    api = await startTestApi({ fixture: chain, now: () => CLOCK, config: testConfig({ EXPORT_PAGE_ROWS: '3' }) });
    for (const path of ['/api/export/txs', '/api/export/token/1/holders?format=ndjson']) {
      const plain = await rawRequest(api.url, path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['vary']).toContain('Accept-Encoding');
      const gzipped = await rawRequest(api.url, path, { headers: { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' } });
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers['x-indexed-height']).toBe(plain.headers['x-indexed-height']);
      const rows = gunzipSync(gzipped.body).toString();
      expect(rows).toBe(plain.body.toString());
      expect(rows.split('\n').length).toBeGreaterThan(10);
      const refused = await rawRequest(api.url, path, { headers: { 'Accept-Encoding': 'gzip;q=0, identity' } });
      expect(refused.headers['content-encoding']).toBeUndefined();
    }
  });

  it('states the indexed height in a header and in the first line, in both formats', async () => {
    const chain = fixture();
    api = await startTestApi({ fixture: chain, headAt: chain.height - 2, now: () => CLOCK });
    const { meta, rows, headers } = await ndjson(api, '/api/export/token/1/transfers');
    expect(headers.get('x-indexed-height')).toBe(String(chain.height - 2));
    expect(headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(meta).toEqual({ indexed_height: chain.height - 2, export: 'token-1-transfers', token: 1 });
    // The two blocks past the head are projected but for the head: their rows are not exported.
    const listed = (await listsNow(api)).transfers as { block_sn: number }[];
    // The list pages by the series counters, which a batch writes before its head.
    expect(listed.some((r) => r.block_sn > chain.height - 2)).toBe(true);
    expect(rows).toEqual(listed.filter((r) => r.block_sn <= chain.height - 2));
    const csv = await exportOf(api, '/api/export/token/1/holders');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('x-indexed-height')).toBe(String(chain.height - 2));
    expect(csv.lines[0]).toBe(`# indexed_height=${chain.height - 2}`);
    expect(csv.lines[1]).toBe('address,balance,token,lock_balance,unlockdate,locks');
    expect(csv.lines).toContain(`${WALLETS[0]},100,1,0,0,[]`);
  });

  it('quotes CSV cells and writes arrays as compact JSON', async () => {
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 1, balance: '1000' }]);
    chain.openWallet(BOB, [{ token: 0, balance: '0' }]);
    const carol = address('carol');
    chain.openWallet(carol, [{ token: 0, balance: '0' }]);
    chain.block([chain.registerToken({ token: 1, name: 'Silver', symbol: 'SLV', owner: ALICE, totalsupply: '1000' })]);
    chain.block([
      chain.multiTransfer({
        from: ALICE,
        token: 1,
        to: [
          { address: BOB, amount: '1' },
          { address: carol, amount: '2' },
        ],
      }),
    ]);
    api = await startTestApi({ fixture: chain });
    const csv = await exportOf(api, '/api/export/token/1/transfers');
    const row = csv.lines.find((l) => l.startsWith('multi_transfer'))!;
    // Recipients in the order the node lists the receivers' entries: reverse key order.
    expect(row).toContain(`"[{""to"":""${carol}"",""amount"":""2""},{""to"":""${BOB}"",""amount"":""1""}]"`);
  });

  it('chooses the format from format=, else from Accept, else CSV', async () => {
    api = await startTestApi({ fixture: fixture() });
    const type = async (query: string, accept?: string) =>
      (
        await exportOf(api!, `/api/export/token/1/holders${query}`, accept ? { headers: { accept } } : undefined)
      ).headers.get('content-type');
    expect(await type('')).toMatch(/^text\/csv/);
    expect(await type('', 'application/x-ndjson')).toMatch(/^application\/x-ndjson/);
    expect(await type('', 'text/csv;q=0.5, application/x-ndjson;q=0.9')).toMatch(/^application\/x-ndjson/);
    expect(await type('?format=csv', 'application/x-ndjson')).toMatch(/^text\/csv/);
  });

  it('refuses an export over EXPORT_MAX_ROWS before any row, naming the count and the cap', async () => {
    const chain = fixture();
    api = await startTestApi({ fixture: chain, config: testConfig({ EXPORT_MAX_ROWS: '10' }) });
    for (const [path, rows] of [
      [`/api/export/txs?fromHeight=1`, chain.txCount],
      [`/api/export/address/${BOB}/activity`, WALLETS.length],
      // ALICE, the wallets and BOB (sent token 1 by every third transfer).
      ['/api/export/token/1/holders', WALLETS.length + 2],
      ['/api/export/stats/daily-txs?fromDate=2024-01-01&toDate=2024-01-11', 11],
    ] as const) {
      const res = await api.get<{ error: { code: string; message: string } }>(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error.code).toBe('bad_request');
      expect(res.body.error.message).toContain(`${rows} rows, over the limit of 10 (EXPORT_MAX_ROWS): narrow`);
    }
    // At the cap exactly, the export is whole.
    expect((await ndjson(api, '/api/export/txs?fromHeight=1&toHeight=3')).rows.length).toBeLessThanOrEqual(10);
  });

  it('takes any combination of bounds: all given ones apply, an empty range is an empty export', async () => {
    api = await startTestApi({ fixture: fixture() });
    const all = await ndjson(api, '/api/export/txs');
    expect(all.rows.length).toBeGreaterThan(0);
    expect(all.meta['fromHeight']).toBe(1);
    const byHeight = await ndjson(api, '/api/export/txs?fromHeight=2&toHeight=3');
    expect(byHeight.rows.length).toBeGreaterThan(0);
    expect(byHeight.rows.every((r) => (r['blockNum'] as number) >= 2 && (r['blockNum'] as number) <= 3)).toBe(true);
    // A time bound that every block meets changes nothing; one that none meets leaves nothing.
    expect((await ndjson(api, '/api/export/txs?fromHeight=2&toHeight=3&fromTime=0')).rows).toEqual(byHeight.rows);
    expect((await ndjson(api, '/api/export/txs?fromHeight=2&toHeight=3&toTime=0')).rows).toEqual([]);
    expect((await ndjson(api, '/api/export/txs?fromHeight=5&toHeight=4')).rows).toEqual([]);
    expect((await ndjson(api, '/api/export/stats/daily-txs?fromDate=2024-02-02&toDate=2024-02-01')).rows).toEqual([]);
  });

  it('exports a time range by the blocks in it, when block times run backwards', async () => {
    // Block times are the proposer's clock: block 4 is older than blocks 2 and 3.
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 0, balance: '1000000' }]);
    for (const w of WALLETS) chain.openWallet(w, [{ token: 0, balance: '0' }]);
    const times = [GENESIS_TS + 60, GENESIS_TS + 120, GENESIS_TS + 180, GENESIS_TS + 90, GENESIS_TS + 240];
    for (const [i, timestamp] of times.entries()) {
      chain.block([chain.transfer({ from: ALICE, to: WALLETS[i]!, amount: '1', token: 0 })], { timestamp });
    }
    const started = await startTestApi({ fixture: chain });
    api = started;
    const blocksOf = async (query: string) =>
      (await ndjson(started, `/api/export/txs?${query}`)).rows.map((r) => r['blockNum'] as number);
    // The newest block in the window (4) is not the one with its latest time (2), nor is the oldest.
    expect(await blocksOf(`fromTime=${GENESIS_TS + 80}&toTime=${GENESIS_TS + 150}`)).toEqual([2, 4]);
    expect(await blocksOf(`fromTime=${GENESIS_TS + 85}`)).toEqual([2, 3, 4, 5]);
    expect(await blocksOf(`toTime=${GENESIS_TS + 100}`)).toEqual([1, 4]);
    expect(await blocksOf(`fromTime=${GENESIS_TS + 80}&toTime=${GENESIS_TS + 150}&toHeight=3`)).toEqual([2]);
  });

  it('answers bad input with a 4xx JSON error', async () => {
    api = await startTestApi({ fixture: fixture() });
    const cases: [string, number, string][] = [
      ['/api/export/txs?fromHeight=x', 400, 'query.fromHeight'],
      ['/api/export/txs?fromHeight=1&fromHeight=2', 400, 'more than once'],
      ['/api/export/txs?fromHeight=1&format=xml', 400, 'query.format'],
      ['/api/export/txs?fromHeight=1&limit=5', 400, 'unknown parameter'],
      ['/api/export/address/MTnope/activity', 400, 'path.address'],
      [`/api/export/address/${BOB.toLowerCase()}/activity`, 400, 'path.address'],
      // Of the address form, with a CRC-32 that fails: no such address.
      [`/api/export/address/${badChecksum(BOB)}/activity`, 404, 'path.address: no such address'],
      [`/api/export/address/MT${'0'.repeat(38)}/activity`, 404, 'path.address: no such address'],
      [`/api/export/address/${address('nobody')}/activity`, 404, 'not found'],
      ['/api/export/token/99/holders', 404, 'not found'],
      ['/api/export/token/01/transfers', 400, 'path.id'],
      [`/api/export/nft/${ITEMS[0]}/holders`, 400, 'MRC-400 or MRC-402'],
      [`/api/export/nft/MRC402_${'e'.repeat(32)}0/holders`, 404, 'not found'],
      ['/api/export/stats/daily-txs', 400, 'query.fromDate'],
      ['/api/export/stats/daily-txs?fromDate=2024-02-30', 400, 'no such day'],
    ];
    for (const [path, status, says] of cases) {
      const res = await api.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      const { error } = ErrorBody.parse(res.body);
      expect(error.code, path).toBe(status === 404 ? 'not_found' : 'bad_request');
      expect(error.message, path).toContain(says);
    }
  });

  it('gives the rows as of the starting height while later blocks change the holders ahead of the cursor', async () => {
    for (const [collection, kind, path] of [
      [COLLECTIONS.holders, 'holders', '/api/export/token/1/holders'],
      [COLLECTIONS.nftHolders, 'mrc402', `/api/export/nft/${NFT}/holders`],
      [COLLECTIONS.collectionHolders, 'collection', `/api/export/nft/${COLL}/holders`],
    ] as const) {
      const chain = fixture();
      const held = holdableStore(createMemoryReadStore(), collection, '_id');
      api = await startTestApi({
        fixture: chain,
        store: held.store,
        now: () => CLOCK,
        config: testConfig({ EXPORT_PAGE_ROWS: '2' }),
      });
      const height = chain.height;
      const before = (await listsNow(api))[kind];
      // Hold the export at its first page of holder rows, move the chain on, then let it go.
      held.state.hold();
      const atGate = held.state.held();
      const pending = ndjson(api, path);
      await atGate;
      moveOn(chain);
      await api.project(chain);
      held.state.release();
      const { meta, rows } = await pending;
      expect(meta['indexed_height']).toBe(height);
      expect((await listsNow(api))[kind], kind).not.toEqual(before);
      expect(rows, kind).toEqual(before);
      await api.close();
      api = undefined;
    }
  });

  it('stops reading the store when the client goes away', async () => {
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 1, balance: '1000000' }]);
    chain.openWallet(BOB, [{ token: 0, balance: '0' }]);
    chain.block([
      chain.registerToken({ token: 1, name: 'Silver', symbol: 'SLV', owner: ALICE, totalsupply: '1000000' }),
    ]);
    for (let h = 0; h < 200; h++) chain.block([chain.transfer({ from: ALICE, to: BOB, amount: '1', token: 1 })]);
    const held = holdableStore(createMemoryReadStore(), COLLECTIONS.txs, 'seq');
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    api = await startTestApi({
      fixture: chain,
      store: held.store,
      logger: pino({ level: 'info' }, sink),
      config: testConfig({ EXPORT_PAGE_ROWS: '1' }),
    });
    held.state.hold();
    const atGate = held.state.held();
    const aborted = new AbortController();
    const res = await fetch(`${api.url}/api/export/txs?fromHeight=1&format=ndjson`, { signal: aborted.signal });
    expect(res.status).toBe(200);
    await atGate;
    aborted.abort();
    held.state.release();
    const ended = () => lines.find((l) => l.includes('"export ended"'));
    const deadline = Date.now() + 20_000;
    while (ended() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended()).toContain('"outcome":"client gone"');
    // 200 pages of one transaction: the export, now ended, read a few of them and not the rest.
    expect(held.state.reads).toBeLessThan(10);
  });
});
