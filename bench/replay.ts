import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterConfigSchema, openEventLog, topicsOf } from '@mtc/adapters';
import { createDevnet, type Devnet } from '@mtc/devnet';
import { createFollower } from '@mtc/follower';
import type { ChainSource } from '@mtc/ports';
import { readEnvFile, silentLogger } from '@mtc/runtime';
import type { ReplayJob, ReplayResult } from './replay-child.ts';
import type { BenchOptions, Measure, SectionResult } from './section.ts';
import { printSection } from './harness.ts';
import { GENESIS_TIME, HISTORY_DAYS, sampleUsage, tempDir } from './support.ts';

/**
 * Replay: rebuild fresh read models from the log, at two history sizes, embedded (file log →
 * SQLite) and distributed (Kafka → the MongoDB stand-in, Redis). The log is written first by the
 * real follower reading the devnet in this process (no HTTP: that is the backfill section's
 * subject); each replay then runs in a child process of its own (bench/replay-child.ts), so its
 * peak RSS is the projector's alone. Ceiling: plain bulk puts of the same number of documents of
 * the same mean size into the same store, in the same child, right after the replay.
 *
 * Targets: embedded ≥ 50,000 tx/s; distributed ≥ 50 % of the ceiling; 1M replays in ≤ 11× the
 * time of 100k; the projector's peak RSS at 1M within 1.2× of 100k. The larger size is held to the
 * same rule scaled to it (N/100k × 1.1 in time, 1.2× in memory); see LARGE for why 150k by default.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INFRA_ENV = join(ROOT, '.infra', 'env');
const KAFKA_DATA = join(ROOT, '.infra', 'kafka', 'data');
/** Transactions a non-empty block aims for: enough to reach 1M transactions in ~55,000 blocks. */
const TXS_PER_BLOCK = 20;
const EMPTY_BLOCK_RATE = 0.1;
const MAX_BATCH = 500;
const SEED = 7;

export interface ReplaySizes {
  embedded: number[];
  distributed: number[];
}

/**
 * The full run's larger embedded replay: 150k by default, which keeps the suite within 20 minutes.
 * Events carry whole wallet records, which grow with the history, so the log's bytes per transaction
 * (and the time to write and replay it) grow too: 200k took 6.6 minutes here, 300k 19. BENCH_REPLAY_LARGE=1000000 runs the 1M replay the targets name;
 * it takes far longer (writing its log through the follower dominates, see docs/BENCHMARKS.md).
 */
const LARGE = Number(process.env['BENCH_REPLAY_LARGE'] ?? 150_000);

export function replaySizes(quick: boolean): ReplaySizes {
  if (!Number.isSafeInteger(LARGE) || LARGE < 100_000) throw new RangeError('BENCH_REPLAY_LARGE: 100000 or more');
  return quick
    ? { embedded: [20_000], distributed: [5_000] }
    : { embedded: [100_000, LARGE], distributed: [20_000, 40_000] };
}

function buildHistory(transactions: number, dir: string): { devnet: Devnet; ms: number } {
  const blocks = Math.ceil(transactions / (TXS_PER_BLOCK * (1 - EMPTY_BLOCK_RATE)));
  const started = performance.now();
  const devnet = createDevnet({
    seed: SEED,
    genesisTime: GENESIS_TIME,
    historyBlocks: blocks,
    blockIntervalSec: (HISTORY_DAYS * 86_400) / blocks,
    txsPerBlock: TXS_PER_BLOCK,
    emptyBlockRate: EMPTY_BLOCK_RATE,
    historyDir: dir,
  });
  return { devnet, ms: performance.now() - started };
}

/** The node's read routes straight from the devnet object: the follower's decoding, no HTTP. */
function inProcessChain(devnet: Devnet): ChainSource {
  return {
    height: async () => devnet.height(),
    block: async (id) => devnet.block(id) ?? null,
    transaction: async (id) => devnet.transaction(id) ?? null,
  };
}

/** Writes the devnet's whole history to the log `env` selects; resolves with the ms it took. */
async function writeLog(devnet: Devnet, env: Record<string, string>): Promise<number> {
  const config = AdapterConfigSchema.parse(env);
  const log = await openEventLog(config, silentLogger());
  const abort = new AbortController();
  const height = devnet.height();
  const started = performance.now();
  let done!: () => void;
  const reached = new Promise<void>((resolve) => (done = resolve));
  const following = createFollower({
    chain: inProcessChain(devnet),
    log,
    logger: silentLogger(),
    signal: abort.signal,
    topics: topicsOf(config),
    options: { blockConcurrency: 16, txConcurrency: 16, batchBlocks: 500, pollIntervalMs: 50 },
    onProgress: (published) => {
      if (published >= height) done();
    },
  }).run();
  try {
    await Promise.race([reached, following.then(() => Promise.reject(new Error('the follower stopped early')))]);
    return performance.now() - started;
  } finally {
    abort.abort();
    await following.catch(() => {});
    await log.close();
  }
}

function runChild(job: ReplayJob): Promise<ReplayResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        // kafkajs's request queue sets negative timeouts (harmless; Node 24 warns)
        '--disable-warning=TimeoutNegativeWarning',
        // e.g. BENCH_REPLAY_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' for the replay's profile
        ...(process.env['BENCH_REPLAY_NODE_FLAGS']?.split(' ').filter(Boolean) ?? []),
        join(ROOT, 'bench', 'replay-child.ts'),
        JSON.stringify(job),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`replay child exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ReplayResult);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function bytesUnder(dir: string, match: (name: string) => boolean = () => true): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path, match);
    else if (match(entry.name)) total += statSync(path).size;
  }
  return total;
}

/** Which MongoDB the distributed figures use: the bulk-write stand-in when infra:up started one. */
export function distributedStores(): { env: Record<string, string>; mongo: string } | null {
  const file = readEnvFile(INFRA_ENV);
  const env = { ...file, ...process.env } as Record<string, string | undefined>;
  const mongo = env['MONGO_JAVA_URL'] ?? env['MONGO_URL'];
  if (!env['KAFKA_BROKERS'] || !mongo || !env['REDIS_URL']) return null;
  return {
    env: { KAFKA_BROKERS: env['KAFKA_BROKERS'], MONGO_URL: mongo, REDIS_URL: env['REDIS_URL'] },
    mongo: env['MONGO_JAVA_URL'] ? `mongo-java-server (${mongo})` : `FerretDB (${mongo})`,
  };
}

interface Run {
  mode: 'embedded' | 'distributed';
  transactions: number;
  blocks: number;
  logMs: number;
  result: ReplayResult;
  logBytes: number;
  storeBytes: number | null;
}

export default async function replay(options: BenchOptions): Promise<SectionResult> {
  const sizes = replaySizes(options.quick);
  const notes: string[] = [];
  const runs: Run[] = [];
  const stores = options.distributed ? distributedStores() : null;
  if (options.distributed && !stores) notes.push('distributed replay skipped: no Kafka/MongoDB/Redis in .infra/env');
  if (stores) notes.push(`distributed store: ${stores.mongo}`);

  const plan: { mode: Run['mode']; transactions: number }[] = [
    ...sizes.embedded.map((transactions) => ({ mode: 'embedded' as const, transactions })),
    ...(stores ? sizes.distributed.map((transactions) => ({ mode: 'distributed' as const, transactions })) : []),
  ];
  for (const { mode, transactions } of plan) {
    const tmp = await tempDir();
    try {
      const history = join(tmp.dir, 'devnet');
      await mkdir(history, { recursive: true });
      const gen = sampleUsage();
      const { devnet, ms: genMs } = buildHistory(transactions, history);
      const genUsage = gen.stop();
      const counted = devnet.worldState().counts.transactions;
      const id = randomUUID().slice(0, 8);
      const env: Record<string, string> =
        mode === 'embedded'
          ? { DATA_DIR: join(tmp.dir, 'data') }
          : {
              ...stores!.env,
              TOPIC_PREFIX: `bench-${id}.`,
              MONGO_DATABASE: `bench_${id}`,
              REDIS_PREFIX: `bench:${id}:`,
              DATA_DIR: join(tmp.dir, 'data'),
            };
      const logMs = await writeLog(devnet, env);
      const result = await runChild({
        env,
        group: `bench-replay-${id}`,
        maxBatch: MAX_BATCH,
        timeoutMs: 30 * 60_000,
      });
      const logBytes =
        mode === 'embedded'
          ? bytesUnder(join(tmp.dir, 'data', 'log'), (n) => n.endsWith('.log'))
          : kafkaTopicBytes(`bench-${id}.`);
      const storeBytes =
        mode === 'embedded' ? bytesUnder(join(tmp.dir, 'data'), (n) => n.startsWith('read-models')) : null;
      runs.push({ mode, transactions: counted, blocks: devnet.height(), logMs, result, logBytes, storeBytes });
      notes.push(
        `${mode} ${counted} tx: devnet generated in ${Math.round(genMs)} ms (peak RSS ${Math.round(genUsage.rssMB)} MB, bench process); log written in ${Math.round(logMs)} ms`,
      );
    } finally {
      await tmp.remove();
    }
  }

  const rows: Measure[] = [];
  for (const run of runs) {
    const { result } = run;
    const txPerSec = (run.transactions * 1000) / result.replayMs;
    const label = `replay ${run.mode} ${fmtCount(run.transactions)} tx`;
    if (run.mode === 'embedded') {
      rows.push({
        name: `${label}: tx/s`,
        value: txPerSec,
        unit: 'tx/s',
        target: '>= 50,000',
        met: txPerSec >= 50_000,
      });
    } else {
      rows.push({ name: `${label}: tx/s`, value: txPerSec, unit: 'tx/s' });
    }
    const ratio = result.ceilingMs / result.replayMs;
    rows.push({
      name: `${label}: docs/s vs bulk-put ceiling`,
      value: (result.docs * 1000) / result.replayMs,
      unit: 'docs/s',
      ceiling: (result.docs * 1000) / result.ceilingMs,
      ratio,
      ...(run.mode === 'distributed' ? { target: 'ratio >= 0.50', met: ratio >= 0.5 } : {}),
    });
    rows.push({
      name: `${label}: CPU time per 1,000 tx`,
      value: (result.replayCpuMs * 1000) / run.transactions,
      unit: 'ms',
    });
    rows.push({ name: `${label}: projector peak RSS`, value: result.peakRssMB, unit: 'MB' });
    rows.push({ name: `${label}: log bytes/tx`, value: run.logBytes / run.transactions, unit: 'B/tx' });
    if (run.storeBytes !== null)
      rows.push({ name: `${label}: read-model bytes/tx`, value: run.storeBytes / run.transactions, unit: 'B/tx' });
  }
  for (const mode of ['embedded', 'distributed'] as const) {
    const [small, large] = runs.filter((r) => r.mode === mode);
    if (!small || !large) continue;
    const scale = large.transactions / small.transactions;
    const timeRatio = large.result.replayMs / small.result.replayMs;
    rows.push({
      name: `replay ${mode}: time ${fmtCount(large.transactions)} / ${fmtCount(small.transactions)} tx (×${scale.toFixed(1)} work)`,
      value: timeRatio,
      unit: '×',
      target: `<= ${(scale * 1.1).toFixed(1)}`,
      met: timeRatio <= scale * 1.1,
    });
    const memRatio = large.result.peakRssMB / small.result.peakRssMB;
    rows.push({
      name: `replay ${mode}: projector peak RSS ${fmtCount(large.transactions)} / ${fmtCount(small.transactions)}`,
      value: memRatio,
      unit: '×',
      target: '<= 1.2',
      met: memRatio <= 1.2,
    });
  }
  notes.push(
    `devnet: seed ${SEED}, ${TXS_PER_BLOCK} tx per non-empty block, ${EMPTY_BLOCK_RATE * 100} % empty blocks; projector batches of ${MAX_BATCH} records; ceiling = ReadStore.write of plain puts, ${500} per call, same mean document size`,
  );
  return { section: 'replay', rows, notes };
}

function kafkaTopicBytes(prefix: string): number {
  if (!existsSync(KAFKA_DATA)) return NaN;
  let total = 0;
  for (const entry of readdirSync(KAFKA_DATA, { withFileTypes: true }))
    if (entry.isDirectory() && entry.name.startsWith(prefix))
      total += bytesUnder(join(KAFKA_DATA, entry.name), (n) => n.endsWith('.log'));
  return total;
}

const fmtCount = (n: number): string =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  const distributed = !process.argv.includes('--embedded-only');
  printSection(await replay({ quick, distributed }));
  process.exit(0);
}
