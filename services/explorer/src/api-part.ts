import { createHttpChainSource, openCounters, openEventLog, openReadStore, topicsOf } from '@mtc/adapters';
import { startApi } from '@mtc/api';
import type { ExplorerConfig } from './config.ts';
import { servePart } from './part-thread.ts';

/** What an API thread is started with: the main thread's API config, its port, and the head they share. */
export type ApiPartData = ExplorerConfig & { nodeUrl: string; port: number; sharedHead: SharedArrayBuffer };

/**
 * One more API beside the main thread's (API_THREADS): the same app on its own event loop, with its
 * own connections to the store, the counters and the log, listening on the main thread's port
 * (SO_REUSEPORT, so the kernel spreads connections over the threads) and answering from the head
 * the threads share.
 */
await servePart<ApiPartData, null>('api', async (config, shutdown, logger) => {
  const store = await openReadStore(config);
  shutdown.add('store', () => store.close());
  const counters = await openCounters(config);
  shutdown.add('counters', () => counters.close());
  const log = await openEventLog(config, logger);
  shutdown.add('event log', () => log.close());
  const api = await startApi({
    config,
    logger,
    store,
    counters,
    chain: createHttpChainSource({ baseUrl: config.nodeUrl }),
    port: config.port,
    host: config.HOST,
    reusePort: true,
    sharedHead: config.sharedHead,
    events: { log, blockTopic: topicsOf(config).blocks },
  });
  shutdown.add('api', () => api.close());
  return { value: null };
});
