import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryReadStore } from '@mtc/adapters';
import { addressChecksum, type RawBlock, type RawEntry, type RawTransaction } from '@mtc/domain';
import type { ChainSource, Collection, Counters, Doc, Filter, FindOptions, ReadStore, Write } from '@mtc/ports';
import {
  COLLECTIONS,
  HEAD_ID,
  type BlockDoc,
  type DailyTxDoc,
  type HeadDoc,
  type TokenDoc,
  type TxDoc,
  type WalletDoc,
} from '@mtc/read-models';
import { pino } from 'pino';
import { createApiApp } from '../app.ts';
import { ApiConfigSchema, type ApiConfig } from '../config.ts';

/**
 * Test support for the API: a small consistent chain (read-model documents plus the node's raw
 * shapes), fakes of the Counters and ChainSource ports, and an app on an ephemeral port.
 */

export const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A valid Metacoin address (its CRC-32 checks) derived from `seed`. */
export function address(seed: string): string {
  const body = `${seed.replace(/[^A-Za-z0-9]/g, '')}${'x'.repeat(30)}`.slice(0, 30);
  return `MT${body}${addressChecksum(body)}`;
}

export const GENESIS_TS = 1_700_000_000;
export const ALICE = address('alice');
export const BOB = address('bob');

export interface ChainFixture {
  head: HeadDoc;
  blocks: BlockDoc[];
  txs: TxDoc[];
  rawBlocks: Map<string, RawBlock>;
  rawTxs: Map<string, RawTransaction>;
}

/** A transfer as the node serves it: the sender's and the receiver's wallet writes, in reverse key order. */
export function transferEntries(
  id: string,
  height: number,
  blockHash: string,
  timestamp: number,
  token: number,
): RawEntry[] {
  const params = [ALICE, BOB, '1000', String(token), 'memo', '', '', ''];
  const wallet = (key: string, type: string): RawEntry => ({
    timestamp,
    id,
    parameters: params,
    token: '',
    type,
    values: { id: key, job_type: type, jobdate: timestamp, balance: [], mrc402: null },
    validationCode: 0,
    address: key,
    datakey: key,
    db_id: blockHash,
    db_sn: String(height),
  });
  return [wallet(BOB, 'receive'), wallet(ALICE, 'transfer')];
}

/**
 * Blocks 1 … `height`, block h at GENESIS_TS + 60·h with `txsIn(h)` transfers, each 10 s after its
 * block's time (so a transaction's own timestamp differs from its block's). Transfers name token
 * `tokenOf(seq)`.
 */
export function buildChain(
  height: number,
  txsIn: (h: number) => number = (h) => h % 3,
  tokenOf: (seq: number) => number = (seq) => seq % 3,
): ChainFixture {
  const blocks: BlockDoc[] = [];
  const txs: TxDoc[] = [];
  const rawBlocks = new Map<string, RawBlock>();
  const rawTxs = new Map<string, RawTransaction>();
  let seq = 0;
  for (let h = 1; h <= height; h++) {
    const blockHash = hash(`block:${h}`);
    const timestamp = GENESIS_TS + 60 * h;
    const refs: { id: string; timestamp: number }[] = [];
    for (let i = 0; i < txsIn(h); i++) {
      const id = hash(`tx:${h}:${i}`);
      const ts = timestamp + 10 * i + 10;
      const token = tokenOf(seq);
      const entries = transferEntries(id, h, blockHash, ts, token);
      refs.push({ id, timestamp: ts });
      rawTxs.set(id, entries);
      txs.push({
        _id: id,
        seq,
        height: h,
        index: i,
        timestamp: ts,
        valid: true,
        summary: { type: 'transfer', from: ALICE, to: BOB, amount: '1000', token: String(token) },
        entries,
      });
      seq++;
    }
    blocks.push({ _id: String(h), height: h, hash: blockHash, timestamp, txCount: refs.length, txs: refs });
    rawBlocks.set(String(h), { id: blockHash, sn: String(h), transaction: refs, timestamp });
    rawBlocks.set(blockHash, { id: blockHash, sn: String(h), transaction: refs, timestamp });
  }
  const last = blocks.at(-1);
  const head: HeadDoc = {
    _id: HEAD_ID,
    pos: String(height).padStart(12, '0'),
    height,
    hash: last?.hash ?? '',
    timestamp: last?.timestamp ?? 0,
    txCount: seq,
  };
  return { head, blocks, txs, rawBlocks, rawTxs };
}

export function tokenDoc(token: number, name: string, symbol: string, decimal = 8): TokenDoc {
  return {
    _id: String(token),
    pos: '0',
    token,
    id: String(token),
    owner: ALICE,
    name,
    symbol,
    type: '010',
    decimal,
    createdate: GENESIS_TS,
    totalsupply: '1000000',
    reservedamount: '0',
    remainamount: '0',
    burnningamount: '0',
    softcap: '0',
    hardcap: '0',
    url: '',
    information: '',
    image: '',
    status: 'normal',
    nameKey: name.toLowerCase(),
    symbolKey: symbol.toLowerCase(),
  };
}

export function walletDoc(addr: string): WalletDoc {
  return { _id: addr, pos: '0', regdate: GENESIS_TS, addinfo: '', balances: [], mrc402: null };
}

export function dailyDoc(date: string, count: number): DailyTxDoc {
  return { _id: date, pos: '0', count };
}

export async function seed(
  store: ReadStore,
  docs: {
    chain?: ChainFixture;
    /** Leave the head out, as before anything is indexed. */
    withoutHead?: boolean;
    tokens?: TokenDoc[];
    wallets?: WalletDoc[];
    daily?: DailyTxDoc[];
  },
): Promise<void> {
  const writes: Write[] = [];
  const put = (collection: string, doc: { _id: string }): void => void writes.push({ op: 'put', collection, doc });
  for (const b of docs.chain?.blocks ?? []) put(COLLECTIONS.blocks, b);
  for (const t of docs.chain?.txs ?? []) put(COLLECTIONS.txs, t);
  if (docs.chain && !docs.withoutHead) put(COLLECTIONS.head, docs.chain.head);
  for (const t of docs.tokens ?? []) put(COLLECTIONS.tokens, t);
  for (const w of docs.wallets ?? []) put(COLLECTIONS.wallets, w);
  for (const d of docs.daily ?? []) put(COLLECTIONS.dailyTx, d);
  await store.write(writes);
}

/** A ChainSource over fixed data; `down` makes every call fail like an unreachable node. */
export interface FakeChain extends ChainSource {
  nodeHeight: number;
  down: boolean;
  calls: { height: number; block: number; transaction: number };
  /** Most transaction calls in flight at once. */
  maxInFlight: number;
}

export class FakeNodeError extends Error {
  override name = 'NodeError';
  readonly retryable = true;
}

export function fakeChain(fixture: ChainFixture | null, nodeHeight = fixture?.head.height ?? 0): FakeChain {
  let inFlight = 0;
  const fail = (): never => {
    throw new FakeNodeError('connect ECONNREFUSED 127.0.0.1:20922');
  };
  const chain: FakeChain = {
    nodeHeight,
    down: false,
    calls: { height: 0, block: 0, transaction: 0 },
    maxInFlight: 0,
    async height() {
      chain.calls.height++;
      if (chain.down) fail();
      return chain.nodeHeight;
    },
    async block(id) {
      chain.calls.block++;
      if (chain.down) fail();
      return structuredClone(fixture?.rawBlocks.get(String(id)) ?? null);
    },
    async transaction(txId) {
      chain.calls.transaction++;
      if (chain.down) fail();
      inFlight++;
      chain.maxInFlight = Math.max(chain.maxInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return structuredClone(fixture?.rawTxs.get(txId) ?? null);
    },
  };
  return chain;
}

/** Counters that answer `count(from, to)` and record every call. */
export function fakeCounters(count: (fromTs: number, toTs: number) => number = () => 0): Counters & {
  calls: [number, number][];
} {
  const calls: [number, number][] = [];
  return {
    calls,
    async addBlockTxs() {},
    async txCountBetween(fromTs, toTs) {
      calls.push([fromTs, toTs]);
      return count(fromTs, toTs);
    },
    async close() {},
  };
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface StoreCall {
  collection: string;
  method: 'get' | 'getMany' | 'find' | 'count';
  args: unknown[];
}

/** Records every read, so tests can prove how a route queries (one getMany, range not offset …). */
export function recordingStore(store: ReadStore, calls: StoreCall[]): ReadStore {
  return {
    ...store,
    collection: <T extends Doc>(name: string): Collection<T> => {
      const c = store.collection<T>(name);
      const record =
        <A extends unknown[], R>(method: StoreCall['method'], fn: (...args: A) => R) =>
        (...args: A): R => {
          calls.push({ collection: name, method, args });
          return fn(...args);
        };
      return {
        get: record('get', (id: string) => c.get(id)),
        getMany: record('getMany', (ids: readonly string[]) => c.getMany(ids)),
        find: record('find', (filter: Filter, options?: FindOptions) => c.find(filter, options)),
        count: record('count', (filter?: Filter) => c.count(filter)),
      };
    },
  };
}

export interface TestApi {
  url: string;
  store: ReadStore;
  /** Every read the app made, in order. */
  calls: StoreCall[];
  chain: FakeChain;
  counters: ReturnType<typeof fakeCounters>;
  get<T = unknown>(path: string, init?: RequestInit): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export const testConfig = (env: Record<string, string> = {}): ApiConfig => ApiConfigSchema.parse(env);

/** The app on an ephemeral port over a memory store. Call `close()` in afterAll/afterEach. */
export async function startTestApi(
  options: {
    fixture?: ChainFixture | null;
    chain?: FakeChain;
    counters?: ReturnType<typeof fakeCounters>;
    config?: ApiConfig;
    now?: () => number;
    logger?: pino.Logger;
    seed?: Parameters<typeof seed>[1];
    store?: ReadStore;
  } = {},
): Promise<TestApi> {
  const store = options.store ?? createMemoryReadStore();
  const calls: StoreCall[] = [];
  const fixture = options.fixture ?? null;
  await seed(store, { ...(fixture ? { chain: fixture } : {}), ...options.seed });
  const chain = options.chain ?? fakeChain(fixture);
  const counters = options.counters ?? fakeCounters();
  const app = createApiApp({
    config: options.config ?? testConfig(),
    logger: options.logger ?? pino({ level: 'silent' }),
    store: recordingStore(store, calls),
    counters,
    chain,
    ...(options.now ? { now: options.now } : {}),
  });
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    store,
    calls,
    chain,
    counters,
    async get<T>(path: string, init?: RequestInit) {
      const res = await fetch(`${url}${path}`, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: (text === '' ? null : JSON.parse(text)) as T };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
