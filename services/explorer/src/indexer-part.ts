import { createHttpChainSource, topicsOf } from '@mtc/adapters';
import { createFollower } from '@mtc/follower';
import { createProjector, openProjectorPorts } from '@mtc/projector';
import type { ExplorerConfig } from './config.ts';
import { servePart } from './part-thread.ts';

/**
 * Follower and projector in their own thread, on their own connections to the log, the store and
 * the counters: the projector's commits (synchronous on SQLite) never stall the API's event loop.
 */
export type IndexerData = ExplorerConfig & { nodeUrl: string };

await servePart<IndexerData, null>('indexer', async (config, shutdown, logger) => {
  const { log, store, counters } = await openProjectorPorts({ config, logger, shutdown });

  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES, maxBatch: config.PROJECTOR_MAX_BATCH },
  }).start();
  shutdown.add('projector', () => projection.stop());

  const following = createFollower({
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
  }).run();
  shutdown.add('follower', () => following.catch(() => {}));

  // Either loop ending before shutdown is fatal: the projector's `done` and the follower's run
  // settle only on a failure retrying cannot mend, or on stop.
  const fatal = Promise.race([projection.done, following]).then(() => {
    if (!shutdown.signal.aborted) throw new Error('the indexer stopped on its own');
    return new Promise<never>(() => {});
  });
  return { value: null, fatal };
});
