import { AdapterConfigSchema, createHttpChainSource, describeAdapters, openEventLog, topicsOf } from '@mtc/adapters';
import { createMetricsRegistry, createServiceContext, port, startOpsServer, trackCatchUp } from '@mtc/runtime';
import { z } from 'zod';
import { createFollower } from './follower.ts';
import { followerMetrics } from './metrics.ts';

/** The follower on its own: node → log. Distributed mode runs exactly one. */
const Config = AdapterConfigSchema.extend({
  CHAIN_NODE_URL: z.url({ protocol: /^https?$/ }),
  LOG_LEVEL: z.string().default('info'),
  OPS_PORT: port.default(9101),
  OPS_HOST: z.string().default('127.0.0.1'),
  FOLLOWER_BLOCK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  FOLLOWER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  /** Most blocks per publish (the checkpoint moves once per batch). */
  FOLLOWER_BATCH_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(200),
  /** A block under the node's head or a listed transaction the node does not serve for this long stops the follower. */
  FOLLOWER_MISSING_GIVE_UP_MS: z.coerce.number().int().min(1_000).default(600_000),
  /** No block published for this long while the node is ahead is logged and counted as a stall. */
  FOLLOWER_STALL_AFTER_MS: z.coerce.number().int().min(1_000).default(60_000),
  /** Deadline of one node request, body included: a silent or trickling node fails as `timeout` after it. */
  FOLLOWER_NODE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  READY_MAX_LAG: z.coerce.number().int().min(0).default(5),
});

const ctx = createServiceContext('follower', Config);
const { config, logger, shutdown } = ctx;
const registry = createMetricsRegistry('follower');
const gauges = followerMetrics(registry);

const log = await openEventLog(config, logger);
shutdown.add('log', () => log.close());
logger.info(describeAdapters(config), 'adapters');
/** Where the follower stands (its head polls and publishes) and whether it is stalled: gauges and readiness. */
let last = { published: 0, head: 0, stalled: false };
const position = (height: number, head: number): void => {
  last = { ...last, published: height, head };
  gauges.heights(height, head);
};
// The backfill at start-up (the node far ahead of the log): a bar on a terminal, JSON log lines otherwise.
const backfill = trackCatchUp({ label: 'follower backfill', unit: 'blocks', minGap: 200, logger });
shutdown.add('backfill progress', async () => backfill.stop());
const follower = createFollower({
  chain: createHttpChainSource({ baseUrl: config.CHAIN_NODE_URL, timeoutMs: config.FOLLOWER_NODE_TIMEOUT_MS }),
  log,
  logger,
  signal: shutdown.signal,
  topics: topicsOf(config),
  options: {
    blockConcurrency: config.FOLLOWER_BLOCK_CONCURRENCY,
    batchBlocks: config.FOLLOWER_BATCH_BLOCKS,
    pollIntervalMs: config.FOLLOWER_POLL_MS,
    missingGiveUpMs: config.FOLLOWER_MISSING_GIVE_UP_MS,
    stallAfterMs: config.FOLLOWER_STALL_AFTER_MS,
  },
  metrics: {
    ...gauges,
    stalled: (is) => {
      gauges.stalled(is);
      last = { ...last, stalled: is };
    },
    heights: position,
  },
  onProgress: (height, head, count) => {
    gauges.blocks(count);
    position(height, head);
    backfill.observe(height, head);
  },
});
const ops = await startOpsServer({
  port: config.OPS_PORT,
  host: config.OPS_HOST,
  registry,
  stopping: shutdown.signal,
  readiness: async () => {
    const behind = last.head - last.published;
    const detail = { published: last.published, head: last.head, lag: behind, stalled: last.stalled };
    const reasons = [
      ...(last.head === 0 ? ['no head read from the node yet'] : []),
      ...(behind > config.READY_MAX_LAG
        ? [`lag of ${behind} blocks is over READY_MAX_LAG (${config.READY_MAX_LAG})`]
        : []),
      ...(last.stalled ? ['stalled: nothing published for FOLLOWER_STALL_AFTER_MS while the node is ahead'] : []),
    ];
    return reasons.length === 0
      ? { ready: true, detail }
      : { ready: false, detail: { ...detail, reason: reasons.join('; ') } };
  },
});
shutdown.add('ops', () => ops.close());
const running = follower.run();
shutdown.add('follower', () => running.catch(() => {}));
logger.info({ ops: ops.url }, 'follower started');
running.catch((error: unknown) => ctx.fail(error));
