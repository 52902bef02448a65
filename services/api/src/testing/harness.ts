import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryReadStore } from '@mtc/adapters';
import type { BlockEvent } from '@mtc/domain';
import type { ChainSource, Collection, Counters, Doc, Filter, FindOptions, ReadStore } from '@mtc/ports';
import {
  COLLECTION_SPECS,
  HEAD_ID,
  loadChainPrior,
  openModels,
  projectChainBatch,
  projectState,
  READ_MODELS,
} from '@mtc/read-models';
import { pino } from 'pino';
import { createApiApp, requestListener } from '../app.ts';
import type { ApiDeps } from '../context.ts';
import { ApiConfigSchema, type ApiConfig } from '../config.ts';
import { createNftImageFetcher } from '../nft-images.ts';
import { address, createChain, type Chain } from './chain.ts';

export { address, badChecksum, createChain, GENESIS_TS, hash, type Chain, type TxView } from './chain.ts';

/**
 * Test support for the API: chains made by the devnet's chaincode and our decoder (`chain.ts`) and
 * projected into a memory store by the real projections, fakes of the Counters and ChainSource ports, and an app on an
 * ephemeral port.
 */

/** An answer as its bytes arrived: headers by lower-case name, the body neither decoded nor decompressed. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request with the path sent exactly as written (fetch would resolve `..` and `%2e%2e` first)
 * and nothing added or undone (fetch adds headers and decompresses bodies).
 */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export const ALICE = address('alice');
export const BOB = address('bob');

/**
 * Blocks 1 … `height`, block h at GENESIS_TS + 60·h with `txsIn(h)` transfers of 1000 from ALICE to
 * BOB, each 10 s after its block's time (so a transaction's own timestamp differs from its block's).
 * Transfer number `seq` (from 0) moves token `tokenOf(seq)`. ALICE and BOB exist before block 1;
 * ALICE holds 10^15 of tokens 0, 1 and 2 then.
 */
export function buildChain(
  height: number,
  txsIn: (h: number) => number = (h) => h % 3,
  tokenOf: (seq: number) => number = (seq) => seq % 3,
): Chain {
  const chain = createChain();
  chain.openWallet(
    ALICE,
    [0, 1, 2].map((token) => ({ token, balance: '1000000000000000' })),
  );
  chain.openWallet(BOB, [{ token: 0, balance: '0' }]);
  let seq = 0;
  for (let h = 1; h <= height; h++) {
    const txs = Array.from({ length: txsIn(h) }, () =>
      chain.transfer({ from: ALICE, to: BOB, amount: '1000', token: tokenOf(seq++) }),
    );
    chain.block(txs);
  }
  return chain;
}

export interface ProjectOptions {
  statsUtcOffsetMinutes?: number;
  /**
   * Leave the head at this height: blocks above it are projected but for their head write, as
   * when a projector stopped between a batch's last phases (0: as before anything is indexed).
   */
  headAt?: number;
}

/**
 * Projects a chain into `store` the way the projector does: state events through `projectState`,
 * then block events through `projectChainBatch`, each phase written before the next starts. Blocks
 * already below the stored head are skipped by the projection itself, so a test may append blocks
 * to its chain and project it again.
 */
export async function projectChain(store: ReadStore, chain: Chain, options: ProjectOptions = {}): Promise<void> {
  const models = openModels(store);
  await store.ensureCollections(COLLECTION_SPECS);
  await store.write(projectState(chain.states()));
  const headAt = options.headAt;
  const batches: { events: BlockEvent[]; withHead: boolean }[] =
    headAt === undefined
      ? [{ events: chain.events, withHead: true }]
      : [
          { events: chain.events.filter((e) => e.height <= headAt), withHead: true },
          { events: chain.events.filter((e) => e.height > headAt), withHead: false },
        ];
  for (const { events, withHead } of batches) {
    if (events.length === 0) continue;
    const prior = await loadChainPrior(models, events);
    const { phases } = projectChainBatch(events, prior, {
      statsUtcOffsetMinutes: options.statsUtcOffsetMinutes ?? 0,
    });
    for (const phase of phases) {
      await store.write(withHead ? phase : phase.filter((w) => w.collection !== READ_MODELS.head.name));
    }
  }
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

export function fakeChain(fixture: Chain | null, nodeHeight = fixture?.height ?? 0): FakeChain {
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
      return fixture?.rawBlock(String(id)) ?? null;
    },
    async transaction(txId) {
      chain.calls.transaction++;
      if (chain.down) fail();
      inFlight++;
      chain.maxInFlight = Math.max(chain.maxInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return fixture?.rawTx(txId) ?? null;
    },
  };
  return chain;
}

/**
 * Counters that answer `count(from, to)` and record every call. They have counted up to 0, or, once
 * they `follow` a store, up to its indexed head (as the projector's counters are at every head).
 */
export function fakeCounters(count: (fromTs: number, toTs: number) => number = () => 0): Counters & {
  calls: [number, number][];
  follow(store: ReadStore): void;
} {
  const calls: [number, number][] = [];
  let counted = async (): Promise<number> => 0;
  return {
    calls,
    follow(store) {
      counted = async () => (await openModels(store).head.get(HEAD_ID))?.height ?? 0;
    },
    async addBlockTxs() {},
    highestCounted: () => counted(),
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
  /** Requests answered from held answers before routing (held.ts). */
  heldServed(): number;
  /** Projects `chain` (blocks above the stored head, and every state event) into the store. */
  project(chain: Chain, options?: ProjectOptions): Promise<void>;
  get<T = unknown>(path: string, init?: RequestInit): Promise<TestResponse<T>>;
  /** The raw body, for answers that are not JSON. */
  bytes(path: string, init?: RequestInit): Promise<TestResponse<Uint8Array>>;
  close(): Promise<void>;
}

/**
 * Route tests see every request reach its handler: the head is read per request and no answer is
 * kept (ETags and compression still apply). http-cache.test.ts turns the caches on.
 */
export const testConfig = (env: Record<string, string> = {}): ApiConfig =>
  ApiConfigSchema.parse({ API_HEAD_CACHE_MS: '0', API_RESPONSE_CACHE_MB: '0', ...env });

/** The app on an ephemeral port over a memory store. Call `close()` in afterAll/afterEach. */
export async function startTestApi(
  options: {
    /** Projected into the store before the app starts. */
    fixture?: Chain | null;
    /** See ProjectOptions.headAt. */
    headAt?: number;
    chain?: FakeChain;
    counters?: ReturnType<typeof fakeCounters>;
    config?: ApiConfig;
    now?: () => number;
    logger?: pino.Logger;
    store?: ReadStore;
    /** The block log for the live stream (/api/stream). */
    events?: ApiDeps['events'];
    /** The head shared with other apps over the same memory (API threads of one process). */
    sharedHead?: SharedArrayBuffer;
  } = {},
): Promise<TestApi> {
  const store = options.store ?? createMemoryReadStore();
  const calls: StoreCall[] = [];
  const fixture = options.fixture ?? null;
  const config = options.config ?? testConfig();
  const statsUtcOffsetMinutes = config.STATS_UTC_OFFSET_MINUTES;
  if (fixture) {
    await projectChain(store, fixture, {
      statsUtcOffsetMinutes,
      ...(options.headAt === undefined ? {} : { headAt: options.headAt }),
    });
  }
  const chain = options.chain ?? fakeChain(fixture);
  const counters = options.counters ?? fakeCounters();
  // At the head of the harness's own store (a store a test passes may be made to fail on purpose).
  if (!options.store) counters.follow(store);
  const logger = options.logger ?? pino({ level: 'silent' });
  const recording = recordingStore(store, calls);
  const app = createApiApp({
    config,
    logger,
    store: recording,
    images: createNftImageFetcher({ config, logger, store: recording, ...(options.now ? { now: options.now } : {}) }),
    counters,
    chain,
    ...(options.now ? { now: options.now } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.sharedHead ? { sharedHead: options.sharedHead } : {}),
  });
  const server: Server = createServer(requestListener(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    store,
    calls,
    chain,
    counters,
    heldServed: () => app.held?.served() ?? 0,
    project: (more, projectOptions = {}) => projectChain(store, more, { statsUtcOffsetMinutes, ...projectOptions }),
    async get<T>(path: string, init?: RequestInit) {
      const res = await fetch(`${url}${path}`, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: (text === '' ? null : JSON.parse(text)) as T };
    },
    async bytes(path: string, init?: RequestInit) {
      const res = await fetch(`${url}${path}`, init);
      return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
