import { topicsOf } from '@mtc/adapters';
import { dumpReadModels, PROJECTION_SPECS } from '@mtc/read-models';
import { createProgress, createServiceContext, envBoolean, sleep } from '@mtc/runtime';
import { z } from 'zod';
import { openProjectorPorts, ProjectorBaseConfig } from './ports.ts';
import { createProjector, projectorLag, totalLag } from './projector.ts';

/**
 * `npm run rebuild`: replays both topics from offset 0 with a new consumer group into the
 * configured store (point MONGO_DATABASE or DATA_DIR at a fresh one, or set REBUILD_DROP=true),
 * stops once the group has caught up with the log, and prints the canonical dump of the result.
 * Serving switches over by pointing the API at the rebuilt store.
 */
const Config = ProjectorBaseConfig.extend({
  REBUILD_GROUP: z.string().min(1).default(`mtc-rebuild-${Date.now()}`),
  REBUILD_DROP: envBoolean.default(false),
});

const ctx = createServiceContext('rebuild', Config);
const { config, logger, shutdown } = ctx;
const { log, store, counters } = await openProjectorPorts(ctx);
logger.info({ group: config.REBUILD_GROUP }, 'rebuilding read models from offset 0');

if (config.REBUILD_DROP) await store.drop();
const nonEmpty = [];
// Projections only: an image cache the API filled does not make a rebuild unsafe.
for (const { name } of PROJECTION_SPECS) if ((await store.collection(name).count()) > 0) nonEmpty.push(name);
if (nonEmpty.length > 0) {
  await ctx.fail(
    new Error(`the target store is not empty (${nonEmpty.join(', ')}): use a fresh one or REBUILD_DROP=true`),
  );
}

const topics = topicsOf(config);
const group = config.REBUILD_GROUP;
const subscription = await createProjector({
  log,
  store,
  counters,
  logger,
  signal: shutdown.signal,
  topics,
  options: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES, group },
}).start();
subscription.done.catch((error: unknown) => ctx.fail(error));

const behind = async (): Promise<number> => totalLag(await projectorLag(log, topics, group));
// Messages of both topics still to project: a bar on a terminal, JSON log lines otherwise.
let total = await behind();
const progress = createProgress({ label: 'rebuild', unit: 'messages', total, logger });
for (let left = total; left > 0; left = await behind()) {
  total = Math.max(total, left); // the follower may still be appending
  progress.update(total - left, total);
  await sleep(1000, shutdown.signal);
  if (shutdown.signal.aborted) process.exit(1);
}
progress.update(total, total);
progress.stop();
await subscription.stop();
const dump = await dumpReadModels(store);
logger.info(dump, 'rebuilt');
console.log(JSON.stringify(dump));
await shutdown.run('done');
process.exit(0);
