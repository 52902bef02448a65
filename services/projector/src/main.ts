import { topicsOf } from '@mtc/adapters';
import { createMetricsRegistry, createServiceContext, port, startOpsServer } from '@mtc/runtime';
import { Counter, Gauge } from 'prom-client';
import { z } from 'zod';
import { openProjectorPorts, ProjectorBaseConfig } from './ports.ts';
import { createProjector, DEFAULT_PROJECTOR_GROUP, projectorLag, totalLag } from './projector.ts';

/**
 * A projector on its own: log → read models. Several may run in one consumer group; they share
 * the topic's partitions and any of them may be killed at any time.
 */
const Config = ProjectorBaseConfig.extend({
  OPS_PORT: port.default(9102),
  OPS_HOST: z.string().default('127.0.0.1'),
  PROJECTOR_GROUP: z.string().min(1).default(DEFAULT_PROJECTOR_GROUP),
  PROJECTOR_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Ready while the group's lag, summed over both topics, stays at or below this many messages. */
  READY_MAX_LAG: z.coerce.number().int().min(0).default(1000),
});

const ctx = createServiceContext('projector', Config);
const { config, logger, shutdown } = ctx;
const registry = createMetricsRegistry('projector');
const projected = new Gauge({
  name: 'mtc_projector_height',
  help: 'Newest block projected by this process',
  registers: [registry],
});
const events = new Counter({
  name: 'mtc_projector_blocks_total',
  help: 'Block events projected',
  registers: [registry],
});
const consumerLag = new Gauge({
  name: 'mtc_projector_consumer_lag',
  help: 'Messages not yet committed by the group, per topic partition',
  labelNames: ['topic', 'partition'],
  registers: [registry],
});

const { log, store, counters } = await openProjectorPorts(ctx);

let lastHeight = 0;
const subscription = await createProjector({
  log,
  store,
  counters,
  logger,
  signal: shutdown.signal,
  topics: topicsOf(config),
  options: {
    statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES,
    group: config.PROJECTOR_GROUP,
    maxBatch: config.PROJECTOR_MAX_BATCH,
  },
  onProgress: (height, count) => {
    lastHeight = height;
    projected.set(height);
    events.inc(count);
  },
}).start();
shutdown.add('projector', () => subscription.stop());
const topics = topicsOf(config);
/** Reads the group's lag per partition into the gauge; the total. */
const measureLag = async (): Promise<number> => {
  const lags = await projectorLag(log, topics, config.PROJECTOR_GROUP);
  for (const { topic, partition, lag } of lags) consumerLag.set({ topic, partition: String(partition) }, lag);
  return totalLag(lags);
};
const lagTimer = setInterval(
  () => void measureLag().catch((err: unknown) => logger.warn({ err }, 'lag not measured')),
  5000,
);
shutdown.add('lag timer', async () => clearInterval(lagTimer));
const ops = await startOpsServer({
  port: config.OPS_PORT,
  host: config.OPS_HOST,
  registry,
  readiness: async () => {
    const [lag] = await Promise.all([measureLag(), store.collection('head').count()]);
    return { ready: lag <= config.READY_MAX_LAG, detail: { height: lastHeight, lag } };
  },
});
shutdown.add('ops', () => ops.close());
logger.info({ ops: ops.url, group: config.PROJECTOR_GROUP }, 'projector started');
subscription.done.catch((error: unknown) => ctx.fail(error));
