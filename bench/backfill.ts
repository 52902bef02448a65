import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AdapterConfigSchema,
  createFileEventLog,
  createHttpChainSource,
  createKafkaEventLog,
  kafkaConnection,
  KafkaSettingsShape,
  topicSpecs,
} from '@mtc/adapters';
import { topicNames } from '@mtc/domain';
import { createFollower, DEFAULT_FOLLOWER_OPTIONS, type FollowerOptions } from '@mtc/follower';
import type { EventLog } from '@mtc/ports';
import { parseConfig, readEnvFile, silentLogger } from '@mtc/runtime';
import { z } from 'zod';
import { DevnetConfigSchema } from '../services/devnet/src/config.ts';
import { nodeCeiling } from './api-load.ts';
import {
  freePort,
  killChildrenOnSignal,
  launch,
  printSection,
  ROOT,
  runId,
  sampleRss,
  statusMB,
  stopChild,
  withDeadline,
  type Child,
} from './harness.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { bytesIn, FOLLOWER_OPTIONS, fmt } from './support.ts';

/**
 * Backfill: the real follower reading a fixed devnet over HTTP from height 0 to its head, publishing
 * to the embedded file log (and with `distributed`, to Kafka), held to the devnet's own serving rate
 * for the same requests in the same run (`nodeCeiling` of bench/api-load.ts: autocannon, 64
 * connections, GET /block/{n} and GET /transaction/{id} of the same chain in the follower's mix).
 *
 * Three processes, so that each one's memory is its own: the devnet (the standalone node, history on
 * disk under a temp dir, no live blocks so the chain stays fixed), the follower (this file run with
 * `--follower-child`, one fresh process per measurement, peak RSS from its VmHWM), and this one, which
 * orchestrates, samples the devnet's RSS during each backfill and runs the load tool.
 *
 * Standalone: `./node_modules/.bin/node bench/backfill.ts [--quick] [--distributed] [--1m]`.
 */
const SCRIPT = fileURLToPath(import.meta.url);
const MB = 2 ** 20;
const TARGET_RATIO = 0.8;
/** Transactions a block aims for, when the devnet takes DEVNET_TXS_PER_BLOCK; else its built-in mix. */
const TXS_PER_BLOCK = 10;
/** The built-in mix: about 2.97 listed transactions per block, empty blocks included (seed 1). */
const BUILT_IN_TXS_PER_BLOCK = 2.9;
/** A follower setting for catching up, tried when the explorer's default falls short of the target. */
const BACKFILL_OPTIONS: Partial<FollowerOptions> = { blockConcurrency: 32 };
/** Of the section's time, kept for the ceiling and cleanup after the follower runs. */
const FOLLOWER_RESERVE_MS = 25_000;
/** About this many transactions from the chain's start are followed with that setting. */
const PROBE_TRANSACTIONS = 8_000;

interface Size {
  label: string;
  transactions: number;
}

interface Plan {
  sizes: Size[];
  ceilingSec: number;
  /** Devnet generation, per size. */
  generateTimeoutMs: number;
  /** The whole section. */
  timeoutMs: number;
  /** Whether to try the backfill setting when the default misses the target. */
  probe: boolean;
  skipped: string[];
}

function plan(options: BenchOptions, withMillion: boolean): Plan {
  if (options.quick)
    return {
      sizes: [{ label: '20k', transactions: 20_000 }],
      ceilingSec: 3,
      generateTimeoutMs: 60_000,
      timeoutMs: 150_000,
      probe: false,
      skipped: ['quick: the backfill setting (blockConcurrency 32) is not tried; the full run tries it'],
    };
  const sizes = [{ label: '100k', transactions: 100_000 }];
  const skipped: string[] = [];
  if (withMillion) sizes.push({ label: '1M', transactions: 1_000_000 });
  else
    skipped.push(
      '1M transactions not run: the devnet generates about 5,700 tx/s (3 min for 1M, 6 GB of history on disk) and ' +
        'the follower backfills at the rates above (15 min or more per mode), far past this section’s 4 min; ' +
        '`node bench/backfill.ts --1m` (or BENCH_BACKFILL_1M=1) runs it',
    );
  return {
    sizes,
    ceilingSec: 5,
    generateTimeoutMs: withMillion ? 300_000 : 90_000,
    timeoutMs: withMillion ? 2_400_000 : 420_000,
    probe: true,
    skipped,
  };
}

// ---------------------------------------------------------------------------------------------
// The devnet node: the standalone service, history generated up front, no live blocks.

interface Node {
  url: string;
  child: Child;
  height: number;
  transactions: number;
  generateMs: number;
  /** Peak RSS so far (generation included). */
  hwmMB(): number;
}

const txsPerBlockOption = 'DEVNET_TXS_PER_BLOCK' in DevnetConfigSchema.shape;

const HistoryGenerated = z.object({
  msg: z.literal('history generated'),
  height: z.number(),
  transactions: z.number(),
});
const Listening = z.object({ msg: z.literal('devnet node listening'), url: z.string() });

async function startNode(size: Size, dir: string, timeoutMs: number): Promise<Node> {
  // Blocks list fewer than they aim for (empty blocks, calls left out as conflicting): 8.9 of 10.
  const perBlock = txsPerBlockOption ? TXS_PER_BLOCK * 0.88 : BUILT_IN_TXS_PER_BLOCK;
  const blocks = Math.ceil(size.transactions / perBlock);
  let history: z.infer<typeof HistoryGenerated> | undefined;
  let url: string | undefined;
  const child = launch(
    'devnet',
    ['services/devnet/src/main.ts'],
    {
      PATH: process.env['PATH'],
      DEVNET_HOST: '127.0.0.1',
      DEVNET_PORT: String(await freePort()),
      DEVNET_HISTORY_BLOCKS: String(blocks),
      DEVNET_HISTORY_DAYS: '30',
      DEVNET_BLOCK_INTERVAL_MS: '0',
      DEVNET_SCHEDULE_FILE: join(dir, 'devnet.json'),
      ...(txsPerBlockOption ? { DEVNET_TXS_PER_BLOCK: String(TXS_PER_BLOCK) } : {}),
      LOG_LEVEL: 'info',
    },
    {
      onLine: (line) => {
        if (!line.startsWith('{')) return;
        const json: unknown = JSON.parse(line);
        history ??= HistoryGenerated.safeParse(json).data;
        url ??= Listening.safeParse(json).data?.url;
      },
    },
  );
  const started = performance.now();
  while (url === undefined || history === undefined) {
    if (child.gone()) throw new Error(`devnet exited before listening:\n${child.output()}`);
    if (performance.now() - started > timeoutMs)
      throw new Error(`devnet did not generate ${blocks} blocks within ${timeoutMs / 1000} s:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    child,
    height: history.height,
    transactions: history.transactions,
    generateMs: performance.now() - started,
    hwmMB: () => statusMB(child.pid, 'VmHWM') ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The follower, in a process of its own.

const FollowJob = z.object({
  nodeUrl: z.string(),
  /** Follows until this height is published. */
  height: z.number().int().positive(),
  /** Also notes when this height was published (the stretch another setting is compared on). */
  sliceHeight: z.number().int().positive(),
  log: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('file'), dir: z.string() }),
    z.object({ kind: z.literal('kafka'), brokers: z.array(z.string()), prefix: z.string() }),
  ]),
  options: z
    .object({
      blockConcurrency: z.number(),
      txConcurrency: z.number(),
      batchBlocks: z.number(),
      pollIntervalMs: z.number(),
    })
    .partial(),
});
type FollowJob = z.infer<typeof FollowJob>;
type LogTarget = FollowJob['log'];

const FollowDone = z.object({
  /** From the follower's start to the node's head published. */
  ms: z.number(),
  /** From the start to `sliceHeight` published. */
  sliceMs: z.number(),
  cpuS: z.number(),
  peakRssMB: z.number(),
  peakHeapMB: z.number(),
});
type FollowDone = z.infer<typeof FollowDone>;

async function followerChild(): Promise<void> {
  const job = FollowJob.parse(JSON.parse(process.env['BENCH_FOLLOW_JOB'] ?? 'null'));
  const topics = topicNames(job.log.kind === 'kafka' ? job.log.prefix : '');
  let log: EventLog;
  if (job.log.kind === 'file') {
    await mkdir(job.log.dir, { recursive: true });
    log = createFileEventLog({ dir: job.log.dir });
  } else {
    // The run's own brokers and client id; SASL, TLS and the topic layout from the environment, as the services read them.
    const kafkaEnv = Object.fromEntries(Object.keys(KafkaSettingsShape).map((k) => [k, process.env[k]]));
    const config = parseConfig(AdapterConfigSchema, {
      ...kafkaEnv,
      KAFKA_BROKERS: job.log.brokers.join(','),
      KAFKA_CLIENT_ID: job.log.prefix,
      KAFKA_COMPRESSION: 'gzip',
    });
    log = await createKafkaEventLog({
      ...kafkaConnection({ ...config, KAFKA_BROKERS: job.log.brokers }),
      topics: topicSpecs(topics, config.KAFKA_PARTITIONS),
    });
  }
  const abort = new AbortController();
  let heap = 0;
  const heapTimer = setInterval(() => (heap = Math.max(heap, process.memoryUsage().heapUsed)), 100);
  let sliceMs = 0;
  let reached: () => void = () => {};
  const atHead = new Promise<void>((resolve) => (reached = resolve));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const following = createFollower({
    chain: createHttpChainSource({ baseUrl: job.nodeUrl }),
    log,
    logger: silentLogger(),
    signal: abort.signal,
    topics,
    options: job.options,
    onProgress: (published) => {
      if (published >= job.sliceHeight && sliceMs === 0) sliceMs = performance.now() - started;
      if (published >= job.height) reached();
    },
  }).run();
  await Promise.race([
    atHead,
    following.then(() => {
      throw new Error('the follower stopped before the head');
    }),
  ]);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  abort.abort();
  await following;
  await log.close();
  clearInterval(heapTimer);
  const done: FollowDone = {
    ms,
    sliceMs,
    cpuS: (used.user + used.system) / 1e6,
    peakRssMB: statusMB(process.pid, 'VmHWM') ?? process.memoryUsage().rss / MB,
    peakHeapMB: Math.max(heap, process.memoryUsage().heapUsed) / MB,
  };
  // Exits once the report is sent: idle keep-alive sockets must not hold the process open.
  if (process.send) process.send(done, () => process.exit(0));
  else {
    console.log(JSON.stringify(done)); // run by hand, e.g. under --cpu-prof
    process.exit(0);
  }
}

async function runFollower(
  job: FollowJob,
  node: Node,
  timeoutMs: number,
): Promise<FollowDone & { nodePeakMB: number }> {
  const nodeRss = sampleRss(node.child.pid);
  const child = launch(
    'follower',
    [SCRIPT, '--follower-child'],
    { ...process.env, BENCH_FOLLOW_JOB: JSON.stringify(job) },
    {
      ipc: true,
      execArgv: [
        '--disable-warning=ExperimentalWarning',
        ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : []),
      ],
    },
  );
  try {
    const done = await new Promise<FollowDone>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`follower did not reach the head within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      child.child.once('message', (message) => {
        clearTimeout(timer);
        resolve(FollowDone.parse(message));
      });
      void child.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`follower exited (${code}) before reporting:\n${child.output()}`));
      });
    });
    await child.exited;
    return { ...done, nodePeakMB: nodeRss.stop() };
  } finally {
    nodeRss.stop();
    await stopChild(child, 5_000);
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface Run {
  mode: 'embedded' | 'distributed';
  size: Size;
  options: Partial<FollowerOptions>;
  blocks: number;
  transactions: number;
  done: FollowDone & { nodePeakMB: number };
  logBytes: number | undefined;
}

/** The node's serving rate in the chain's request mix. */
interface Ceiling {
  blocksPerSec: number;
  txPerSec: number;
  reqPerSec: number;
}

/** The backfill setting against the default on the chain's first blocks. */
interface Probe {
  sliceHeight: number;
  defaultBlocksPerSec: number;
  backfillBlocksPerSec: number;
}

interface Failure {
  mode: Run['mode'];
  reason: string;
}

interface SizeResult {
  size: Size;
  runs: Run[];
  failed: Failure[];
  ceiling: Ceiling;
  probe: Probe | undefined;
}

/** Bytes of a Kafka topic on the broker's disk, when `npm run infra:up` keeps the broker here. */
function kafkaTopicBytes(topic: string): number | undefined {
  const data = join(ROOT, '.infra/kafka/data');
  if (!existsSync(data)) return undefined;
  let total = 0;
  for (const dir of readdirSync(data).filter((d) => d.startsWith(`${topic}-`) && /-\d+$/.test(d)))
    for (const file of readdirSync(join(data, dir)).filter((f) => f.endsWith('.log')))
      total += statSync(join(data, dir, file)).size;
  return total;
}

const describe = (options: Partial<FollowerOptions>): string => {
  const o = { ...DEFAULT_FOLLOWER_OPTIONS, ...options };
  return `blockConcurrency ${o.blockConcurrency}, txConcurrency ${o.txConcurrency}, batchBlocks ${o.batchBlocks}`;
};

async function measureSize(
  size: Size,
  modes: readonly Run['mode'][],
  p: Plan,
  brokers: readonly string[],
  notes: string[],
  /** performance.now() by which every follower run must be done (the ceiling and cleanup come after). */
  endBy: number,
): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'mtc-bench-backfill-'));
  let node: Node | undefined;
  try {
    node = await startNode(size, dir, p.generateTimeoutMs);
    const n = node;
    const sliceHeight = Math.min(n.height, Math.ceil(PROBE_TRANSACTIONS / (n.transactions / n.height)));
    const follow = async (mode: Run['mode'], height: number, options: Partial<FollowerOptions>): Promise<Run> => {
      const log: LogTarget =
        mode === 'embedded'
          ? { kind: 'file', dir: join(dir, `log-${mode}-${Date.now()}`) }
          : { kind: 'kafka', brokers: [...brokers], prefix: `${runId('benchbackfill')}.` };
      const timeoutMs = Math.max(5_000, endBy - performance.now());
      const done = await runFollower({ nodeUrl: n.url, height, sliceHeight, log, options }, n, timeoutMs);
      let logBytes: number | undefined;
      if (log.kind === 'file') {
        logBytes = await bytesIn(log.dir);
        await rm(log.dir, { recursive: true, force: true });
      } else {
        const sizes = Object.values(topicNames(log.prefix)).map(kafkaTopicBytes);
        logBytes = sizes.every((s) => s !== undefined) ? sizes.reduce((a, b) => a + b, 0) : undefined;
      }
      return { mode, size, options, blocks: height, transactions: n.transactions, done, logBytes };
    };

    const runs: Run[] = [];
    const failed: Failure[] = [];
    for (const mode of modes) {
      try {
        runs.push(await follow(mode, n.height, FOLLOWER_OPTIONS));
      } catch (error) {
        // Too slow for the section's time (a loaded machine), or broken: a missed target, with its reason.
        failed.push({ mode, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    // The ceiling after the backfills: the devnet is as warm for the load tool as it was for them.
    const measured = await nodeCeiling(n.url, { durationSec: p.ceilingSec, sampleBlocks: 256 });
    // In the whole chain's mix: the sample's share of transactions differs a little from the chain's.
    const txPerBlock = n.transactions / n.height;
    const ceiling: Ceiling = {
      reqPerSec: measured.reqPerSec,
      blocksPerSec: measured.reqPerSec / (1 + txPerBlock),
      txPerSec: (measured.reqPerSec / (1 + txPerBlock)) * txPerBlock,
    };
    // Short of the target with the explorer's setting: would more blocks in flight help? The first
    // stretch of the chain with a backfill setting, against the default's time for the same stretch.
    let probe: Probe | undefined;
    const embedded = runs.find((r) => r.mode === 'embedded');
    const probeMs = embedded ? embedded.done.sliceMs * 1.5 : 0;
    if (
      embedded &&
      blocksPerSec(embedded) < TARGET_RATIO * ceiling.blocksPerSec &&
      p.probe &&
      performance.now() + probeMs < endBy
    ) {
      try {
        const tried = await follow('embedded', sliceHeight, { ...FOLLOWER_OPTIONS, ...BACKFILL_OPTIONS });
        probe = {
          sliceHeight,
          defaultBlocksPerSec: (sliceHeight * 1000) / embedded.done.sliceMs,
          backfillBlocksPerSec: (sliceHeight * 1000) / tried.done.ms,
        };
      } catch (error) {
        notes.push(
          `${size.label}: the backfill setting's run failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }

    notes.push(
      `${size.label}: devnet ${fmt(n.height)} blocks, ${fmt(n.transactions)} transactions (${fmt(txPerBlock)} a block: ` +
        `${txsPerBlockOption ? `DEVNET_TXS_PER_BLOCK=${TXS_PER_BLOCK}` : 'the built-in mix, this devnet has no DEVNET_TXS_PER_BLOCK'}` +
        `), generated in ${fmt(n.generateMs / 1000)} s (peak RSS ${fmt(n.hwmMB())} MB with generation)`,
      `${size.label}: ceiling ${fmt(measured.reqPerSec)} req/s, p50 ${measured.load.p50} ms, p99 ${measured.load.p99} ms ` +
        `(${p.ceilingSec} s, 256 sampled blocks and their transactions) = ${fmt(ceiling.blocksPerSec)} blocks/s, ` +
        `${fmt(ceiling.txPerSec)} tx/s at ${fmt(1 + txPerBlock)} requests a block` +
        (measured.load.errors + measured.load.non2xx > 0
          ? `; ${measured.load.errors} errors, ${measured.load.non2xx} non-2xx answers`
          : ''),
      ...runs.map(
        (r) =>
          `${size.label} ${r.mode}: ${describe(r.options)}; ${fmt(r.done.ms / 1000)} s, follower CPU ${fmt(r.done.cpuS)} s, ` +
          `peak heap ${fmt(r.done.peakHeapMB)} MB` +
          (r.logBytes === undefined ? '' : `, log ${fmt(r.logBytes / MB)} MB`),
      ),
    );
    return { size, runs, failed, ceiling, probe };
  } finally {
    if (node) await stopChild(node.child, 5_000);
    await rm(dir, { recursive: true, force: true });
  }
}

const blocksPerSec = (run: Run): number => (run.blocks * 1000) / run.done.ms;
const txPerSec = (run: Run): number => (run.transactions * 1000) / run.done.ms;

function rowsOf({ size, runs, failed, ceiling, probe }: SizeResult, notes: string[]): Measure[] {
  const rows: Measure[] = [];
  for (const { mode, reason } of failed) {
    rows.push({
      name: `backfill ${mode} ${size.label} tx blocks/s`,
      value: Number.NaN,
      unit: 'blocks/s',
      ceiling: ceiling.blocksPerSec,
      target: `ratio >= ${TARGET_RATIO.toFixed(2)}`,
      met: false,
    });
    notes.push(`${size.label} ${mode}: failed: ${reason}`);
  }
  for (const run of runs) {
    const name = `backfill ${run.mode} ${size.label} tx`;
    const ratio = blocksPerSec(run) / ceiling.blocksPerSec;
    rows.push(
      {
        name: `${name} blocks/s`,
        value: blocksPerSec(run),
        unit: 'blocks/s',
        ceiling: ceiling.blocksPerSec,
        ratio,
        target: `ratio >= ${TARGET_RATIO.toFixed(2)}`,
        met: ratio >= TARGET_RATIO,
      },
      {
        name: `${name} tx/s`,
        value: txPerSec(run),
        unit: 'tx/s',
        ceiling: ceiling.txPerSec,
        ratio: txPerSec(run) / ceiling.txPerSec,
      },
      { name: `${name} follower CPU`, value: run.done.cpuS / (run.done.ms / 1000), unit: 'cores' },
      { name: `${name} follower peak RSS`, value: run.done.peakRssMB, unit: 'MB' },
      { name: `${name} devnet peak RSS`, value: run.done.nodePeakMB, unit: 'MB' },
    );
    if (run.logBytes !== undefined)
      rows.push({ name: `${name} log bytes/tx`, value: run.logBytes / run.transactions, unit: 'B/tx' });
  }
  if (probe) {
    const o = { ...FOLLOWER_OPTIONS, ...BACKFILL_OPTIONS };
    rows.push({
      name: `backfill embedded ${size.label} tx blockConcurrency ${o.blockConcurrency} vs ${FOLLOWER_OPTIONS.blockConcurrency} (first ${fmt(probe.sliceHeight)} blocks)`,
      value: probe.backfillBlocksPerSec / probe.defaultBlocksPerSec,
      unit: 'x',
      ratio: probe.backfillBlocksPerSec / ceiling.blocksPerSec,
    });
  }
  return rows;
}

export async function runBackfill(options: BenchOptions, withMillion = false): Promise<SectionResult> {
  const p = plan(options, withMillion);
  const notes: string[] = [];
  const rows: Measure[] = [];
  const started = performance.now();
  const modes: Run['mode'][] = ['embedded'];
  let brokers: string[] = [];
  if (options.distributed) {
    brokers = (readEnvFile(join(ROOT, '.infra/env'))['KAFKA_BROKERS'] ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean);
    if (brokers.length > 0) modes.push('distributed');
    else notes.push('distributed: skipped, .infra/env has no KAFKA_BROKERS (npm run infra:up)');
  }
  // The section's deadline kills everything; follower runs stop earlier, so the ceiling and the
  // figures measured so far still make it into the result.
  const endBy = started + p.timeoutMs - FOLLOWER_RESERVE_MS;
  await withDeadline('backfill', p.timeoutMs, async () => {
    for (const size of p.sizes) rows.push(...rowsOf(await measureSize(size, modes, p, brokers, notes, endBy), notes));
  });
  const backfill = { ...FOLLOWER_OPTIONS, ...BACKFILL_OPTIONS };
  notes.push(
    'follower: the real createFollower from height 0 to the devnet head, in a process of its own (peak RSS: its ' +
      'VmHWM), publishing to the file log (embedded) or to Kafka (distributed: gzip batches, acks=all); timed from its ' +
      'start to the head published. CPU: its CPU seconds over the wall time',
    'devnet: the standalone node (services/devnet) in a process of its own, history on disk, no live blocks; peak RSS ' +
      'sampled (VmRSS every 100 ms) during each backfill',
    `ceiling: the devnet alone under autocannon (bench/api-load.ts nodeCeiling: 64 connections, GET /block/{n} and ` +
      `GET /transaction/{id} of sampled blocks) after the backfills; ratio = the follower's rate over the node's, in ` +
      `blocks/s and in the chain's mix of 1 + N requests a block (target >= ${TARGET_RATIO})`,
    ...(p.probe
      ? [
          `when the default setting misses the target, blockConcurrency ${backfill.blockConcurrency} is run over the chain's ` +
            `first ${fmt(PROBE_TRANSACTIONS)} or so transactions and compared with the default's time for the same blocks (x > 1: faster)`,
        ]
      : []),
    ...(modes.includes('distributed')
      ? [
          'distributed: log bytes = the topics’ segment files on the broker (.infra/kafka/data); the topics stay until npm run infra:down',
        ]
      : []),
    ...p.skipped,
    `backfill: ${fmt((performance.now() - started) / 1000)} s in all`,
  );
  return { section: 'backfill', rows, notes };
}

const section: Section = (options) => runBackfill(options, process.env['BENCH_BACKFILL_1M'] === '1');
export default section;

// ---------------------------------------------------------------------------------------------
// Standalone.

if (import.meta.main) {
  if (process.argv.includes('--follower-child')) await followerChild();
  else {
    killChildrenOnSignal();
    const result = await runBackfill(
      { quick: process.argv.includes('--quick'), distributed: process.argv.includes('--distributed') },
      process.argv.includes('--1m') || process.env['BENCH_BACKFILL_1M'] === '1',
    );
    printSection(result);
    process.exit(0);
  }
}
