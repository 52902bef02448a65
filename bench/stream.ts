import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexedHeight } from './api-load.ts';
import {
  distributedRun,
  dropRunDatabase,
  freePort,
  launch,
  printSection,
  sleep,
  statusMB,
  stopChild,
  withDeadline,
  type Child,
} from './harness.ts';
import { percentile } from './percentile.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt } from './support.ts';

/**
 * The live stream under many subscribers, in both modes: the all-in-one explorer (`npm start`), and
 * scripts/start-distributed.ts on the servers of .infra/env, each with its devnet cutting a block
 * every BLOCK_INTERVAL_MS, and N Server-Sent-Events connections to `/api/stream` from this process
 * (N = 1,000 in a full run, 200 quick), each its own socket, for a window of live blocks. Measured:
 *
 * - every connection got every block cut in the window, once, in order (a gap or repeat is counted);
 * - delivery: from `/api/chain` first showing a block (polled every POLL_MS) to the last of the N
 *   connections getting it (p50, p99, max);
 * - the API process's CPU (user + system, from /proc; found by its port when distributed) over the
 *   window, as a share of one core, beside the same length of time with no connection open;
 * - its resident memory with the N connections open, less before they opened, per connection.
 *
 * Standalone: `node bench/stream.ts [--quick] [--distributed]`.
 */
const BLOCK_INTERVAL_MS = 250;
const POLL_MS = 5;
const HISTORY_BLOCKS = 300;
/** As freshness.ts: a history squeezed so that live blocks start at once. */
const HISTORY_DAYS = '0.01';
const TARGET_DELIVERY_P99_MS = 500;

interface Plan {
  connections: number;
  windowMs: number;
}

const plan = (options: BenchOptions): Plan =>
  options.quick ? { connections: 200, windowMs: 10_000 } : { connections: 1_000, windowMs: 30_000 };

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command's closing parenthesis.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One SSE connection: the block heights it got, when, and whether they came in order. */
interface Subscriber {
  blocks: Map<number, number>;
  last: number;
  disorder: number;
  began: Promise<void>;
  close(): void;
}

function subscribe(apiUrl: string): Subscriber {
  const sub: Subscriber = { blocks: new Map(), last: 0, disorder: 0, began: Promise.resolve(), close: () => {} };
  let response: IncomingMessage | undefined;
  sub.began = new Promise((resolve, reject) => {
    const req = request(`${apiUrl}/api/stream`, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      response = res;
      if (res.statusCode !== 200) return reject(new Error(`/api/stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        if (rest === '' && chunk.startsWith('retry:')) resolve();
        const frames = (rest + chunk).split('\n\n');
        rest = frames.pop() ?? '';
        const now = performance.now();
        for (const frame of frames) {
          if (!frame.startsWith('event: block\n')) continue;
          const height = Number(/^id: (\d+)$/m.exec(frame)?.[1]);
          if (sub.last !== 0 && height !== sub.last + 1) sub.disorder++;
          if (!sub.blocks.has(height)) sub.blocks.set(height, now);
          sub.last = height;
        }
      });
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
    sub.close = () => {
      response?.destroy();
      req.destroy();
    };
  });
  return sub;
}

/** CPU share of one core used by `pid` over `ms`. */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  const started = performance.now();
  await sleep(ms);
  return (cpuSeconds(pid) - before) / ((performance.now() - started) / 1000);
}

type Mode = 'embedded' | 'distributed';

/** The pid of the process listening on a loopback port (the API inside a start-distributed stack). */
function pidOn(port: number): number {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (pid === undefined) throw new Error(`no process listens on port ${port}: ${out}`);
  return Number(pid);
}

async function measure(mode: Mode, p: Plan, pid: number, apiUrl: string, notes: string[]): Promise<Measure[]> {
  const idleCpu = await cpuShare(pid, 5_000);
  const rssBefore = statusMB(pid, 'VmRSS') ?? 0;
  const opened = performance.now();
  const subs = Array.from({ length: p.connections }, () => subscribe(apiUrl));
  try {
    await Promise.all(subs.map((s) => s.began));
    const openMs = performance.now() - opened;
    // Every connection has read its start off the head; the window's blocks come after it.
    const first = (await indexedHeight(apiUrl)) + 1;
    const shown = new Map<number, number>();
    let highest = 0;
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    while (performance.now() - started < p.windowMs) {
      const height = await indexedHeight(apiUrl);
      const now = performance.now();
      for (let h = Math.max(highest + 1, first); h <= height; h++) shown.set(h, now);
      highest = Math.max(highest, height);
      await sleep(POLL_MS);
    }
    const windowS = (performance.now() - started) / 1000;
    const cpu = (cpuSeconds(pid) - cpuBefore) / windowS;
    const rssAfter = statusMB(pid, 'VmRSS') ?? 0;
    const last = highest;
    // Give the last blocks shown their time to reach every connection.
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline && !subs.every((s) => s.blocks.has(last))) await sleep(20);

    const delivery: number[] = [];
    let missing = 0;
    for (const [height, at] of shown) {
      let latest = 0;
      for (const s of subs) {
        const got = s.blocks.get(height);
        if (got === undefined) missing++;
        else latest = Math.max(latest, got);
      }
      if (latest > 0) delivery.push(latest - at);
    }
    delivery.sort((a, b) => a - b);
    const disorder = subs.reduce((n, s) => n + s.disorder, 0);
    const n = p.connections;
    notes.push(
      `${mode}: ${n} connections opened in ${fmt(openMs)} ms; blocks ${first}–${last} (${shown.size}) in a ${fmt(windowS)} s window, a block every ${BLOCK_INTERVAL_MS} ms; API process CPU with no connection ${fmt(idleCpu * 100)} % of a core`,
    );
    const what = `stream ${mode} ${n} connections`;
    const p99 = percentile(delivery, 99);
    return [
      { name: `${what}: blocks delivered`, value: shown.size * n - missing, unit: 'events', ceiling: shown.size * n },
      {
        name: `${what}: blocks missing, repeated or out of order`,
        value: missing + disorder,
        unit: 'events',
        target: '= 0',
        met: missing + disorder === 0,
      },
      { name: `${what}: delivery p50 after /api/chain shows the block`, value: percentile(delivery, 50), unit: 'ms' },
      {
        name: `${what}: delivery p99 after /api/chain shows the block`,
        value: p99,
        unit: 'ms',
        target: `<= ${TARGET_DELIVERY_P99_MS} ms`,
        met: p99 <= TARGET_DELIVERY_P99_MS,
      },
      { name: `${what}: delivery max`, value: delivery.at(-1) ?? Number.NaN, unit: 'ms' },
      { name: `${what}: API process CPU`, value: cpu * 100, unit: '% core', ceiling: idleCpu * 100 },
      { name: `${what}: API process RSS added per connection`, value: ((rssAfter - rssBefore) * 1024) / n, unit: 'KB' },
    ];
  } finally {
    for (const s of subs) s.close();
  }
}

/** Waits until the API has indexed the devnet's history. */
async function waitIndexed(apiUrl: string, stack: Child, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (stack.gone()) throw new Error(`${stack.name} exited:\n${stack.output().slice(-3_000)}`);
    if ((await indexedHeight(apiUrl).catch(() => 0)) > HISTORY_BLOCKS) return;
    if (performance.now() > deadline) throw new Error(`the history was not indexed within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

const section: Section = async (options) => {
  const p = plan(options);
  const notes: string[] = [];
  const rows: Measure[] = [];
  // Every connection comes from this one address.
  /** What both modes run with, on ports of their own and a fresh data directory. */
  const settings = async (dataDir: string, port: number): Promise<Record<string, string>> => ({
    STREAM_MAX_PER_CLIENT: String(p.connections),
    STREAM_MAX_CONNECTIONS: String(p.connections),
    DEVNET_HISTORY_BLOCKS: String(HISTORY_BLOCKS),
    DEVNET_HISTORY_DAYS: HISTORY_DAYS,
    DEVNET_BLOCK_INTERVAL_MS: String(BLOCK_INTERVAL_MS),
    DEVNET_PORT: String(await freePort()),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  await withDeadline('stream', 600_000, async () => {
    {
      const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-stream-'));
      const port = await freePort();
      const env: Record<string, string | undefined> = { ...process.env, ...(await settings(dataDir, port)) };
      for (const key of ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL']) delete env[key];
      const explorer = launch('explorer', ['services/explorer/src/main.ts'], env);
      try {
        const apiUrl = `http://127.0.0.1:${port}`;
        await waitIndexed(apiUrl, explorer, 60_000);
        rows.push(...(await measure('embedded', p, explorer.pid, apiUrl, notes)));
      } finally {
        await stopChild(explorer);
        await rm(dataDir, { recursive: true, force: true });
      }
    }
    if (!options.distributed) return;
    const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-stream-'));
    const port = await freePort();
    const run = await distributedRun('benchstream', { ...(await settings(dataDir, port)), PROJECTORS: '1' });
    if ('skipped' in run) {
      notes.push(`distributed: skipped, ${run.skipped}`);
      await rm(dataDir, { recursive: true, force: true });
      return;
    }
    const stack = launch('start-distributed', ['scripts/start-distributed.ts'], run.env);
    try {
      const apiUrl = `http://127.0.0.1:${port}`;
      await waitIndexed(apiUrl, stack, 120_000);
      rows.push(...(await measure('distributed', p, pidOn(port), apiUrl, notes)));
      notes.push(
        `distributed: scripts/start-distributed.ts (devnet, follower, one projector, API) on Kafka ${run.infra['KAFKA_BROKERS']}, MongoDB ${run.mongo.url} (${run.mongo.key}), Redis ${run.infra['REDIS_URL']}`,
      );
    } finally {
      await stopChild(stack);
      await rm(dataDir, { recursive: true, force: true });
      await dropRunDatabase(run);
    }
  });
  return { section: 'stream', rows, notes } satisfies SectionResult;
};

export default section;

if (import.meta.url === `file://${process.argv[1]}`) {
  printSection(
    await section({ quick: process.argv.includes('--quick'), distributed: process.argv.includes('--distributed') }),
  );
}
