import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDevnet } from './chain/devnet.ts';
import { createRng } from './rng.ts';
import { HISTORY_FILES } from './history/file-history.ts';

/**
 * Generation speed and footprint:
 * `node [--expose-gc] services/devnet/src/bench.ts [--blocks 10000] [--seed 1] [--txs-per-block N]
 * [--memory] [--reads 20000]`. Generates a history (on disk in a temporary directory unless
 * --memory), then times random `block(h)` and `transaction(id)` reads. Prints one JSON line: wall
 * and CPU time (CPU includes the garbage collector's helper threads), RSS after generation and at
 * peak, the live heap (with --expose-gc), bytes on disk, µs per read.
 */
const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    'txs-per-block': { type: 'string' },
    memory: { type: 'boolean', default: false },
    reads: { type: 'string', default: '20000' },
  },
});
const seed = Number(values.seed);
const reads = Number(values.reads);
const historyDir = values.memory ? undefined : mkdtempSync(join(tmpdir(), 'mtc-devnet-bench-'));

try {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const devnet = createDevnet({
    seed,
    genesisTime: 1_700_000_000,
    historyBlocks: Number(values.blocks),
    blockIntervalSec: 5,
    txsPerBlock: values['txs-per-block'] === undefined ? undefined : Number(values['txs-per-block']),
    historyDir,
  });
  const wallMs = Math.round(performance.now() - started);
  const used = process.cpuUsage(cpu);
  const rssMB = Math.round(process.memoryUsage().rss / 1e6);
  // With --expose-gc: what stays alive (the world state, the history's indexes), not the garbage.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const liveHeapMB = gc ? Math.round(process.memoryUsage().heapUsed / 1e6) : undefined;
  const { counts } = devnet.worldState();
  const arrayBuffersMB = Math.round(process.memoryUsage().arrayBuffers / 1e6);

  // Random reads: blocks by height, then one listed transaction of each, as the server reads them
  // (the stored JSON) and as block()/transaction() hand them out (parsed).
  const rng = createRng(seed);
  const heights = Array.from({ length: reads }, () => rng.int(1, devnet.height()));
  const ids = heights.flatMap((h) => {
    const { transaction } = devnet.block(h)!;
    return transaction.length > 0 ? [rng.pick(transaction).id] : [];
  });
  const timeUs = (run: () => void, n: number): number => {
    const t = performance.now();
    run();
    return Number((((performance.now() - t) * 1000) / Math.max(1, n)).toFixed(1));
  };
  let servedBytes = 0;
  const blockJsonUs = timeUs(() => heights.forEach((h) => devnet.blockJson(h)), heights.length);
  const blockUs = timeUs(() => heights.forEach((h) => devnet.block(h)), heights.length);
  const txJsonUs = timeUs(() => ids.forEach((id) => (servedBytes += devnet.transactionJson(id)!.length)), ids.length);
  const txUs = timeUs(() => ids.forEach((id) => devnet.transaction(id)), ids.length);
  devnet.close();

  const fileBytes = (name: string) => (historyDir ? statSync(join(historyDir, name)).size : 0);
  const files = Object.fromEntries(
    Object.entries(HISTORY_FILES).map(([key, name]) => [`${key}MB`, Math.round(fileBytes(name) / 1e6)]),
  );
  const stored = Object.values(HISTORY_FILES).reduce((sum, name) => sum + fileBytes(name), 0);
  const disk = historyDir ? { ...files, bytesPerTx: Math.round(stored / counts.transactions) } : {};
  console.log(
    JSON.stringify({
      seed,
      history: historyDir ? 'disk' : 'memory',
      txsPerBlock: values['txs-per-block'] ?? 'built-in',
      wallMs,
      cpuMs: Math.round((used.user + used.system) / 1000),
      rssMB,
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1000),
      liveHeapMB,
      arrayBuffersMB,
      ...counts,
      txsPerListedBlock: Number((counts.transactions / counts.blocks).toFixed(2)),
      ...disk,
      servedKBPerTx: Math.round(servedBytes / Math.max(1, ids.length) / 1000),
      blockJsonUs,
      blockUs,
      txJsonUs,
      txUs,
    }),
  );
} finally {
  if (historyDir) rmSync(historyDir, { recursive: true, force: true });
}
