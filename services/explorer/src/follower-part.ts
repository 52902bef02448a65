import { createHttpChainSource, openEventLog, topicsOf } from '@mtc/adapters';
import { createFollower, followerMetrics } from '@mtc/follower';
import { trackCatchUp } from '@mtc/runtime';
import { BACKFILL_MIN_BLOCKS, followerProgress, profilesOf, type IndexerData } from './indexer.ts';
import { servePart } from './part-thread.ts';

/**
 * The follower in its own thread: fetching and decoding blocks and encoding them into the log run on
 * one core while the projector parses and commits on the other. It tells the projector's thread
 * how far it has published (for the backfill's progress), and the file log wakes that thread's
 * consumer on each append.
 */
await servePart<IndexerData, null>('follower', async (config, shutdown, logger, registry) => {
  const log = await openEventLog(config, logger);
  shutdown.add('log', () => log.close());
  const following = trackCatchUp({
    unit: 'blocks',
    minGap: BACKFILL_MIN_BLOCKS,
    logger,
    tty: config.progressTty,
    label: 'follower backfill',
  });
  shutdown.add('backfill progress', async () => following.stop());
  const progress = followerProgress(config);
  shutdown.add('progress channel', async () => progress.close());
  const profiles = profilesOf(config, 'follower', logger);
  shutdown.add('cpu profiles', () => profiles.stop());

  const gauges = followerMetrics(registry);
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
    metrics: gauges,
    onProgress: (height, nodeHeight, count) => {
      gauges.blocks(count);
      gauges.heights(height, nodeHeight);
      following.observe(height, nodeHeight);
      profiles.observe(height);
      progress.postMessage(height);
    },
  }).run();
  shutdown.add('follower', () => follow.catch(() => {}));

  // The follower's run settles only on a failure retrying cannot mend, or on stop.
  const fatal = follow.then(() => {
    if (!shutdown.signal.aborted) throw new Error('the follower stopped on its own');
    return new Promise<never>(() => {});
  });
  return { value: null, fatal };
});
