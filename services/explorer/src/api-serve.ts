import { createHttpChainSource, openCounters, openEventLog, openReadStore, topicsOf } from '@mtc/adapters';
import { apiMetrics, createNftImageFetcher, startApi, type RunningApi } from '@mtc/api';
import type { Registry } from 'prom-client';
import type { Logger, Shutdown } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';

/** What one API of the all-in-one is started with: its config, the node, where it listens, the head the threads share. */
export type ApiData = ExplorerConfig & {
  nodeUrl: string;
  port: number;
  reusePort: boolean;
  sharedHead: SharedArrayBuffer;
  /** The channel the API threads share their answers on (`ApiDeps.sharedAnswers`). */
  sharedAnswers?: string;
};

/**
 * One API of the all-in-one, the main thread's or another API thread's: its own connections to the
 * store, the counters and the log (which it reads for the live stream, as the indexer's threads
 * write it), each closed by `shutdown` after the API.
 */
export async function serveApi(
  data: ApiData,
  shutdown: Shutdown,
  logger: Logger,
  registry: Registry,
): Promise<RunningApi> {
  const store = await openReadStore(data);
  shutdown.add('store', () => store.close());
  const counters = await openCounters(data);
  shutdown.add('counters', () => counters.close());
  const log = await openEventLog(data, logger);
  shutdown.add('event log', () => log.close());
  const metrics = apiMetrics(registry);
  const api = await startApi({
    config: data,
    logger,
    store,
    counters,
    chain: createHttpChainSource({ baseUrl: data.nodeUrl }),
    images: createNftImageFetcher({ config: data, logger, store }),
    port: data.port,
    host: data.HOST,
    reusePort: data.reusePort,
    sharedHead: data.sharedHead,
    ...(data.sharedAnswers === undefined ? {} : { sharedAnswers: data.sharedAnswers }),
    events: { log, blockTopic: topicsOf(data).blocks },
    stopping: shutdown.signal,
    onResponse: metrics.onResponse,
  });
  metrics.countStreams(() => api.streamConnections());
  shutdown.add('api', () => api.close());
  return api;
}
