import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedExplorerEnv, freePort, launch, sampleRss, sleep, stopChild } from './harness.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt } from './support.ts';

/**
 * What a new operator sees first: `npm start` (the all-in-one, embedded adapters, its built-in devnet)
 * on a history of N blocks, from the process's start to the first answer of `/api/chain` and to
 * caught up (`localBlock` at the history's head; no live blocks, so the chain stands still). Run for a
 * small and a ten times larger history: a cost per block that does not grow with history takes ten
 * times as long (target ≤ 11×), and the rate from the first answer to caught up is the end-to-end
 * indexing rate (target ≥ 3,000 transactions/s).
 *
 * Standalone: `./node_modules/.bin/node bench/start.ts [--quick]`.
 */
const SIZES = { quick: [1_000, 10_000], full: [3_000, 30_000] };
const TIMEOUT_MS = 1_200_000;
const TARGET_RATIO = 11;
const TARGET_TX_PER_SEC = 3_000;

interface StartRun {
  blocks: number;
  transactions: number;
  firstAnswerMs: number;
  caughtUpMs: number;
  peakRssMB: number;
}

async function startRun(blocks: number): Promise<StartRun> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-start-'));
  const port = await freePort();
  const env = await embeddedExplorerEnv(blocks, dataDir, port);
  const started = performance.now();
  const child = launch('explorer', ['services/explorer/src/main.ts'], env);
  const rss = sampleRss(child.pid);
  const url = `http://127.0.0.1:${port}`;
  let firstAnswerMs: number | undefined;
  let peakRssMB = 0;
  try {
    for (;;) {
      if (child.gone()) throw new Error(`explorer exited:\n${child.output().slice(-2_000)}`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`explorer not caught up to ${blocks}`);
      const res = await fetch(`${url}/api/chain`).catch(() => undefined);
      const chain = res?.ok ? ((await res.json()) as { localBlock: number }) : undefined;
      if (chain && firstAnswerMs === undefined) firstAnswerMs = performance.now() - started;
      if (chain && chain.localBlock >= blocks) break;
      await sleep(100);
    }
    const caughtUpMs = performance.now() - started;
    peakRssMB = rss.stop();
    // Every listed transaction, as the API counts them: the list's pages at one a page.
    const res = await fetch(`${url}/api/transactions?page=1&limit=1`);
    const { totalPages } = (await res.json()) as { totalPages: number };
    return { blocks, transactions: totalPages, firstAnswerMs: firstAnswerMs!, caughtUpMs, peakRssMB };
  } finally {
    if (!peakRssMB) rss.stop();
    await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const section: Section = async (options: BenchOptions): Promise<SectionResult> => {
  const [small, large] = options.quick ? SIZES.quick : SIZES.full;
  const runs: StartRun[] = [];
  for (const blocks of [small!, large!]) runs.push(await startRun(blocks));
  const [a, b] = runs as [StartRun, StartRun];
  const rows: Measure[] = [];
  for (const r of runs) {
    const rate = r.transactions / ((r.caughtUpMs - r.firstAnswerMs) / 1000);
    rows.push(
      { name: `start ${r.blocks} blocks: first answer`, value: r.firstAnswerMs / 1000, unit: 's' },
      { name: `start ${r.blocks} blocks: caught up`, value: r.caughtUpMs / 1000, unit: 's' },
      {
        name: `start ${r.blocks} blocks: tx/s from first answer to caught up (${r.transactions} tx)`,
        value: rate,
        unit: 'tx/s',
        ...(r === b ? { target: `>= ${TARGET_TX_PER_SEC}`, met: rate >= TARGET_TX_PER_SEC } : {}),
      },
      { name: `start ${r.blocks} blocks: peak RSS until caught up`, value: r.peakRssMB, unit: 'MB' },
    );
  }
  const ratio = b.caughtUpMs / a.caughtUpMs;
  rows.push({
    name: `start caught up, ${b.blocks} / ${a.blocks} blocks`,
    value: ratio,
    unit: '×',
    ratio,
    target: `<= ${TARGET_RATIO}`,
    met: ratio <= TARGET_RATIO,
  });
  return {
    section: 'start',
    rows,
    notes: [
      `npm start's process (services/explorer/src/main.ts) with DEVNET_HISTORY_BLOCKS=${a.blocks} and ${b.blocks}, ` +
        `DEVNET_BLOCK_INTERVAL_MS=0 (no live blocks), a fresh DATA_DIR each; /api/chain polled every 100 ms; ` +
        `${fmt(a.transactions)} and ${fmt(b.transactions)} transactions`,
    ],
  };
};

export default section;

if (import.meta.main) {
  const { printSection } = await import('./harness.ts');
  printSection(await section({ quick: process.argv.includes('--quick'), distributed: false }));
}
