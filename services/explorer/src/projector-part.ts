import { observeBudgets, topicsOf } from '@mtc/adapters';
import { createProjector, openProjectorPorts, projectorMetrics } from '@mtc/projector';
import { storeBudgetMetrics, trackCatchUp } from '@mtc/runtime';
import { BACKFILL_MIN_BLOCKS, followerProgress, profilesOf, type IndexerData } from './indexer.ts';
import { servePart } from './part-thread.ts';

/**
 * The projector in its own thread, on its own connections to the log, the store and the counters:
 * its commits (synchronous on SQLite) never stall the API's event loop, and its parsing and
 * projecting run beside the follower's thread.
 */
await servePart<IndexerData, null>('projector', async (config, shutdown, logger, registry) => {
  const { log, store, counters } = await openProjectorPorts({ config, logger, shutdown });
  const gauges = projectorMetrics(registry);
  const budgets = storeBudgetMetrics(registry);
  for (const budgeted of [store, counters]) observeBudgets(budgeted, { logger, ...budgets });
  const projecting = trackCatchUp({
    unit: 'blocks',
    minGap: BACKFILL_MIN_BLOCKS,
    logger,
    tty: config.progressTty,
    label: 'projector backfill',
  });
  shutdown.add('backfill progress', async () => projecting.stop());
  let published = 0;
  const progress = followerProgress(config);
  progress.onmessage = (event: { data: unknown }) => {
    if (typeof event.data === 'number') published = Math.max(published, event.data);
  };
  shutdown.add('progress channel', async () => progress.close());
  const profiles = profilesOf(config, 'projector', logger);
  shutdown.add('cpu profiles', () => profiles.stop());

  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES, maxBatch: config.PROJECTOR_MAX_BATCH },
    onProgress: (height, count) => {
      gauges.projected(height, count);
      projecting.observe(height, Math.max(published, height));
      profiles.observe(height);
    },
  }).start();
  shutdown.add('projector', () => projection.stop());

  // The projector's `done` settles only on a failure retrying cannot mend, or on stop.
  const fatal = projection.done.then(() => {
    if (!shutdown.signal.aborted) throw new Error('the projector stopped on its own');
    return new Promise<never>(() => {});
  });
  return { value: null, fatal };
});
