import { createHttpChainSource, topicsOf } from '@mtc/adapters';
import { createFollower } from '@mtc/follower';
import { createProjector, openProjectorPorts } from '@mtc/projector';
import { profileWindows, trackCatchUp } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';
import { servePart } from './part-thread.ts';

/** A start-up this far behind shows its progress (a bar on a terminal, log lines otherwise). */
const BACKFILL_MIN_BLOCKS = 200;

/**
 * Follower and projector in their own thread, on their own connections to the log, the store and
 * the counters: the projector's commits (synchronous on SQLite) never stall the API's event loop.
 */
export type IndexerData = ExplorerConfig & { nodeUrl: string; progressTty: boolean };

await servePart<IndexerData, null>('indexer', async (config, shutdown, logger) => {
  const { log, store, counters } = await openProjectorPorts({ config, logger, shutdown });
  // The backfill at start-up: the follower catching up with the node, the projector with the log.
  const show = { unit: 'blocks', minGap: BACKFILL_MIN_BLOCKS, logger, tty: config.progressTty };
  const following = trackCatchUp({ ...show, label: 'follower backfill' });
  const projecting = trackCatchUp({ ...show, label: 'projector backfill' });
  shutdown.add('backfill progress', async () => (following.stop(), projecting.stop()));
  let published = 0;
  const profiles = profileWindows({
    at: config.PROFILE_AT_HEIGHTS,
    seconds: config.PROFILE_SECONDS,
    dir: config.PROFILE_DIR,
    name: 'indexer',
    logger,
  });
  shutdown.add('cpu profiles', () => profiles.stop());

  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES, maxBatch: config.PROJECTOR_MAX_BATCH },
    onProgress: (height) => {
      projecting.observe(height, Math.max(published, height));
      profiles.observe(height);
    },
  }).start();
  shutdown.add('projector', () => projection.stop());

  const follow = createFollower({
    chain: createHttpChainSource({ baseUrl: config.nodeUrl }),
    log,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: {
      blockConcurrency: config.FOLLOWER_BLOCK_CONCURRENCY,
      batchBlocks: config.FOLLOWER_BATCH_BLOCKS,
      pollIntervalMs: config.FOLLOWER_POLL_MS,
    },
    onProgress: (height, nodeHeight) => {
      published = height;
      following.observe(height, nodeHeight);
    },
  }).run();
  shutdown.add('follower', () => follow.catch(() => {}));

  // Either loop ending before shutdown is fatal: the projector's `done` and the follower's run
  // settle only on a failure retrying cannot mend, or on stop.
  const fatal = Promise.race([projection.done, follow]).then(() => {
    if (!shutdown.signal.aborted) throw new Error('the indexer stopped on its own');
    return new Promise<never>(() => {});
  });
  return { value: null, fatal };
});
