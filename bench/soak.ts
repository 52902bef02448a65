import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { collectIds, P99_MS, planRows, STRICT, type Row } from './api-load.ts';
import {
  freePort,
  killChildrenOnSignal,
  launch,
  printSection,
  sleep,
  statusMB,
  stopChild,
  withDeadline,
  type Child,
} from './harness.ts';
import { load, type LoadResult } from './load.ts';
import { pacedLoad, type PacedWindow } from './paced-load.ts';
import { percentile } from './percentile.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt, printTable } from './support.ts';

/**
 * The soak: the all-in-one explorer (`npm start`, embedded adapters) serving a steady mixed load
 * for minutes while its devnet cuts a live block every SOAK_BLOCK_INTERVAL_MS and it indexes them.
 * What a short load row cannot show: errors that only come with time, latency that creeps up,
 * memory that is never given back, an indexer starved by the API.
 *
 * 1. The requests: every GET of the OpenAPI document with real ids, lists at page 1 and deep, chosen
 *    as the API section chooses them (bench/api-load.ts), mixed by `weightOf`.
 * 2. The maximum: that mix at 64 connections, as fast as the explorer answers (autocannon).
 * 3. The soak: the same mix at half that rate, a fixed rate (bench/paced-load.ts), for SOAK_SECONDS,
 *    read in 10 s windows: requests, non-2xx, failures, timeouts, p50/p99, the explorer's RSS
 *    (VmRSS of its process, every second) and its indexed head.
 *
 * Targets (the issue: zero errors, p99 stable, RSS drift <= 10 %), with the run cut into a warm-up
 * (the first minute; a third of a shorter run), an early span (the minute after it) and a late span
 * (the last minute; shorter runs: as long as the early span):
 * - no answer other than 2xx and no failed or timed-out exchange, in the soak and in the maximum run
 *   (every id was drawn from the API and answered 2xx when probed, so a 404 is an error too);
 * - the late span's p99 within 1.5x of the early span's, and no window after the warm-up with a
 *   p99 over 20 ms (the API section's p99 target, there at full load);
 * - RSS at the end (median of the last window's samples) within +10 % of RSS after the warm-up
 *   (median of the first window after it);
 * - the rate held (answers at >= 0.95 of the offered rate), the indexed head advanced in every
 *   window, and nothing logged at error level.
 *
 * `npm run bench -- --only=soak [--quick]`; standalone `./node_modules/.bin/node bench/soak.ts [--quick]`.
 * SOAK_SECONDS (default 300, 60 with --quick; a multiple of 10) and SOAK_BLOCK_INTERVAL_MS (1000).
 */
const Params = z.object({
  SOAK_SECONDS: z.coerce.number().int().min(30).max(86_400).multipleOf(10).optional(),
  SOAK_BLOCK_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
});

const CONNECTIONS = 64;
const WINDOW_SEC = 10;
const WARMUP_MAX_SEC = 60;
const SPAN_MAX_SEC = 60;
const REQUEST_TIMEOUT_MS = 10_000;
const RSS_SAMPLE_MS = 1_000;
const P99_GROWTH = 1.5;
const RSS_DRIFT_PCT = 10;
const RATE_HELD = 0.95;
/** Paths per weight unit of a row: its ids rotate within them. */
const SLOTS = 24;

/**
 * How often each row is requested, relative to the others: the home page's four (STRICT: the
 * chain, the day's statistics, the newest blocks and transactions) most, a page or entity a user
 * opens next half as often, deep pages least.
 */
function weightOf(row: Row): number {
  if (STRICT.has(row.label)) return 4;
  return row.kind === 'deep' ? 1 : 2;
}

interface Plan {
  historyBlocks: number;
  blockIntervalMs: number;
  soakSec: number;
  warmupLoadSec: number;
  maxSec: number;
  readyTimeoutMs: number;
}

function planOf(options: BenchOptions): Plan {
  const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = Params.safeParse(env);
  if (!parsed.success) throw new Error(`invalid soak parameters:\n${z.prettifyError(parsed.error)}`);
  return {
    historyBlocks: options.quick ? 3_000 : 10_000,
    blockIntervalMs: parsed.data.SOAK_BLOCK_INTERVAL_MS,
    soakSec: parsed.data.SOAK_SECONDS ?? (options.quick ? 60 : 300),
    warmupLoadSec: options.quick ? 2 : 3,
    maxSec: options.quick ? 8 : 12,
    readyTimeoutMs: options.quick ? 180_000 : 300_000,
  };
}

/** Windows of the run: `warmup` first, then the early span; the late span is the last `span`. */
function spans(windows: number): { warmup: number; span: number } {
  const warmup = Math.min(WARMUP_MAX_SEC / WINDOW_SEC, Math.floor(windows / 3));
  const span = Math.min(SPAN_MAX_SEC / WINDOW_SEC, Math.floor((windows - warmup) / 2));
  return { warmup, span };
}

// ---------------------------------------------------------------------------------------------
// The explorer, its head and its memory.

const Chain = z.object({ localBlock: z.number(), mainnetBlock: z.number() });
type Chain = z.infer<typeof Chain>;

async function readChain(base: string): Promise<Chain> {
  const res = await fetch(`${base}/api/chain`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET /api/chain answered ${res.status}`);
  return Chain.parse(await res.json());
}

/** Polls /api/chain until the history is indexed and the index has reached the node's head. */
async function waitIndexed(base: string, explorer: Child, history: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (explorer.gone()) throw new Error(`the explorer exited:\n${explorer.output()}`);
    try {
      const chain = await readChain(base);
      last = `localBlock ${chain.localBlock}, mainnetBlock ${chain.mainnetBlock}`;
      if (chain.localBlock >= history && chain.localBlock >= chain.mainnetBlock - 2) return chain.localBlock;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(500);
  }
  throw new Error(`the explorer did not index its history within ${timeoutMs} ms (${last}):\n${explorer.output()}`);
}

/** What the explorer logged at warn level and above (pino's JSON lines), with the first few messages. */
interface LogCount {
  warn: number;
  error: number;
  first: string[];
  counting: boolean;
}

function countLine(count: LogCount, line: string): void {
  if (!count.counting || !line.startsWith('{')) return;
  let entry: { level?: unknown; msg?: unknown; component?: unknown };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return;
  }
  if (typeof entry.level !== 'number' || entry.level < 40) return;
  if (entry.level >= 50) count.error++;
  else count.warn++;
  const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? '?'));
  if (count.first.length < 5) count.first.push(`${text(entry.component)}: ${text(entry.msg)}`);
}

// ---------------------------------------------------------------------------------------------
// The request mix.

/** Every row's paths, repeated by its weight and shuffled (deterministically) into one rotation. */
function buildMix(rows: readonly Row[]): string[] {
  const mix: string[] = [];
  for (const row of rows) {
    const slots = weightOf(row) * SLOTS;
    for (let i = 0; i < slots; i++) mix.push(row.paths[i % row.paths.length]!);
  }
  let state = 7;
  for (let i = mix.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [mix[i], mix[j]] = [mix[j]!, mix[i]!];
  }
  return mix;
}

// ---------------------------------------------------------------------------------------------
// The soak and its windows.

export interface SoakWindow {
  index: number;
  /** Seconds since the soak began, at the window's end. */
  atSec: number;
  load: PacedWindow;
  answered: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
  /** Median of the explorer's RSS samples within the window (MiB). */
  rssMB: number;
  /** Indexed head and node height read right after the window closed. */
  head: number | undefined;
  nodeHeight: number | undefined;
}

function merged(windows: readonly SoakWindow[]): Float64Array {
  const all = new Float64Array(windows.reduce((n, w) => n + w.load.latencies.length, 0));
  let at = 0;
  for (const w of windows) {
    all.set(w.load.latencies, at);
    at += w.load.latencies.length;
  }
  return all.sort();
}

const failuresOf = (w: PacedWindow): number =>
  w.errors + w.timeouts + Object.values(w.non2xx).reduce((sum, n) => sum + n, 0);

interface Measured {
  plan: Plan;
  max: LoadResult;
  rate: number;
  windows: SoakWindow[];
  headBefore: Chain;
  headAfter: Chain;
  logs: LogCount;
  peakRssMB: number;
}

async function soak(plan: Plan, notes: string[], onWindow?: (w: SoakWindow) => void): Promise<Measured> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-soak-'));
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEVNET_HISTORY_BLOCKS: String(plan.historyBlocks),
    DEVNET_BLOCK_INTERVAL_MS: String(plan.blockIntervalMs),
    // The embedded demo's default; said here so a shell that turned it on does not limit the load.
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  };
  // Embedded adapters whatever the shell has set.
  for (const key of ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL']) delete env[key];
  const logs: LogCount = { warn: 0, error: 0, first: [], counting: false };
  const started = performance.now();
  const explorer = launch('explorer', ['services/explorer/src/main.ts'], env, { onLine: (l) => countLine(logs, l) });
  try {
    const base = `http://127.0.0.1:${port}`;
    const height = await waitIndexed(base, explorer, plan.historyBlocks, plan.readyTimeoutMs);
    const readyS = (performance.now() - started) / 1000;

    const planning = performance.now();
    const rows = await planRows(base, await collectIds(base), notes);
    const mix = buildMix(rows).map((p) => `${base}${p}`);
    const planS = (performance.now() - planning) / 1000;

    // JIT, statement caches and connections warm up on the whole mix before the maximum is taken.
    await load(mix, { connections: CONNECTIONS, durationSec: plan.warmupLoadSec });
    const max = await load(mix, { connections: CONNECTIONS, durationSec: plan.maxSec });
    const rate = Math.max(1, Math.floor(max.reqPerSec / 2));

    const rss: { atMs: number; mb: number }[] = [];
    let peakRssMB = 0;
    const sampleRss = (): void => {
      const mb = statusMB(explorer.pid, 'VmRSS');
      if (mb === undefined) return;
      rss.push({ atMs: Date.now(), mb });
      peakRssMB = Math.max(peakRssMB, mb);
    };
    const headBefore = await readChain(base);
    const soakStart = Date.now();
    sampleRss();
    const sampler = setInterval(sampleRss, RSS_SAMPLE_MS);
    logs.counting = true;
    const windows: SoakWindow[] = [];
    const pending: Promise<void>[] = [];
    try {
      await pacedLoad(
        mix,
        {
          ratePerSec: rate,
          durationSec: plan.soakSec,
          windowSec: WINDOW_SEC,
          connections: CONNECTIONS,
          maxOutstanding: Math.max(1_024, rate),
          timeoutMs: REQUEST_TIMEOUT_MS,
        },
        (paced) => {
          sampleRss();
          const inside = rss.filter((s) => s.atMs >= paced.startMs && s.atMs <= paced.endMs).map((s) => s.mb);
          const window: SoakWindow = {
            index: paced.index,
            atSec: (paced.endMs - soakStart) / 1000,
            load: paced,
            answered: paced.ok + Object.values(paced.non2xx).reduce((sum, n) => sum + n, 0),
            failed: failuresOf(paced),
            p50: percentile(paced.latencies, 50),
            p99: percentile(paced.latencies, 99),
            max: percentile(paced.latencies, 100),
            rssMB: percentile(Float64Array.from(inside).sort(), 50),
            head: undefined,
            nodeHeight: undefined,
          };
          windows.push(window);
          // The head is read as the window closes; a read that fails leaves it unknown (not advanced).
          pending.push(
            readChain(base).then(
              (chain) => {
                window.head = chain.localBlock;
                window.nodeHeight = chain.mainnetBlock;
                onWindow?.(window);
              },
              () => onWindow?.(window),
            ),
          );
        },
      );
      await Promise.all(pending);
    } finally {
      clearInterval(sampler);
      logs.counting = false;
    }
    const headAfter = await readChain(base);
    notes.push(
      `embedded: services/explorer (npm start) on file log + SQLite, devnet history ${plan.historyBlocks} blocks, ` +
        `a live block every ${plan.blockIntervalMs} ms; indexed to ${height} in ${fmt(readyS)} s; ` +
        `${rows.length} rows from ${new Set(rows.map((r) => r.template)).size} operations chosen in ${fmt(planS)} s`,
      `mix (weight x ids rotated): ${rows.map((r) => `${r.label} ${weightOf(r)}x${r.paths.length}`).join(', ')}; ` +
        `${mix.length} requests a rotation, shuffled`,
    );
    return { plan, max, rate, windows, headBefore, headAfter, logs, peakRssMB };
  } finally {
    await stopChild(explorer);
    await rm(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Rows of the section.

function toSection(m: Measured, notes: string[]): SectionResult {
  const { windows, plan } = m;
  const { warmup, span } = spans(windows.length);
  const afterWarmup = windows.slice(warmup);
  const early = windows.slice(warmup, warmup + span);
  const late = windows.slice(windows.length - span);
  const name = (what: string): string => `soak embedded ${what}`;

  const seconds = windows.reduce((s, w) => s + (w.load.endMs - w.load.startMs), 0) / 1000;
  const answered = windows.reduce((n, w) => n + w.answered, 0);
  const failed = windows.reduce((n, w) => n + w.failed, 0);
  const skipped = windows.reduce((n, w) => n + w.load.skipped, 0);
  const answeredRate = answered / seconds;
  const maxFailed = m.max.errors + m.max.non2xx;

  const p99Early = percentile(merged(early), 99);
  const p99Late = percentile(merged(late), 99);
  const growth = p99Late / p99Early;
  const worst = afterWarmup.reduce<SoakWindow | undefined>((w, x) => (w && w.p99 >= x.p99 ? w : x), undefined);
  const worstP99 = worst?.p99 ?? NaN;

  const rssStart = windows[warmup]?.rssMB ?? NaN;
  const rssEnd = windows.at(-1)?.rssMB ?? NaN;
  const driftPct = (rssEnd / rssStart - 1) * 100;

  let previous = m.headBefore.localBlock;
  let advanced = 0;
  for (const w of windows) {
    if (w.head !== undefined && w.head > previous) advanced++;
    previous = w.head ?? previous;
  }
  const indexed = m.headAfter.localBlock - m.headBefore.localBlock;
  const nodeCut = m.headAfter.mainnetBlock - m.headBefore.mainnetBlock;

  const rows: Measure[] = [
    { name: name('max req/s (mix, 64 connections)'), value: m.max.reqPerSec, unit: 'req/s' },
    {
      name: name('max run errors'),
      value: maxFailed,
      unit: 'requests',
      target: '= 0',
      met: maxFailed === 0 && m.max.requests > 0,
    },
    {
      name: name('offered rate'),
      value: m.rate,
      unit: 'req/s',
      ceiling: m.max.reqPerSec,
      ratio: m.rate / m.max.reqPerSec,
    },
    {
      name: name('answered rate'),
      value: answeredRate,
      unit: 'req/s',
      ceiling: m.rate,
      ratio: answeredRate / m.rate,
      target: `ratio >= ${RATE_HELD}`,
      met: answeredRate / m.rate >= RATE_HELD,
    },
    { name: name('requests answered'), value: answered, unit: 'requests' },
    {
      name: name('errors (non-2xx, failed, timed out, not sent)'),
      value: failed + skipped,
      unit: 'requests',
      target: '= 0',
      met: failed + skipped === 0 && answered > 0,
    },
    { name: name('p50 after warm-up'), value: percentile(merged(afterWarmup), 50), unit: 'ms' },
    { name: name('p99 early (span after warm-up)'), value: p99Early, unit: 'ms' },
    { name: name('p99 late (last span)'), value: p99Late, unit: 'ms' },
    {
      name: name('p99 late / early'),
      value: growth,
      unit: 'x',
      ratio: growth,
      target: `<= ${P99_GROWTH}`,
      met: growth <= P99_GROWTH,
    },
    {
      name: name(`highest ${WINDOW_SEC} s window p99 after warm-up`),
      value: worstP99,
      unit: 'ms',
      target: `<= ${P99_MS} ms`,
      met: worstP99 <= P99_MS,
    },
    { name: name('RSS after warm-up'), value: rssStart, unit: 'MB' },
    { name: name('RSS at the end'), value: rssEnd, unit: 'MB' },
    {
      name: name('RSS drift (end vs after warm-up)'),
      value: driftPct,
      unit: '%',
      target: `<= ${RSS_DRIFT_PCT} %`,
      met: driftPct <= RSS_DRIFT_PCT,
    },
    { name: name('peak RSS'), value: m.peakRssMB, unit: 'MB' },
    {
      name: name('blocks indexed during the soak'),
      value: indexed,
      unit: 'blocks',
      ceiling: nodeCut,
      ratio: indexed / nodeCut,
      target: '> 0',
      met: indexed > 0,
    },
    {
      name: name('windows in which the indexed head advanced'),
      value: advanced,
      unit: 'windows',
      ceiling: windows.length,
      ratio: advanced / windows.length,
      target: 'all',
      met: advanced === windows.length && windows.length > 0,
    },
    {
      name: name('explorer log lines at error level'),
      value: m.logs.error,
      unit: 'lines',
      target: '= 0',
      met: m.logs.error === 0,
    },
  ];

  const statuses: Record<string, number> = {};
  const codes: Record<string, number> = {};
  for (const w of windows) {
    for (const [status, n] of Object.entries(w.load.non2xx)) statuses[status] = (statuses[status] ?? 0) + n;
    for (const [code, n] of Object.entries(w.load.errorCodes)) codes[code] = (codes[code] ?? 0) + n;
  }
  notes.push(
    `${plan.soakSec} s at ${fmt(m.rate)} req/s (half of the ${plan.maxSec} s maximum at ${CONNECTIONS} ` +
      `connections), evenly paced, at most ${CONNECTIONS} keep-alive sockets, timeout ${REQUEST_TIMEOUT_MS / 1000} s; ` +
      `windows of ${WINDOW_SEC} s: warm-up ${warmup * WINDOW_SEC} s, early span windows ${warmup + 1}-${warmup + span}, ` +
      `late span windows ${windows.length - span + 1}-${windows.length}; latency from issue to last byte, 2xx only`,
    `failures ${failed} (timeouts ${windows.reduce((n, w) => n + w.load.timeouts, 0)}, ` +
      `failed exchanges ${JSON.stringify(codes)}, non-2xx ${JSON.stringify(statuses)}), ` +
      `not sent for a backlog ${skipped}; maximum run: ${m.max.errors} failed, ${m.max.non2xx} non-2xx; ` +
      `explorer logged ${m.logs.warn} warnings and ${m.logs.error} errors during the soak` +
      (m.logs.first.length > 0 ? ` (first: ${m.logs.first.join(' | ')})` : ''),
    `indexed head ${m.headBefore.localBlock} -> ${m.headAfter.localBlock}, node ${m.headBefore.mainnetBlock} -> ` +
      `${m.headAfter.mainnetBlock}; RSS is VmRSS of the explorer process (all its threads) every ` +
      `${RSS_SAMPLE_MS / 1000} s, a window's figure the median of its samples` +
      (worst ? `; highest window p99 in window ${worst.index + 1}` : ''),
    ...windows.map(
      (w) =>
        `window ${w.index + 1} (${fmt(w.atSec)} s): ${w.answered} answered, ${w.failed} failed, ` +
        `${w.load.skipped} not sent, p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms, max ${fmt(w.max)} ms, ` +
        `RSS ${fmt(w.rssMB)} MB, head ${w.head ?? '?'} (node ${w.nodeHeight ?? '?'})`,
    ),
  );
  return { section: 'soak', rows, notes };
}

async function run(options: BenchOptions, onWindow?: (w: SoakWindow) => void): Promise<SectionResult> {
  const plan = planOf(options);
  const notes: string[] = [];
  if (options.distributed) notes.push('embedded only: the soak runs the all-in-one explorer');
  // Ready, plan and both loads, with room to spare; a soak that overruns it is stopped and reported.
  const deadlineMs = plan.readyTimeoutMs + plan.soakSec * 1_000 + 180_000;
  const measured = await withDeadline('the soak', deadlineMs, () => soak(plan, notes, onWindow));
  return toSection(measured, notes);
}

const section: Section = (options) => run(options);
export default section;

if (import.meta.main) {
  killChildrenOnSignal();
  const options: BenchOptions = { quick: process.argv.includes('--quick'), distributed: false };
  const started = performance.now();
  const windows: SoakWindow[] = [];
  const result = await run(options, (w) => {
    windows.push(w);
    console.error(`window ${w.index + 1}: p99 ${fmt(w.p99)} ms, RSS ${fmt(w.rssMB)} MB, head ${w.head ?? '?'}`);
  });
  printTable(
    ['window', 'at s', 'issued', 'answered', 'failed', 'not sent', 'p50 ms', 'p99 ms', 'max ms', 'RSS MB', 'head'],
    windows.map((w) => [
      w.index + 1,
      w.atSec,
      w.load.issued,
      w.answered,
      w.failed,
      w.load.skipped,
      w.p50,
      w.p99,
      w.max,
      w.rssMB,
      w.head ?? '?',
    ]),
  );
  printSection({ ...result, notes: result.notes.filter((n) => !/^window \d+ /.test(n)) });
  console.log(`\nsoak: ${fmt((performance.now() - started) / 1000)} s`);
}
