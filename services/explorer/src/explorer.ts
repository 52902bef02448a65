import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { headMemory } from '@mtc/api';
import { AggregatorRegistry } from 'prom-client';
import {
  createMetricsRegistry,
  createShutdown,
  startOpsServer,
  type Logger,
  type OpsServer,
  type Shutdown,
} from '@mtc/runtime';
import { serveApi, type ApiData } from './api-serve.ts';
import type { ExplorerConfig } from './config.ts';
import type { DevnetReady } from './devnet-part.ts';
import type { IndexerData } from './indexer.ts';
import { startPart, type RunningPart } from './part.ts';

/**
 * Everything in one process: devnet (unless a node URL is given) → follower → log → projector →
 * read models → API, on the embedded adapters unless Kafka/MongoDB/Redis addresses are configured.
 * The same services also run as separate processes (distributed mode).
 *
 * A thread per part, so no part's synchronous work stalls another's event loop and a backfill uses
 * every core: the devnet, the follower, the projector and the API — on the main thread and, with
 * API_THREADS above 1, on more threads listening on the same port and sharing one head. Each opens
 * its own connections to the log, the store and the counters (SQLite in WAL mode lets the API read
 * while the projector writes; the file log wakes a thread's consumer when another thread appends).
 */
export interface RunningExplorer {
  apiUrl: string;
  /** Where /metrics is served (OPS_PORT); undefined without one. */
  opsUrl: string | undefined;
  nodeUrl: string;
  shutdown: Shutdown;
  /** Rejects when a pipeline part fails in a way retrying cannot mend. */
  fatal: Promise<never>;
}

export async function startExplorer(config: ExplorerConfig, logger: Logger): Promise<RunningExplorer> {
  const shutdown = createShutdown(logger, { timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  // The main thread's metrics: the process's own (memory, CPU, event loop) and its API's.
  const registry = createMetricsRegistry('explorer');
  // Every part thread: stopped by the shutdown, its metrics in /metrics, its failure the process's.
  const parts: RunningPart<unknown>[] = [];
  const own = <R>(name: string, part: RunningPart<R>): RunningPart<R> => {
    shutdown.add(name, () => part.stop());
    parts.push(part);
    return part;
  };
  await mkdir(resolve(config.DATA_DIR), { recursive: true });
  // Fails here with EROFS/EACCES rather than later as SQLite's "unable to open database file".
  await access(resolve(config.DATA_DIR), constants.W_OK);
  const threads = apiThreads(config, logger);
  // The API threads share the port (SO_REUSEPORT), which would let a second explorer share it too:
  // a port in use fails here, before any part starts, as a plain listen would.
  if (threads > 1) await assertPortFree(config.PORT, config.HOST);

  let nodeUrl = config.CHAIN_NODE_URL;
  let apiConfig = config;
  if (!nodeUrl) {
    const devnet = await startPart<DevnetReady>('devnet', new URL('./devnet-part.ts', import.meta.url), config, logger);
    own('devnet', devnet);
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
  own('projector', projector);
  const follower = await startPart<null>(
    'follower',
    new URL('./follower-part.ts', import.meta.url),
    indexerData,
    logger,
  );
  own('follower', follower);

  const sharedHead = headMemory();
  // API_RESPONSE_CACHE_MB is the process's memory for answers: each thread keeps its share.
  apiConfig = { ...apiConfig, API_RESPONSE_CACHE_MB: apiConfig.API_RESPONSE_CACHE_MB / threads };
  // Answers built by one API thread are kept by the others: each is built once per process.
  const sharedAnswers = threads > 1 ? { sharedAnswers: `mtc-answers-${randomUUID()}` } : {};
  const data = { ...apiConfig, nodeUrl, sharedHead, ...sharedAnswers };
  // Closed after the API has drained (hooks run newest first): /readyz there answers 503 meanwhile.
  let ops: OpsServer | undefined;
  shutdown.add('ops', async () => ops?.close());
  const api = await serveApi({ ...data, port: config.PORT, reusePort: threads > 1 }, shutdown, logger, registry);
  const port = Number(new URL(api.url).port);
  for (let n = 2; n <= threads; n++) {
    const thread = await startPart<null>(
      `api-${n}`,
      new URL('./api-part.ts', import.meta.url),
      { ...data, port, reusePort: true } satisfies ApiData,
      logger,
    );
    own(`api-${n}`, thread);
  }
  if (config.OPS_PORT !== undefined) {
    ops = await startOpsServer({
      port: config.OPS_PORT,
      host: config.OPS_HOST,
      registry: async () => {
        const all = await Promise.all([registry.getMetricsAsJSON(), ...parts.map((part) => part.metrics())]);
        return AggregatorRegistry.aggregate(all);
      },
      readiness: () => api.readiness(),
      stopping: shutdown.signal,
    });
  }

  const fatal = Promise.race(parts.map((part) => part.fatal));
  fatal.catch(() => {}); // observed by the caller; never an unhandled rejection here
  return { apiUrl: api.url, opsUrl: ops?.url, nodeUrl, shutdown, fatal };
}

/**
 * API_THREADS, but one when rate limiting keeps its buckets in memory (each thread would count a
 * client apart, multiplying its allowance).
 */
function apiThreads(config: ExplorerConfig, logger: Logger): number {
  if (config.API_THREADS > 1 && config.RATE_LIMIT_ENABLED && !config.REDIS_URL) {
    logger.warn({ API_THREADS: config.API_THREADS }, 'rate limiting without REDIS_URL: the API runs on one thread');
    return 1;
  }
  return config.API_THREADS;
}

/** Fails as a plain listen would when something listens on `port` already (0: any free port, nothing to check). */
async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, resolve);
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
