import { join, resolve } from 'node:path';
import { openDevnet, startDevnetServer } from '@mtc/devnet';
import type { ExplorerConfig } from './config.ts';
import { servePart } from './part-thread.ts';

/** The built-in devnet in its own thread: cutting a block never delays the API or the indexer. */
export interface DevnetReady {
  nodeUrl: string;
  height: number;
  seed: number;
}

await servePart<ExplorerConfig, DevnetReady>('devnet', async (config, shutdown) => {
  const clock = await openDevnet(
    join(resolve(config.DATA_DIR), 'devnet.json'),
    {
      seed: config.DEVNET_SEED,
      historyBlocks: config.DEVNET_HISTORY_BLOCKS,
      historyDays: config.DEVNET_HISTORY_DAYS,
      liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
    },
    Date.now(),
  );
  shutdown.add('devnet history', async () => clock.devnet.close());
  const server = await startDevnetServer(clock.devnet, {
    port: config.DEVNET_PORT,
    faultRate: config.DEVNET_FAULT_RATE,
  });
  shutdown.add('devnet', () => server.close());
  const stopLive = clock.startLive();
  shutdown.add('devnet clock', async () => stopLive());
  return { value: { nodeUrl: server.url, height: clock.devnet.height(), seed: clock.schedule.seed } };
});
