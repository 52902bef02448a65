import {
  AdapterConfigSchema,
  createHttpChainSource,
  createRedisRateLimitBuckets,
  describeAdapters,
  observeBudgets,
  openCounters,
  openEventLog,
  openReadStore,
  topicsOf,
} from '@mtc/adapters';
import { createMetricsRegistry, createServiceContext, port, startOpsServer, storeBudgetMetrics } from '@mtc/runtime';
import { z } from 'zod';
import { startApi } from './app.ts';
import { ApiConfigSchema } from './config.ts';
import { apiMetrics } from './metrics.ts';
import { createNftImageFetcher } from './nft-images.ts';

/** The API on its own: read models → HTTP. Stateless: run as many as traffic needs. */
const Config = AdapterConfigSchema.extend(ApiConfigSchema.shape).safeExtend({
  CHAIN_NODE_URL: z.url({ protocol: /^https?$/ }),
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.string().default('info'),
  /**
   * Several API processes listen on one PORT (SO_REUSEPORT: the kernel spreads connections). Linux
   * and the BSDs only; elsewhere listening fails.
   */
  API_REUSE_PORT: z.stringbool().default(false),
  OPS_PORT: port.default(9120),
  OPS_HOST: z.string().default('127.0.0.1'),
  /**
   * The API's reads are one page over an index each: a store that has not answered one within 1 s
   * is not going to answer the request in time (the client gets a 503 instead of a hung socket).
   * Its only writes are NFT image cache entries, one document each.
   */
  STORE_READ_TIMEOUT_MS: AdapterConfigSchema.shape.STORE_READ_TIMEOUT_MS.unwrap().default(1000),
  STORE_WRITE_TIMEOUT_MS: AdapterConfigSchema.shape.STORE_WRITE_TIMEOUT_MS.unwrap().default(2000),
});

const ctx = createServiceContext('api', Config);
const { config, logger, shutdown } = ctx;
const registry = createMetricsRegistry('api');
const metrics = apiMetrics(registry);

const storeBudgets = storeBudgetMetrics(registry);

const [store, counters] = await Promise.all([openReadStore(config), openCounters(config)]);
shutdown.add('store', () => store.close());
shutdown.add('counters', () => counters.close());
logger.info(describeAdapters(config), 'adapters');
for (const budgeted of [store, counters]) observeBudgets(budgeted, { logger, ...storeBudgets });
const chain = createHttpChainSource({ baseUrl: config.CHAIN_NODE_URL });
// The live stream reads the block topic itself (a reader per subscriber, no group): any replica serves any subscriber.
const log = await openEventLog(config, logger);
shutdown.add('event log', () => log.close());
// With Redis, the API processes share each client's bucket; without, each limits in its own memory.
const rateLimitBuckets =
  config.RATE_LIMIT_ENABLED && config.REDIS_URL
    ? await createRedisRateLimitBuckets({
        url: config.REDIS_URL,
        prefix: config.REDIS_PREFIX,
        points: config.RATE_LIMIT_POINTS,
        windowS: config.RATE_LIMIT_WINDOW_S,
        timeoutMs: config.RATE_LIMIT_STORE_TIMEOUT_MS,
        logger,
      })
    : undefined;
if (rateLimitBuckets) shutdown.add('rate-limit', () => rateLimitBuckets.close());
const api = await startApi({
  config,
  logger,
  store,
  counters,
  chain,
  // Handed to the API, which closes it after its server.
  images: createNftImageFetcher({ config, logger, store }),
  port: config.PORT,
  host: config.HOST,
  reusePort: config.API_REUSE_PORT,
  rateLimitBuckets,
  events: { log, blockTopic: topicsOf(config).blocks },
  onResponse: metrics.onResponse,
  stopping: shutdown.signal,
});
metrics.countStreams(() => api.streamConnections());
const ops = await startOpsServer({
  port: config.OPS_PORT,
  host: config.OPS_HOST,
  registry,
  stopping: shutdown.signal,
  // The API's own /readyz answers within the same budget, naming what does not answer.
  readiness: () => api.readiness(),
});
shutdown.add('ops', () => ops.close());
// Hooks run newest first: the API drains while the ops port still answers /readyz (503, stopping).
shutdown.add('api', () => api.close());
logger.info({ api: api.url, ops: ops.url }, 'api started');
console.log(`Explorer API: ${api.url}/api/chain`);
