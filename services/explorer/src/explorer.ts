import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createHttpChainSource, openCounters, openEventLog, openReadStore, topicsOf } from '@mtc/adapters';
import { startApi } from '@mtc/api';
import { createShutdown, type Logger, type Shutdown } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';
import type { DevnetReady } from './devnet-part.ts';
import type { IndexerData } from './indexer.ts';
import { startPart } from './part.ts';

/**
 * Everything in one process: devnet (unless a node URL is given) → follower → log → projector →
 * read models → API, on the embedded adapters unless Kafka/MongoDB/Redis addresses are configured.
 * The same services also run as separate processes (distributed mode).
 *
 * Four threads, so no part's synchronous work stalls another's event loop and a backfill uses
 * every core: the devnet, the follower, the projector and, on the main thread, the API. Each opens
 * its own connections to the log, the store and the counters (SQLite in WAL mode lets the API read
 * while the projector writes; the file log wakes a thread's consumer when another thread appends).
 */
export interface RunningExplorer {
  apiUrl: string;
  nodeUrl: string;
  shutdown: Shutdown;
  /** Rejects when a pipeline part fails in a way retrying cannot mend. */
  fatal: Promise<never>;
}

export async function startExplorer(config: ExplorerConfig, logger: Logger): Promise<RunningExplorer> {
  const shutdown = createShutdown(logger);
  await mkdir(resolve(config.DATA_DIR), { recursive: true });
  // Fails here with EROFS/EACCES rather than later as SQLite's "unable to open database file".
  await access(resolve(config.DATA_DIR), constants.W_OK);
  const fatals: Promise<never>[] = [];

  let nodeUrl = config.CHAIN_NODE_URL;
  let apiConfig = config;
  if (!nodeUrl) {
    const devnet = await startPart<DevnetReady>('devnet', new URL('./devnet-part.ts', import.meta.url), config, logger);
    shutdown.add('devnet', () => devnet.stop());
    fatals.push(devnet.fatal);
    nodeUrl = devnet.value.nodeUrl;
    // The devnet's NFT images live on loopback, which the API fetches from only when allow-listed;
    // a real node's chain gets no such exception.
    const images = new URL(devnet.value.imageOrigin);
    const allowed = {
      hostname: images.hostname,
      port: Number(images.port || (images.protocol === 'https:' ? 443 : 80)),
    };
    apiConfig = { ...config, NFT_IMAGE_ALLOW_HOSTS: [...config.NFT_IMAGE_ALLOW_HOSTS, allowed] };
    logger.info(devnet.value, 'devnet started');
  }

  // The indexer threads' stderr is a pipe to this thread's: they draw their backfill bars when ours is a terminal.
  const indexerData: IndexerData = { ...config, nodeUrl, progressTty: process.stderr.isTTY === true };
  const projector = await startPart<null>(
    'projector',
    new URL('./projector-part.ts', import.meta.url),
    indexerData,
    logger,
  );
  shutdown.add('projector', () => projector.stop());
  fatals.push(projector.fatal);
  const follower = await startPart<null>(
    'follower',
    new URL('./follower-part.ts', import.meta.url),
    indexerData,
    logger,
  );
  shutdown.add('follower', () => follower.stop());
  fatals.push(follower.fatal);

  const store = await openReadStore(config);
  const counters = await openCounters(config);
  shutdown.add('store', () => store.close());
  shutdown.add('counters', () => counters.close());
  const chain = createHttpChainSource({ baseUrl: nodeUrl });
  // The API thread reads the log the indexer thread writes (the same files, or Kafka) for the live stream.
  const log = await openEventLog(config, logger);
  shutdown.add('event log', () => log.close());
  const api = await startApi({
    config: apiConfig,
    logger,
    store,
    counters,
    chain,
    port: config.PORT,
    host: config.HOST,
    events: { log, blockTopic: topicsOf(config).blocks },
  });
  shutdown.add('api', () => api.close());

  const fatal = Promise.race(fatals);
  fatal.catch(() => {}); // observed by the caller; never an unhandled rejection here
  return { apiUrl: api.url, nodeUrl, shutdown, fatal };
}
