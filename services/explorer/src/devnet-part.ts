import { join, resolve } from 'node:path';
import { faultOptionsFrom, imageOriginPort, openDevnet, startDevnetServer } from '@mtc/devnet';
import { freePort } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';
import { servePart } from './part-thread.ts';

/** The built-in devnet in its own thread: cutting a block never delays the API or the indexer. */
export interface DevnetReady {
  nodeUrl: string;
  /** Where this devnet serves the NFT images its chain names (`/images/<name>.png|jpg`): its own origin. */
  imageOrigin: string;
  height: number;
  seed: number;
}

await servePart<ExplorerConfig, DevnetReady>('devnet', async (config, shutdown) => {
  // The chain's NFT records hold image URLs on the devnet's own port (it serves them), so a new
  // chain gets a fixed port (DEVNET_PORT, else a free one), and a restart listens on the same one.
  const clock = await openDevnet(
    join(resolve(config.DATA_DIR), 'devnet.json'),
    {
      seed: config.DEVNET_SEED,
      historyBlocks: config.DEVNET_HISTORY_BLOCKS,
      historyDays: config.DEVNET_HISTORY_DAYS,
      liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
      imageOrigin: `http://127.0.0.1:${config.DEVNET_PORT || (await freePort())}`,
    },
    Date.now(),
  );
  shutdown.add('devnet history', async () => clock.devnet.close());
  const server = await startDevnetServer(clock.devnet, {
    port: config.DEVNET_PORT || (imageOriginPort(clock.schedule) ?? 0),
    ...faultOptionsFrom(config),
  });
  shutdown.add('devnet', () => server.close());
  const stopLive = clock.startLive();
  shutdown.add('devnet clock', async () => stopLive());
  return {
    value: { nodeUrl: server.url, imageOrigin: server.url, height: clock.devnet.height(), seed: clock.schedule.seed },
  };
});
