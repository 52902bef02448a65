import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createHttpChainSource,
  describeAdapters,
  openCounters,
  openEventLog,
  openReadStore,
  topicsOf,
} from '@mtc/adapters';
import { startApi } from '@mtc/api';
import { openDevnet, startDevnetServer, type Devnet } from '@mtc/devnet';
import { createFollower } from '@mtc/follower';
import { createProjector } from '@mtc/projector';
import { createShutdown, type Logger, type Shutdown } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';

/**
 * Everything in one process: devnet (unless a node URL is given) → follower → log → projector →
 * read models → API, on the embedded adapters unless Kafka/MongoDB/Redis addresses are configured.
 * The same services also run as separate processes (distributed mode).
 */
export interface RunningExplorer {
  apiUrl: string;
  nodeUrl: string;
  devnet?: Devnet;
  shutdown: Shutdown;
  /** Rejects when a pipeline part fails in a way retrying cannot mend. */
  fatal: Promise<never>;
}

export async function startExplorer(config: ExplorerConfig, logger: Logger): Promise<RunningExplorer> {
  const shutdown = createShutdown(logger);
  const dataDir = resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true });

  let nodeUrl = config.CHAIN_NODE_URL;
  let devnet: Devnet | undefined;
  if (!nodeUrl) {
    const clock = await openDevnet(
      join(dataDir, 'devnet.json'),
      {
        seed: config.DEVNET_SEED,
        historyBlocks: config.DEVNET_HISTORY_BLOCKS,
        historyDays: config.DEVNET_HISTORY_DAYS,
        liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
      },
      Date.now(),
    );
    devnet = clock.devnet;
    const server = await startDevnetServer(devnet, { port: config.DEVNET_PORT, faultRate: config.DEVNET_FAULT_RATE });
    shutdown.add('devnet', () => server.close());
    const stopLive = clock.startLive();
    shutdown.add('devnet clock', async () => stopLive());
    nodeUrl = server.url;
    logger.info({ nodeUrl, height: devnet.height(), seed: clock.schedule.seed }, 'devnet started');
  }

  const chain = createHttpChainSource({ baseUrl: nodeUrl });
  const log = await openEventLog(config, logger);
  const store = await openReadStore(config);
  const counters = await openCounters(config);
  logger.info(describeAdapters(config), 'adapters');
  shutdown.add('store', () => store.close());
  shutdown.add('counters', () => counters.close());
  shutdown.add('log', () => log.close());

  let failFatal!: (error: unknown) => void;
  const fatal = new Promise<never>((_, reject) => (failFatal = reject));
  fatal.catch(() => {}); // observed by the caller; never an unhandled rejection here

  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES },
  }).start();
  shutdown.add('projector', () => projection.stop());
  projection.done.catch((error: unknown) => failFatal(error));

  const follower = createFollower({
    chain,
    log,
    logger,
    signal: shutdown.signal,
    topics: topicsOf(config),
    options: { blockConcurrency: config.FOLLOWER_BLOCK_CONCURRENCY, pollIntervalMs: config.FOLLOWER_POLL_MS },
  });
  const following = follower.run();
  shutdown.add('follower', () => following.catch(() => {}));
  following.catch((error: unknown) => failFatal(error));

  const api = await startApi({ config, logger, store, counters, chain, port: config.PORT, host: config.HOST });
  shutdown.add('api', () => api.close());

  return { apiUrl: api.url, nodeUrl, devnet, shutdown, fatal };
}
