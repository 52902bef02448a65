import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceContext } from '@mtc/runtime';
import { createDevnet } from './chain/devnet.ts';
import { openDevnet } from './chain/schedule.ts';
import { DevnetConfigSchema, devnetImageOrigin, devnetOptionsFrom, faultOptionsFrom } from './config.ts';
import { startDevnetServer } from './server/server.ts';

/** Standalone devnet node: `npm run start:devnet` (see .env.example). */
const ctx = createServiceContext('devnet', DevnetConfigSchema);
const { config, logger } = ctx;

try {
  const started = performance.now();
  // The history lives on disk: in DEVNET_HISTORY_DIR, else beside the schedule, else a temporary
  // directory of this run. (Shutdown hooks run last-added first: files go after the server stops.)
  let historyDir = config.DEVNET_HISTORY_DIR;
  if (historyDir === undefined && !config.DEVNET_SCHEDULE_FILE) {
    const temp = await mkdtemp(join(tmpdir(), 'mtc-devnet-'));
    ctx.shutdown.add('history files', () => rm(temp, { recursive: true, force: true }));
    historyDir = temp;
  }
  const clock = config.DEVNET_SCHEDULE_FILE
    ? await openDevnet(
        config.DEVNET_SCHEDULE_FILE,
        {
          seed: config.DEVNET_SEED,
          historyBlocks: config.DEVNET_HISTORY_BLOCKS,
          historyDays: config.DEVNET_HISTORY_DAYS,
          liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
          txsPerBlock: config.DEVNET_TXS_PER_BLOCK,
          historyDir,
          imageOrigin: devnetImageOrigin(config),
        },
        Date.now(),
      )
    : undefined;
  const devnet = clock?.devnet ?? createDevnet({ ...devnetOptionsFrom(config, Date.now() / 1000), historyDir });
  ctx.shutdown.add('devnet history', async () => devnet.close());
  const { counts } = devnet.worldState();
  logger.info(
    { height: devnet.height(), ...counts, ms: Math.round(performance.now() - started), historyDir },
    'history generated',
  );

  const server = await startDevnetServer(devnet, {
    host: config.DEVNET_HOST,
    port: config.DEVNET_PORT,
    // A scheduled chain cuts its blocks on the schedule's clock instead.
    liveIntervalMs: clock ? 0 : config.DEVNET_BLOCK_INTERVAL_MS,
    ...faultOptionsFrom(config),
  });
  ctx.shutdown.add('http server', () => server.close());
  if (clock) {
    const stopLive = clock.startLive();
    ctx.shutdown.add('schedule', async () => stopLive());
  }
  logger.info(
    { url: server.url, seed: config.DEVNET_SEED, liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS },
    'devnet node listening',
  );
} catch (error) {
  await ctx.fail(error);
}
