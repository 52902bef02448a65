import { join } from 'node:path';
import { topicNames } from '@mtc/domain';
import {
  BaseParams,
  buildDevnet,
  bytesIn,
  environment,
  exitAfter,
  FOLLOWER_OPTIONS,
  GENESIS_TIME,
  HISTORY_DAYS,
  indexChain,
  openAdapters,
  parseParams,
  printParams,
  printTable,
  replayLog,
  sampleUsage,
  serveDevnet,
  tempDir,
  topicSize,
} from './support.ts';

/**
 * Indexing throughput on the embedded adapters: a fixed devnet served over HTTP in this process,
 * followed and projected by the real follower → file log → projector → SQLite pipeline.
 *
 * Three phases, reported apart because they answer different questions:
 * - devnet generation: the cost of the test chain itself, not of the indexer;
 * - cold index: an empty data dir, follower and projector running together as in `npm start`
 *   (the node, the follower and the projector share this process and its CPU);
 * - replay: the projector alone rebuilding a fresh store from the log it just wrote (`npm run
 *   rebuild`), i.e. indexing with the chain already fetched and decoded.
 *
 * `./node_modules/.bin/node bench/pipeline.ts` (BENCH_BLOCKS, BENCH_SEED, BENCH_TIMEOUT_MS).
 */
const params = parseParams(BaseParams);
exitAfter(params.BENCH_TIMEOUT_MS);

const MB = 2 ** 20;
const perSecond = (n: number, ms: number): number => (n * 1000) / ms;

printParams('bench:pipeline (embedded adapters: file log, SQLite)', {
  ...environment(),
  blocks: params.BENCH_BLOCKS,
  seed: params.BENCH_SEED,
  genesisTime: GENESIS_TIME,
  historyDays: HISTORY_DAYS,
  followerBlockConcurrency: FOLLOWER_OPTIONS.blockConcurrency,
  projectorMaxBatch: 500,
});

const genUsage = sampleUsage();
const { devnet, ms: genMs } = buildDevnet(params.BENCH_BLOCKS, params.BENCH_SEED);
const genPeak = genUsage.stop();
const { counts } = devnet.worldState();
const node = await serveDevnet(devnet);
const tmp = await tempDir();

try {
  const coldUsage = sampleUsage();
  const cold = await openAdapters(tmp.dir);
  const times = await indexChain(node.url, devnet.height(), cold);
  const coldPeak = coldUsage.stop();
  const topics = topicNames();
  const blockEvents = await topicSize(cold.log, topics.blocks);
  const stateEvents = await topicSize(cold.log, topics.state);
  await cold.close();

  // A fresh store and counters beside the cold ones, reading the same log directory.
  const replayUsage = sampleUsage();
  const replay = await openAdapters(join(tmp.dir, 'replay'), join(tmp.dir, 'log'));
  const replayMs = await replayLog(replay, 'bench-replay');
  const replayPeak = replayUsage.stop();
  await replay.close();

  const blocks = devnet.height();
  const txs = counts.transactions;
  const rates = (ms: number): number[] => [ms, perSecond(blocks, ms), perSecond(txs, ms), perSecond(stateEvents, ms)];
  console.log(
    `workload: ${blocks} blocks, ${txs} transactions, ${counts.entries} entries, ${stateEvents} state events`,
  );
  console.log();
  const usage = (u: { cpuS: number; rssMB: number; heapMB: number }): number[] => [u.cpuS, u.rssMB, u.heapMB];
  printTable(
    ['phase', 'ms', 'blocks/s', 'tx/s', 'state ev/s', 'CPU s', 'peak RSS MB', 'peak heap MB'],
    [
      [
        'devnet generation (not indexing)',
        genMs,
        perSecond(blocks, genMs),
        perSecond(txs, genMs),
        '-',
        ...usage(genPeak),
      ],
      ['cold: follow (all blocks on the log)', ...rates(times.followMs), '', '', ''],
      ['cold: project to head (blocks, txs)', ...rates(times.headMs), '', '', ''],
      ['cold: all projected (+ wallets, tokens)', ...rates(times.projectMs), ...usage(coldPeak)],
      ['replay: log → fresh store (no node)', ...rates(replayMs), ...usage(replayPeak)],
    ],
  );
  // Said once under the table, so nobody reads the replay's RSS as the projector's own footprint.
  console.log('ms: from the start of the phase. CPU s: all threads of this process (devnet node included).');
  console.log('peak RSS: the whole process; RSS seldom falls, so a phase inherits the peaks before it.');
  console.log();

  const logDir = join(tmp.dir, 'log');
  const sizes: [string, number][] = [
    [`log: ${topics.blocks} (${blockEvents} messages)`, await bytesIn(logDir, `${topics.blocks}.log`)],
    [`log: ${topics.state} (${stateEvents} messages)`, await bytesIn(logDir, `${topics.state}.log`)],
    ['log: whole dir (with group offsets)', await bytesIn(logDir)],
    ['read models (read-models.sqlite*)', await bytesIn(tmp.dir, 'read-models.sqlite')],
    ['counters (counters.sqlite*)', await bytesIn(tmp.dir, 'counters.sqlite')],
  ];
  printTable(
    ['on disk after the cold run (closed)', 'MB', 'bytes/block'],
    sizes.map(([what, bytes]) => [what, bytes / MB, bytes / blocks]),
  );
} finally {
  await node.close();
  await tmp.remove();
}
process.exit(0);
