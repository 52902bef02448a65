import { observeBudgets, topicsOf, withBudgets } from '@mtc/adapters';
import { BlockEvent } from '@mtc/domain';
import {
  createMetricsRegistry,
  createServiceContext,
  port,
  probeBudget,
  READINESS_BUDGET_MS,
  runProbes,
  startOpsServer,
  storeBudgetMetrics,
  trackCatchUp,
} from '@mtc/runtime';
import { projectorMetrics } from './metrics.ts';
import { z } from 'zod';
import { openProjectorPorts, ProjectorBaseConfig } from './ports.ts';
import { createProjector, DEFAULT_PROJECTOR_GROUP, projectorLag, totalLag } from './projector.ts';
import { watchBatches } from './stall-watch.ts';

/**
 * A projector on its own: log → read models. Several may run in one consumer group; they share
 * the topic's partitions and any of them may be killed at any time.
 */
const Config = ProjectorBaseConfig.extend({
  OPS_PORT: port.default(9102),
  OPS_HOST: z.string().default('127.0.0.1'),
  PROJECTOR_GROUP: z.string().min(1).default(DEFAULT_PROJECTOR_GROUP),
  PROJECTOR_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** On MongoDB (writes not atomic), readers wait while a batch is written: the writing time a commit aims at. */
  PROJECTOR_WRITE_WINDOW_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  /** On MongoDB, the pause between the commits of one consumer batch in which waiting readers answer. */
  PROJECTOR_READ_GAP_MS: z.coerce.number().int().min(0).max(10_000).default(50),
  /** Ready while the group's lag, summed over both topics, stays at or below this many messages. */
  READY_MAX_LAG: z.coerce.number().int().min(0).default(1000),
  /** A batch in hand for this long without its writes done is logged and counted as a stall. */
  PROJECTOR_STALL_AFTER_MS: z.coerce.number().int().min(1_000).default(60_000),
});

const ctx = createServiceContext('projector', Config);
const { config, logger, shutdown } = ctx;
const registry = createMetricsRegistry('projector');
const gauges = projectorMetrics(registry);
const storeBudgets = storeBudgetMetrics(registry);

const ports = await openProjectorPorts(ctx);
const { store, counters } = ports;
for (const budgeted of [store, counters]) observeBudgets(budgeted, { logger, ...storeBudgets });
const watchLog = logger.child({ component: 'stall-watch' });
const watchdog = watchBatches(ports.log, config.PROJECTOR_STALL_AFTER_MS, (stalled, detail) => {
  if (stalled) watchLog.warn(detail, 'projector stalled: a batch in hand has not been written');
  else watchLog.info(detail, 'projector progressing again');
  gauges.stalled(stalled);
});
shutdown.add('stall watchdog', async () => watchdog.close());
const log = watchdog.log;

// The backfill at start-up: the blocks the log held at start that the store does not, shown as a
// bar on a terminal, JSON log lines otherwise. Blocks arriving later are ordinary progress.
const newest = await log.lastValue(topicsOf(config).blocks);
const backfillTarget = newest === null ? 0 : BlockEvent.parse(newest).height;
const backfill = trackCatchUp({ label: 'projector backfill', unit: 'blocks', minGap: 200, logger });
shutdown.add('backfill progress', async () => backfill.stop());
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
    writeWindowMs: config.PROJECTOR_WRITE_WINDOW_MS,
    readGapMs: config.PROJECTOR_READ_GAP_MS,
  },
  onProgress: (height, count) => {
    backfill.observe(height, Math.max(backfillTarget, height));
    lastHeight = height;
    gauges.projected(height, count);
  },
}).start();
shutdown.add('projector', () => subscription.stop());
const topics = topicsOf(config);
/** Reads the group's lag per partition into the gauge; the total. */
const measureLag = async (): Promise<number> => {
  const lags = await projectorLag(log, topics, config.PROJECTOR_GROUP);
  gauges.consumerLag(lags);
  return totalLag(lags);
};
const lagTimer = setInterval(
  () => void measureLag().catch((err: unknown) => logger.warn({ err }, 'lag not measured')),
  5000,
);
shutdown.add('lag timer', async () => clearInterval(lagTimer));
// Readiness probes the store and the counters on a budget of its own, not a batch's: a hang shows
// (and is counted) within a probe, not half a minute later.
const probed = { readMs: probeBudget(READINESS_BUDGET_MS) };
const probeStore = withBudgets(store, probed);
const probeCounters = withBudgets(counters, probed);
const ops = await startOpsServer({
  port: config.OPS_PORT,
  host: config.OPS_HOST,
  registry,
  stopping: shutdown.signal,
  // Each dependency within the budget, so a hung one is named rather than hanging the probe.
  readiness: async ({ withinMs }) => {
    const { values, failures } = await runProbes(withinMs, {
      'the event log': measureLag,
      'the read store': () => probeStore.collection('head').count(),
      'the counters store': () => probeCounters.highestCounted(),
    });
    const lag = values['the event log'];
    const detail = { height: lastHeight, lag: lag ?? null, stalled: watchdog.stalled() };
    if (failures.length > 0) return { ready: false, reason: failures.join('; '), detail };
    const ready = lag !== undefined && lag <= config.READY_MAX_LAG;
    return { ready, reason: ready ? undefined : `the group lags by ${lag} messages`, detail };
  },
});
shutdown.add('ops', () => ops.close());
logger.info({ ops: ops.url, group: config.PROJECTOR_GROUP }, 'projector started');
subscription.done.catch((error: unknown) => ctx.fail(error));
