import { createDevnet } from './chain/devnet.ts';

/**
 * Generation speed: `node services/devnet/src/bench.ts [blocks] [seed]`. Prints one JSON line with
 * wall and CPU time (CPU includes the garbage collector's helper threads).
 */
const blocks = Number(process.argv[2] ?? 10_000);
const seed = Number(process.argv[3] ?? 1);

const cpu = process.cpuUsage();
const started = performance.now();
const devnet = createDevnet({ seed, genesisTime: 1_700_000_000, historyBlocks: blocks, blockIntervalSec: 5 });
const wallMs = Math.round(performance.now() - started);
const used = process.cpuUsage(cpu);
const { counts } = devnet.worldState();
console.log(
  JSON.stringify({
    seed,
    wallMs,
    cpuMs: Math.round((used.user + used.system) / 1000),
    heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
    ...counts,
  }),
);
