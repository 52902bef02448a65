import { Worker } from 'node:worker_threads';
import { createHttpChainSource } from '@mtc/adapters';
import { ApiConfigSchema, createNftImageFetcher, startApi } from '@mtc/api';
import type { Devnet } from '@mtc/devnet';
import { silentLogger } from '@mtc/runtime';
import { z } from 'zod';
import type { LoadJob, LoadResult } from './load-worker.ts';
import { percentile } from './percentile.ts';
import {
  BaseParams,
  buildDevnet,
  environment,
  exitAfter,
  GENESIS_TIME,
  HISTORY_DAYS,
  indexChain,
  openAdapters,
  parseParams,
  fmt,
  printParams,
  printTable,
  serveDevnet,
  tempDir,
} from './support.ts';

/**
 * API latency under a fixed request mix: a devnet chain is indexed once on the embedded adapters,
 * then the real API (Koa, SQLite read models) answers a bounded, deterministic sequence of requests
 * sent from a worker thread. Deep pages sit beside shallow ones to show that paging by key range
 * costs the same at any depth.
 *
 * `./node_modules/.bin/node bench/api.ts` (BENCH_BLOCKS, BENCH_SEED, BENCH_REQUESTS,
 * BENCH_CONCURRENCY, BENCH_SERIAL_REQUESTS, BENCH_WARMUP, BENCH_TIMEOUT_MS).
 */
const Params = BaseParams.extend({
  BENCH_REQUESTS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  BENCH_CONCURRENCY: z.coerce.number().int().min(1).max(1_024).default(32),
  BENCH_WARMUP: z.coerce.number().int().min(0).default(1_000),
  BENCH_SERIAL_REQUESTS: z.coerce.number().int().min(1).max(100_000).default(2_000),
});
const params = parseParams(Params);
exitAfter(params.BENCH_TIMEOUT_MS);

const PAGE_LIMIT = 20; // the API's default page size
const PAGES_COMPARED = 5;

interface Target {
  label: string;
  /** Relative frequency in the mix. */
  weight: number;
  /** The path of this target's i-th request. */
  path: (i: number) => string;
}

/** The i-th of `n` items, spread over the range by a prime stride instead of walking it in order. */
const spread = (i: number, n: number): number => (i * 7_919) % n;

function requestMix(devnet: Devnet, txCount: number): Target[] {
  const height = devnet.height();
  const blockPages = Math.ceil(height / PAGE_LIMIT);
  const txPages = Math.ceil(txCount / PAGE_LIMIT);
  const txIds: string[] = [];
  const blockHashes: string[] = [];
  for (let h = 1; h <= height; h++) {
    const block = devnet.block(h);
    if (!block) continue;
    blockHashes.push(block.id);
    for (const tx of block.transaction) txIds.push(tx.id);
  }
  const { wallets, tokens } = devnet.worldState();
  const addresses = Object.keys(wallets);
  const symbols = Object.values(tokens).map((t) => t.symbol);
  // Every kind of search the route answers, plus a miss (which still runs every lookup).
  const queries = [
    (i: number) => String(1 + spread(i, height)),
    (i: number) => blockHashes[spread(i, blockHashes.length)] ?? '',
    (i: number) => txIds[spread(i, txIds.length)] ?? '',
    (i: number) => addresses[spread(i, addresses.length)] ?? '',
    (i: number) => symbols[spread(i, symbols.length)] ?? '',
    () => 'no-such-thing',
  ];
  // Shallow: the newest pages. Deep: the oldest full pages (the very last one may be short).
  const shallow = (i: number): number => 1 + (i % PAGES_COMPARED);
  const deep = (pages: number) => (i: number) => Math.max(1, pages - 1 - (i % PAGES_COMPARED));

  return [
    { label: '/api/chain', weight: 2, path: () => '/api/chain' },
    { label: '/api/blocks shallow', weight: 2, path: (i) => `/api/blocks?page=${shallow(i)}` },
    { label: '/api/blocks deep', weight: 2, path: (i) => `/api/blocks?page=${deep(blockPages)(i)}` },
    { label: '/api/block/{h}', weight: 3, path: (i) => `/api/block/${1 + spread(i, height)}` },
    { label: '/api/transactions shallow', weight: 2, path: (i) => `/api/transactions?page=${shallow(i)}` },
    { label: '/api/transactions deep', weight: 2, path: (i) => `/api/transactions?page=${deep(txPages)(i)}` },
    { label: '/api/tx/{id}', weight: 3, path: (i) => `/api/tx/${txIds[spread(i, txIds.length)] ?? ''}` },
    {
      label: '/api/search?q=',
      weight: 3,
      path: (i) => `/api/search?q=${encodeURIComponent(queries[i % queries.length]!(Math.floor(i / queries.length)))}`,
    },
    { label: '/api/tx-stats', weight: 1, path: () => '/api/tx-stats' },
  ];
}

/** `count` requests cycling through the weighted slots, so every route is spread over the run. */
function plan(targets: readonly Target[], count: number, offset = 0): { label: string; path: string }[] {
  const slots = targets.flatMap((t) => Array.from({ length: t.weight }, () => t));
  const seen = new Map<Target, number>();
  return Array.from({ length: count }, (_, k) => {
    const target = slots[(k + offset) % slots.length]!;
    const i = seen.get(target) ?? 0;
    seen.set(target, i + 1);
    return { label: target.label, path: target.path(i + offset) };
  });
}

/**
 * Runs one pass in a worker. `serverBusy` is this thread's event loop utilisation meanwhile: near 1
 * means the server is the bottleneck, well below 1 that the client (or the OS) is.
 */
function runLoad(job: LoadJob): Promise<LoadResult & { serverBusy: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: job });
    let before = performance.eventLoopUtilization();
    worker.once('online', () => (before = performance.eventLoopUtilization()));
    worker.once('message', (result: LoadResult) =>
      resolve({ ...result, serverBusy: performance.eventLoopUtilization(before).utilization }),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`load worker exited with ${code} before reporting`)));
  });
}

printParams('bench:api (embedded adapters: SQLite read models, Koa)', {
  ...environment(),
  blocks: params.BENCH_BLOCKS,
  seed: params.BENCH_SEED,
  genesisTime: GENESIS_TIME,
  historyDays: HISTORY_DAYS,
  warmup: `${params.BENCH_WARMUP} requests at concurrency ${params.BENCH_CONCURRENCY} (same mix, not counted)`,
  serial: `${params.BENCH_SERIAL_REQUESTS} requests at concurrency 1`,
  loaded: `${params.BENCH_REQUESTS} requests at concurrency ${params.BENCH_CONCURRENCY}`,
  pages: `limit ${PAGE_LIMIT}; shallow = pages 1-${PAGES_COMPARED}, deep = the ${PAGES_COMPARED} oldest full pages`,
  client: 'worker thread, undici fetch, keep-alive',
});

const { devnet } = buildDevnet(params.BENCH_BLOCKS, params.BENCH_SEED);
const node = await serveDevnet(devnet);
const tmp = await tempDir();
const adapters = await openAdapters(tmp.dir);
let failed = 0;
try {
  const indexed = await indexChain(node.url, devnet.height(), adapters);
  const txCount = devnet.worldState().counts.transactions;
  console.log(`indexed ${devnet.height()} blocks, ${txCount} transactions in ${Math.round(indexed.projectMs)} ms`);
  console.log();

  const lastBlockTime = devnet.block(devnet.height())?.timestamp ?? GENESIS_TIME;
  const config = ApiConfigSchema.parse({});
  const logger = silentLogger();
  const api = await startApi({
    config,
    logger,
    store: adapters.store,
    images: createNftImageFetcher({ config, logger, store: adapters.store }),
    counters: adapters.counters,
    chain: createHttpChainSource({ baseUrl: node.url }),
    // The clock pinned to the last block, so /api/tx-stats reads days that have transactions. It
    // also stops /api/chain's cached node height from expiring: the node is asked once, where a
    // live API asks every MAINNET_HEIGHT_CACHE_MS (2 s), a cost too small to matter here.
    now: () => lastBlockTime * 1000,
    port: 0,
    host: '127.0.0.1',
  });
  try {
    const targets = requestMix(devnet, txCount);
    // Distinct offsets, so the passes do not replay each other's exact requests.
    const warmup = plan(targets, params.BENCH_WARMUP, 2 * params.BENCH_REQUESTS);
    const serial = plan(targets, params.BENCH_SERIAL_REQUESTS, params.BENCH_REQUESTS);
    const loaded = plan(targets, params.BENCH_REQUESTS);
    const pass = (requests: readonly { path: string }[], concurrency: number) =>
      runLoad({ baseUrl: api.url, paths: requests.map((r) => r.path), concurrency });

    // JIT, statement caches and connections warm before anything is counted.
    if (warmup.length > 0) await pass(warmup, params.BENCH_CONCURRENCY);
    // Concurrency 1 shows what each route costs; under load, queueing dominates every route alike.
    failed += report('concurrency 1 (service time)', targets, serial, await pass(serial, 1));
    const loadedTitle = `concurrency ${params.BENCH_CONCURRENCY} (under load)`;
    failed += report(loadedTitle, targets, loaded, await pass(loaded, params.BENCH_CONCURRENCY));
  } finally {
    await api.close();
  }
} finally {
  await adapters.close();
  await node.close();
  await tmp.remove();
}
if (failed > 0) console.error(`${failed} requests did not answer 2xx`);
process.exit(failed > 0 ? 1 : 0);

interface Summary {
  count: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function summarize(ms: readonly number[], failed: number): Summary {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number): number => percentile(sorted, p);
  return { count: ms.length, failed, p50: at(50), p95: at(95), p99: at(99), max: sorted.at(-1) ?? NaN };
}

/** Prints one pass: latency per route, throughput, deep vs shallow. Returns the non-2xx count. */
function report(
  title: string,
  targets: readonly Target[],
  requests: readonly { label: string }[],
  result: LoadResult & { serverBusy: number },
): number {
  const byLabel = new Map(targets.map((t) => [t.label, { ms: [] as number[], failed: 0 }]));
  requests.forEach(({ label }, i) => {
    const entry = byLabel.get(label)!;
    entry.ms.push(result.ms[i] ?? NaN);
    const status = result.status[i] ?? 0;
    if (status < 200 || status > 299) entry.failed += 1;
  });
  const routes = new Map([...byLabel].map(([label, e]) => [label, summarize(e.ms, e.failed)]));
  const all = summarize(
    [...result.ms],
    [...routes.values()].reduce((sum, r) => sum + r.failed, 0),
  );
  const row = (label: string, r: Summary) => [label, r.count, r.failed, r.p50, r.p95, r.p99, r.max];

  console.log(
    `${title}: ${fmt((requests.length * 1000) / result.wallMs)} requests/s over ${fmt(result.wallMs)} ms, server event loop busy ${fmt(result.serverBusy * 100)} %`,
  );
  printTable(
    ['route', 'count', 'non-2xx', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    [...[...routes].map(([label, r]) => row(label, r)), row('all', all)],
  );
  const compare = (list: string) => {
    const shallow = routes.get(`${list} shallow`)!;
    const deep = routes.get(`${list} deep`)!;
    return [list, shallow.p50, deep.p50, deep.p50 / shallow.p50, shallow.p99, deep.p99, deep.p99 / shallow.p99];
  };
  printTable(
    ['deep vs shallow pages', 'p50 shallow', 'p50 deep', 'deep/shallow', 'p99 shallow', 'p99 deep', 'deep/shallow'],
    [compare('/api/blocks'), compare('/api/transactions')],
  );
  return all.failed;
}
