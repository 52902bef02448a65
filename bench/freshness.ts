import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  distributedRun,
  dropRunDatabase,
  freePort,
  killChildrenOnSignal,
  launch,
  printSection,
  sleep,
  stopChild,
  withDeadline,
  type Child,
} from './harness.ts';
import { percentile } from './percentile.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt } from './support.ts';
import { ExplorerConfigSchema } from '../services/explorer/src/config.ts';

/**
 * Freshness: with the devnet cutting a block every 50 ms (20 blocks/s), the time from a block being
 * served by the node to `/api/chain` showing it, in both modes:
 * - embedded: the all-in-one explorer (`npm start`) on a temp DATA_DIR, its built-in devnet;
 * - distributed: `scripts/start-distributed.ts` on the servers of .infra/env, with a topic prefix,
 *   database, key prefix and consumer group of its own.
 * Each runs with its shipped defaults (follower poll, API head cache): what a user of it would see.
 *
 * Two loops of this process poll as fast as they can, about every 5 ms: `GET /block` on the node
 * (its height) and `GET /api/chain` (its `localBlock`, with If-None-Match, so an unchanged answer is
 * a bodiless 304). The first time each loop sees a height is when it was served, resp. shown; a
 * height a poll skipped gets the time of the answer that first covered it. Freshness(h) =
 * shown(h) − served(h), over every height cut during the window (and shown by a grace period after).
 *
 * Standalone: `./node_modules/.bin/node bench/freshness.ts [--quick] [--distributed]`.
 */
const BLOCK_INTERVAL_MS = 50;
const POLL_MS = 5;
const TARGET_P99_MS = { embedded: 500, distributed: 1_500 } as const;
/** Caught up: the index is within this many blocks (a second) of the node. */
const CAUGHT_UP_LAG = 20;
/**
 * The history is squeezed into 864 s (1 s apart): the devnet places a history so that it ends at its
 * first start, but the span it measures for that differs from the real one by hours when the blocks
 * are minutes apart (at 30 days, the default), so live blocks would start hours late or come as one
 * burst of thousands. At 1 s apart it ends at the start.
 */
const HISTORY_DAYS = '0.01';
/** Live blocks must have begun by then. */
const NO_LIVE_BLOCKS_MS = 30_000;

type Mode = keyof typeof TARGET_P99_MS;
/** Settings that bound freshness, taken from this process's environment when set there. */
const TUNABLES = ['FOLLOWER_POLL_MS', 'API_HEAD_CACHE_MS'] as const;
/** The shipped defaults, read from the all-in-one's own schema so that this note cannot go stale. */
const DEFAULTS = ExplorerConfigSchema.parse({});

interface Plan {
  windowMs: number;
  /** After the window: how long heights cut in it may still take to be shown. */
  graceMs: number;
  history: Record<Mode, number>;
  readyTimeoutMs: Record<Mode, number>;
  timeoutMs: number;
}

function plan(options: BenchOptions): Plan {
  const windowMs = options.quick ? 15_000 : 60_000;
  const readyTimeoutMs = { embedded: 60_000, distributed: 120_000 };
  return {
    windowMs,
    graceMs: 5_000,
    history: { embedded: 500, distributed: 500 },
    readyTimeoutMs,
    // Start, catch-up, window, grace and stop of each mode, with room to spare.
    timeoutMs:
      (options.distributed ? 2 : 1) * (windowMs + 5_000 + 30_000) +
      readyTimeoutMs.embedded +
      (options.distributed ? readyTimeoutMs.distributed : 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Observing: the node's height and the API's indexed height, each on its own polling loop.

const Chain = z.object({ localBlock: z.number().int() });

async function nodeHeight(nodeUrl: string): Promise<number> {
  const res = await fetch(`${nodeUrl}/block`, { signal: AbortSignal.timeout(5_000) });
  const text = await res.text();
  const height = Number(text.trim());
  if (res.status !== 200 || !Number.isSafeInteger(height))
    throw new Error(`GET ${nodeUrl}/block: ${res.status} ${text}`);
  return height;
}

/** `/api/chain`'s `localBlock`; `undefined` when unchanged since the ETag sent (304). */
async function indexedHeight(apiUrl: string, etag: { value?: string }): Promise<number | undefined> {
  const headers: Record<string, string> = etag.value === undefined ? {} : { 'if-none-match': etag.value };
  const res = await fetch(`${apiUrl}/api/chain`, { headers, signal: AbortSignal.timeout(5_000) });
  if (res.status === 304) {
    await res.arrayBuffer();
    return undefined;
  }
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${apiUrl}/api/chain: ${res.status} ${body.slice(0, 200)}`);
  etag.value = res.headers.get('etag') ?? undefined;
  return Chain.parse(JSON.parse(body)).localBlock;
}

/** First-seen times of heights: a jump from 10 to 13 dates 11, 12 and 13 alike. */
class Sightings {
  readonly at = new Map<number, number>();
  highest: number;
  polls = 0;
  errors = 0;

  constructor(start: number) {
    this.highest = start;
  }

  saw(height: number, now: number): void {
    this.polls++;
    for (let h = this.highest + 1; h <= height; h++) this.at.set(h, now);
    this.highest = Math.max(this.highest, height);
  }
}

/** Polls `read` every POLL_MS until `stop()` says so; errors are counted and polling goes on. */
async function pollLoop(read: () => Promise<number | undefined>, seen: Sightings, stop: () => boolean): Promise<void> {
  while (!stop()) {
    try {
      const height = await read();
      if (height !== undefined) seen.saw(height, performance.now());
      else seen.polls++;
    } catch {
      seen.errors++;
    }
    await sleep(POLL_MS);
  }
}

interface Observation {
  freshnessMs: number[];
  /** Heights cut in the window that were not shown within the grace period (counted at the grace's end). */
  late: number;
  blocksPerSec: number;
  nodePollMs: number;
  apiPollMs: number;
  errors: number;
  /** localBlock behind the node at the start (blocks). */
  startLag: number;
}

async function observe(nodeUrl: string, apiUrl: string, p: Plan, signal: AbortSignal): Promise<Observation> {
  const etag: { value?: string } = {};
  const startNode = await nodeHeight(nodeUrl);
  const startShown = (await indexedHeight(apiUrl, etag)) ?? 0;
  const served = new Sightings(startNode);
  const shown = new Sightings(startShown);
  const windowStart = performance.now();
  let windowEnd = Number.POSITIVE_INFINITY;
  const nodeLoop = pollLoop(
    () => nodeHeight(nodeUrl),
    served,
    () => signal.aborted || performance.now() >= windowStart + p.windowMs,
  );
  const apiLoop = pollLoop(
    () => indexedHeight(apiUrl, etag),
    shown,
    () =>
      signal.aborted ||
      (performance.now() >= windowEnd && shown.highest >= served.highest) ||
      performance.now() >= windowEnd + p.graceMs,
  );
  await nodeLoop;
  windowEnd = performance.now();
  await apiLoop;
  const graceEnd = performance.now();

  const freshnessMs: number[] = [];
  let late = 0;
  for (const [height, servedAt] of served.at) {
    const shownAt = shown.at.get(height);
    if (shownAt === undefined) {
      late++;
      freshnessMs.push(graceEnd - servedAt); // a lower bound: it was not shown by then
    } else freshnessMs.push(shownAt - servedAt);
  }
  const windowMs = windowEnd - windowStart;
  return {
    freshnessMs,
    late,
    blocksPerSec: ((served.highest - startNode) * 1000) / windowMs,
    nodePollMs: windowMs / Math.max(1, served.polls),
    apiPollMs: (graceEnd - windowStart) / Math.max(1, shown.polls),
    errors: served.errors + shown.errors,
    startLag: startNode - startShown,
  };
}

/**
 * Waits until the API has indexed the history and is within CAUGHT_UP_LAG blocks of the live node.
 * A pipeline that cannot keep up is measured all the same (its freshness says so); a service that
 * exits, or a devnet that cuts no live blocks, ends the mode.
 */
async function waitCaughtUp(
  nodeUrl: string,
  apiUrl: string,
  history: number,
  service: Child,
  timeoutMs: number,
): Promise<{ ms: number; caughtUp: boolean; state: string }> {
  const started = performance.now();
  let state = 'no answer yet';
  let node = 0;
  for (;;) {
    const ms = performance.now() - started;
    if (service.gone()) throw new Error(`${service.name} exited:\n${tail(service)}`);
    if (node <= history && ms > NO_LIVE_BLOCKS_MS)
      throw new Error(`the devnet cuts no live blocks (${state} ${NO_LIVE_BLOCKS_MS / 1000} s after start)`);
    if (ms > timeoutMs) return { ms, caughtUp: false, state };
    try {
      node = await nodeHeight(nodeUrl);
      const indexed = (await indexedHeight(apiUrl, {})) ?? 0;
      state = `indexed ${indexed}, node ${node}`;
      if (indexed >= history && node > history && node - indexed <= CAUGHT_UP_LAG)
        return { ms: performance.now() - started, caughtUp: true, state };
    } catch (error) {
      state = error instanceof Error ? error.message : String(error); // not listening yet
    }
    await sleep(250);
  }
}

/** The end of a service's output: why it stopped. */
function tail(service: Child): string {
  return service.output().slice(-3_000);
}

// ---------------------------------------------------------------------------------------------
// The two modes.

const SERVER_KEYS = ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'] as const;

interface ModeResult {
  mode: Mode;
  observation: Observation;
  ready: { ms: number; caughtUp: boolean; state: string };
  setup: string;
}

async function runEmbedded(p: Plan, signal: AbortSignal): Promise<ModeResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-fresh-'));
  const port = await freePort();
  const devnetPort = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(devnetPort),
    DEVNET_HISTORY_BLOCKS: String(p.history.embedded),
    DEVNET_HISTORY_DAYS: HISTORY_DAYS,
    DEVNET_BLOCK_INTERVAL_MS: String(BLOCK_INTERVAL_MS),
    LOG_LEVEL: 'warn',
  };
  for (const key of SERVER_KEYS) delete env[key];
  const explorer = launch('explorer', ['services/explorer/src/main.ts'], env);
  try {
    const nodeUrl = `http://127.0.0.1:${devnetPort}`;
    const apiUrl = `http://127.0.0.1:${port}`;
    const ready = await waitCaughtUp(nodeUrl, apiUrl, p.history.embedded, explorer, p.readyTimeoutMs.embedded);
    const observation = await observe(nodeUrl, apiUrl, p, signal);
    return {
      mode: 'embedded',
      observation,
      ready,
      setup: `services/explorer (npm start) on file log + SQLite, devnet history ${p.history.embedded} blocks`,
    };
  } finally {
    await stopChild(explorer);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function runDistributed(p: Plan, signal: AbortSignal, notes: string[]): Promise<ModeResult | undefined> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-fresh-'));
  const port = await freePort();
  const devnetPort = await freePort();
  const stackRun = await distributedRun('benchfresh', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DEVNET_PORT: String(devnetPort),
    DATA_DIR: dataDir,
    DEVNET_HISTORY_BLOCKS: String(p.history.distributed),
    DEVNET_HISTORY_DAYS: HISTORY_DAYS,
    DEVNET_BLOCK_INTERVAL_MS: String(BLOCK_INTERVAL_MS),
    LOG_LEVEL: 'warn',
  });
  if ('skipped' in stackRun) {
    notes.push(`distributed: skipped, ${stackRun.skipped}`);
    await rm(dataDir, { recursive: true, force: true });
    return undefined;
  }
  const { run, mongo, infra, env } = stackRun;
  const stack = launch('start-distributed', ['scripts/start-distributed.ts'], env);
  try {
    const nodeUrl = `http://127.0.0.1:${devnetPort}`;
    const apiUrl = `http://127.0.0.1:${port}`;
    const ready = await waitCaughtUp(nodeUrl, apiUrl, p.history.distributed, stack, p.readyTimeoutMs.distributed);
    const observation = await observe(nodeUrl, apiUrl, p, signal);
    const restarts = (stack.output().match(/restarting in 1 s/g) ?? []).length;
    return {
      mode: 'distributed',
      observation,
      ready,
      setup:
        `scripts/start-distributed.ts (devnet, follower, projectors, API) on Kafka ${infra['KAFKA_BROKERS']}, ` +
        `MongoDB ${mongo.url} (${mongo.key} of .infra/env), Redis ${infra['REDIS_URL']}; topics, database, key prefix ` +
        `and group ${run}; devnet history ${p.history.distributed} blocks` +
        (restarts > 0 ? `; ${restarts} service restart(s) during the run` : ''),
    };
  } finally {
    await stopChild(stack);
    await rm(dataDir, { recursive: true, force: true });
    await dropRunDatabase(stackRun);
  }
}

// ---------------------------------------------------------------------------------------------
// Rows.

function rowsOf({ mode, observation: o }: ModeResult): Measure[] {
  const sorted = [...o.freshnessMs].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  const target = TARGET_P99_MS[mode];
  const enough = sorted.length > 0;
  return [
    { name: `freshness ${mode} p50`, value: percentile(sorted, 50), unit: 'ms' },
    {
      name: `freshness ${mode} p99`,
      value: p99,
      unit: 'ms',
      target: `<= ${fmt(target)} ms`,
      met: enough && p99 <= target,
    },
    { name: `freshness ${mode} max`, value: sorted.at(-1) ?? Number.NaN, unit: 'ms' },
    { name: `freshness ${mode} blocks measured`, value: sorted.length, unit: 'blocks' },
    { name: `freshness ${mode} node block rate`, value: o.blocksPerSec, unit: 'blocks/s' },
  ];
}

export async function runFreshness(options: BenchOptions): Promise<SectionResult> {
  const p = plan(options);
  const notes: string[] = [];
  const rows: Measure[] = [];
  const started = performance.now();
  await withDeadline('freshness', p.timeoutMs, async (signal) => {
    const modes: Mode[] = options.distributed ? ['embedded', 'distributed'] : ['embedded'];
    for (const mode of modes) {
      let result: ModeResult | undefined;
      try {
        result = mode === 'embedded' ? await runEmbedded(p, signal) : await runDistributed(p, signal, notes);
      } catch (error) {
        // One mode failing still leaves the other's figures; the failure is a missed target, with its reason.
        if (signal.aborted) throw error;
        notes.push(`${mode}: failed: ${error instanceof Error ? error.message : String(error)}`);
        rows.push({
          name: `freshness ${mode} p99`,
          value: Number.NaN,
          unit: 'ms',
          target: `<= ${fmt(TARGET_P99_MS[mode])} ms`,
          met: false,
        });
        continue;
      }
      if (!result) continue;
      const o = result.observation;
      rows.push(...rowsOf(result));
      notes.push(
        `${result.mode}: ${result.setup}; ` +
          (result.ready.caughtUp
            ? `caught up ${fmt(result.ready.ms / 1000)} s after start (then ${o.startLag} blocks behind)`
            : `NOT caught up ${fmt(result.ready.ms / 1000)} s after start (${result.ready.state}): measured behind`) +
          `; node cut ${fmt(o.blocksPerSec)} blocks/s of the ${1000 / BLOCK_INTERVAL_MS} asked` +
          (o.blocksPerSec < 0.95 * (1000 / BLOCK_INTERVAL_MS) ? ' (the devnet is starved of CPU: fewer blocks)' : '') +
          `; polls every ${fmt(o.nodePollMs)} ms (node) and ${fmt(o.apiPollMs)} ms (API) on average` +
          (o.late > 0
            ? `; ${o.late} blocks not shown ${p.graceMs / 1000} s after the window (counted at that time)`
            : '') +
          (o.errors > 0 ? `; ${o.errors} failed polls` : ''),
      );
    }
  });
  notes.push(
    `freshness: shown(h) - served(h) over the blocks the node cut during ${p.windowMs / 1000} s, with a block asked ` +
      `every ${BLOCK_INTERVAL_MS} ms; served = first answer of the node's GET /block at or above h, shown = first ` +
      `/api/chain localBlock at or above h (If-None-Match: unchanged answers are 304s), each loop polling every ` +
      `${POLL_MS} ms after its previous answer, so both times are late by up to one poll interval`,
    `services at their shipped settings, notably ${TUNABLES.map((k) => `${k}=${process.env[k] ?? `${DEFAULTS[k]} (default)`}`).join(', ')} ` +
      '(the follower asks the node for its head that often once caught up; the API reads the indexed head at most that often)',
    `freshness: ${fmt((performance.now() - started) / 1000)} s in all`,
  );
  return { section: 'freshness', rows, notes };
}

const section: Section = (options) => runFreshness(options);
export default section;

if (import.meta.main) {
  killChildrenOnSignal();
  const result = await runFreshness({
    quick: process.argv.includes('--quick'),
    distributed: process.argv.includes('--distributed'),
  });
  printSection(result);
  process.exit(0);
}
