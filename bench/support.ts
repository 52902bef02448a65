import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEventLog, createHttpChainSource, createSqliteCounters, createSqliteReadStore } from '@mtc/adapters';
import { createDevnet, startDevnetServer, type Devnet, type DevnetServer } from '@mtc/devnet';
import { topicNames, type TopicNames } from '@mtc/domain';
import { createFollower } from '@mtc/follower';
import type { Counters, EventLog, ReadStore } from '@mtc/ports';
import { createProjector, DEFAULT_PROJECTOR_GROUP, projectorLag, totalLag } from '@mtc/projector';
import { COLLECTIONS, HEAD_ID, type HeadDoc } from '@mtc/read-models';
import { silentLogger } from '@mtc/runtime';
import { z } from 'zod';

/**
 * What both benchmarks share: parameters, a fixed devnet, the embedded pipeline composed as
 * services/explorer/src/explorer.ts composes it, a memory sampler and table printing.
 */

/** Parameters every benchmark takes from the environment; each bench extends this shape. */
export const BaseParams = z.object({
  BENCH_BLOCKS: z.coerce.number().int().min(1).max(100_000).default(5_000),
  BENCH_SEED: z.coerce.number().int().default(1),
  /** A run that has not finished by then exits 1 rather than hang. */
  BENCH_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(120_000),
});

export function parseParams<S extends z.ZodType>(schema: S): z.output<S> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(env);
  if (!result.success) {
    console.error(`invalid benchmark parameters:\n${z.prettifyError(result.error)}`);
    process.exit(1);
  }
  return result.data;
}

/** Ends the process if the workload overruns: a benchmark must stop by itself. */
export function exitAfter(ms: number): void {
  setTimeout(() => {
    console.error(`benchmark did not finish within ${ms} ms`);
    process.exit(1);
  }, ms).unref();
}

/** Fixed, so a seed and block count give the same chain (ids, sizes, days) on every run. */
export const GENESIS_TIME = 1_700_000_000;
/** The history spans this many days whatever the block count, so daily stats stay comparable. */
export const HISTORY_DAYS = 30;
/** The explorer's defaults (services/explorer/src/config.ts), so we measure what `npm start` runs. */
export const FOLLOWER_OPTIONS = { blockConcurrency: 8, pollIntervalMs: 500 };
const POLL_MS = 10;

export function buildDevnet(blocks: number, seed: number): { devnet: Devnet; ms: number } {
  const started = performance.now();
  const devnet = createDevnet({
    seed,
    genesisTime: GENESIS_TIME,
    historyBlocks: blocks,
    blockIntervalSec: (HISTORY_DAYS * 86_400) / blocks,
  });
  return { devnet, ms: performance.now() - started };
}

export async function serveDevnet(devnet: Devnet): Promise<DevnetServer> {
  return startDevnetServer(devnet, { port: 0 });
}

/** One set of embedded adapters under `dir`, opened the way `openEventLog` & co. lay them out. */
export interface Adapters {
  log: EventLog;
  store: ReadStore;
  counters: Counters;
  close(): Promise<void>;
}

export async function openAdapters(dir: string, logDir = join(dir, 'log')): Promise<Adapters> {
  await mkdir(dir, { recursive: true });
  await mkdir(logDir, { recursive: true });
  const log = createFileEventLog({ dir: logDir });
  const store = createSqliteReadStore({ path: join(dir, 'read-models.sqlite') });
  const counters = createSqliteCounters({ path: join(dir, 'counters.sqlite') });
  return {
    log,
    store,
    counters,
    close: async () => {
      await store.close();
      await counters.close();
      await log.close();
    },
  };
}

export async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mtc-bench-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface IndexTimes {
  /** Every block published to the log. */
  followMs: number;
  /** The head doc at the node height (blocks, transactions, daily counts, counters written). */
  headMs: number;
  /** The head reached and the state topic consumed too (wallets, tokens written). */
  projectMs: number;
}

/**
 * Follows the node at `nodeUrl` up to `height` with the real follower and projector (running
 * together, as in the explorer), and resolves once everything is projected. Rejects if either part
 * fails. Both are stopped before it resolves; the adapters stay open for the caller.
 */
export async function indexChain(nodeUrl: string, height: number, adapters: Adapters): Promise<IndexTimes> {
  const topics = topicNames();
  const logger = silentLogger();
  const abort = new AbortController();
  const { log, store, counters } = adapters;
  const started = performance.now();
  let followMs: number | undefined;

  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: abort.signal,
    topics,
    options: { statsUtcOffsetMinutes: 0 },
  }).start();
  const following = createFollower({
    chain: createHttpChainSource({ baseUrl: nodeUrl }),
    log,
    logger,
    signal: abort.signal,
    topics,
    options: FOLLOWER_OPTIONS,
    onProgress: (published) => {
      if (published >= height) followMs ??= performance.now() - started;
    },
  }).run();

  try {
    const failed = Promise.race([projection.done, following]).then(() => {
      throw new Error('the pipeline stopped before the head');
    });
    failed.catch(() => {}); // it also settles after a clean stop, when nobody races it any more
    const headMs = await Promise.race([failed, until(() => headHeight(store).then((h) => h >= height), started)]);
    const projectMs = await Promise.race([failed, until(() => caughtUp(log, topics), started)]);
    return { followMs: followMs ?? headMs, headMs, projectMs };
  } finally {
    abort.abort();
    await projection.stop();
    await following.catch(() => {}); // a failure was already reported by the race above
  }
}

/**
 * Projects an existing log into `adapters` with a new consumer group (what `npm run rebuild` does):
 * the projector alone, no node and no follower. Resolves with the time until both topics are consumed.
 */
export async function replayLog(adapters: Adapters, group: string): Promise<number> {
  const topics = topicNames();
  const abort = new AbortController();
  const started = performance.now();
  const projection = await createProjector({
    log: adapters.log,
    store: adapters.store,
    counters: adapters.counters,
    logger: silentLogger(),
    signal: abort.signal,
    topics,
    options: { statsUtcOffsetMinutes: 0, group },
  }).start();
  try {
    const failed = projection.done.then(() => {
      throw new Error('the replay stopped early');
    });
    failed.catch(() => {}); // it also settles after a clean stop, when nobody races it any more
    return await Promise.race([failed, until(() => caughtUp(adapters.log, topics, group), started)]);
  } finally {
    abort.abort();
    await projection.stop();
  }
}

async function headHeight(store: ReadStore): Promise<number> {
  return (await store.collection<HeadDoc>(COLLECTIONS.head).get(HEAD_ID))?.height ?? 0;
}

async function caughtUp(log: EventLog, topics: TopicNames, group = DEFAULT_PROJECTOR_GROUP): Promise<boolean> {
  return totalLag(await projectorLag(log, topics, group)) === 0;
}

/** Polls `check` until true; resolves with the ms since `started`. The overall timeout bounds it. */
async function until(check: () => Promise<boolean>, started: number): Promise<number> {
  while (!(await check())) await new Promise((r) => setTimeout(r, POLL_MS));
  return performance.now() - started;
}

/** Messages in a topic: a group that never committed lags by all of them. */
export async function topicSize(log: EventLog, topic: string): Promise<number> {
  return (await log.lag(topic, 'bench-count')).reduce((sum, p) => sum + p.lag, 0);
}

export async function bytesIn(dir: string, prefix = ''): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.startsWith(prefix)) total += (await stat(join(dir, entry.name))).size;
  }
  return total;
}

/**
 * Peak RSS and heap since start, sampled every 100 ms, and CPU time used meanwhile (all threads).
 * The sampler shares the event loop, so a long synchronous step (SQLite) delays a sample but cannot
 * hide memory still held after it.
 */
export function sampleUsage(everyMs = 100): { stop(): { rssMB: number; heapMB: number; cpuS: number } } {
  let rss = 0;
  let heap = 0;
  const cpu = process.cpuUsage();
  const take = (): void => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      const used = process.cpuUsage(cpu);
      return { rssMB: rss / 2 ** 20, heapMB: heap / 2 ** 20, cpuS: (used.user + used.system) / 1e6 };
    },
  };
}

export function environment(): Record<string, string | number> {
  return {
    node: process.version,
    cpus: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    platform: `${process.platform}-${process.arch}`,
    // Other work on the machine skews every figure; the 1-minute load average at start shows it.
    loadavg1: loadavg()[0]?.toFixed(2) ?? 'unknown',
  };
}

export function printParams(title: string, params: Record<string, string | number>): void {
  console.log(title);
  const width = Math.max(...Object.keys(params).map((k) => k.length));
  for (const [key, value] of Object.entries(params)) console.log(`  ${key.padEnd(width)}  ${value}`);
  console.log();
}

/** Fixed-width table: text left-aligned, numbers right-aligned. */
export function printTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = [header, ...rows].map((row) => row.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[], raw: readonly (string | number)[]): string =>
    row
      .map((c, i) => (typeof raw[i] === 'number' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  console.log(line(cells[0] ?? [], header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  rows.forEach((raw, i) => console.log(line(cells[i + 1] ?? [], raw)));
  console.log();
}

/** Integers with thousands separators; small figures with enough decimals to compare. */
export function fmt(n: number): string {
  if (Number.isInteger(n) || Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(Math.abs(n) >= 10 ? 1 : 2);
}
