import { buildDevnet, indexChain, openAdapters, serveDevnet, tempDir } from './support.ts';

/** Heap retained after indexing N blocks (forced GC): run with --expose-gc. */
const blocks = Number(process.env['BENCH_BLOCKS'] ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mb = (): number => Math.round(process.memoryUsage().heapUsed / 1e6);
const { devnet } = buildDevnet(blocks, 1);
gc();
const afterDevnet = mb();
const server = await serveDevnet(devnet);
const tmp = await tempDir();
const adapters = await openAdapters(tmp.dir);
await indexChain(server.url, devnet.height(), adapters);
gc();
gc();
console.log(
  JSON.stringify({
    blocks,
    heapAfterDevnetMB: afterDevnet,
    heapAfterIndexMB: mb(),
    retainedByPipelineMB: mb() - afterDevnet,
  }),
);
process.exit(0);
