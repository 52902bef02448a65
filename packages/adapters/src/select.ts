import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { topicNames, type TopicNames } from '@mtc/domain';
import type { Counters, EventLog, ReadStore } from '@mtc/ports';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createFileEventLog } from './embedded/file-log.ts';
import { createSqliteCounters } from './embedded/sqlite-counters.ts';
import { createSqliteReadStore } from './embedded/sqlite-store.ts';
import { createKafkaEventLog, type TopicSpec } from './kafka/kafka-log.ts';
import { checkKafkaSettings, kafkaConnection, KafkaSettingsShape } from './kafka/kafka-settings.ts';
import { createMongoReadStore } from './mongo/mongo-store.ts';
import { createRedisCounters } from './redis/redis-counters.ts';
import { timeCounters, timeReadStore, type Budgets } from './timed/timed-ports.ts';

/**
 * Which adapter each port gets: a configured server address selects the real adapter, its absence
 * the embedded one under DATA_DIR. Services call these and never name an adapter themselves.
 * The Kafka settings' cross-field rules are a check on the object: extend this schema (`extend`
 * with new keys, `safeExtend` to override one) rather than copy its `shape`, or they are lost.
 */
export const AdapterConfigSchema = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    // Brokers, SASL, TLS and the layout of new topics: kafka/kafka-settings.ts.
    ...KafkaSettingsShape,
    MONGO_URL: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL')
      .optional(),
    MONGO_DATABASE: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,60}$/)
      .default('mtc_explorer'),
    /**
     * Bulk writes the store runs at once, and writes per bulk call. Unset: chosen by the server
     * (8 × 1,000 on MongoDB, 4 × 25 on FerretDB 1.x, whose pool must exceed lanes × chunk summed
     * over all writing processes; see WRITE_LIMITS in mongo-store.ts).
     */
    MONGO_WRITE_LANES: z.coerce.number().int().min(1).max(32).optional(),
    MONGO_BULK_CHUNK: z.coerce.number().int().min(1).max(100_000).optional(),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
    REDIS_PREFIX: z.string().default('mtc:'),
    /**
     * Time budget of one read of the read store or the counters on a server (timed/budget.ts): past
     * it the call fails with StoreTimeoutError (503 in the API, retried by the projector) rather than
     * wait on a server that hangs. The default suits batch work: the projector reads a batch's prior
     * state in a few calls of up to thousands of documents, and a budget below its slowest healthy
     * read would retry that read for ever. The API, whose reads are one page over an index, sets 1 s.
     */
    STORE_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /**
     * Time budget of one write call (a projection phase: up to tens of thousands of documents in
     * bulk calls, see WRITE_LIMITS), of creating collections and indexes, and of closing.
     */
    STORE_WRITE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
    /** Prefix of every topic name: side-by-side deployments and tests on one cluster. */
    TOPIC_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, . _ - only')
      .default(''),
    /**
     * Also publish the superseded `mtc.blocks.v1` (whole written values in every entry) and
     * `mtc.blocks.v2` (every wallet write whole), for downstream consumers that have not moved yet.
     */
    PUBLISH_BLOCKS_V1: z.stringbool().default(false),
    PUBLISH_BLOCKS_V2: z.stringbool().default(false),
  })
  .superRefine(checkKafkaSettings);
export type AdapterConfig = z.infer<typeof AdapterConfigSchema>;

export const topicsOf = (config: AdapterConfig): TopicNames =>
  topicNames(config.TOPIC_PREFIX, { blocksV1: config.PUBLISH_BLOCKS_V1, blocksV2: config.PUBLISH_BLOCKS_V2 });

/**
 * The topics and their layout: part of the public topic contract (docs/topics.md). `partitions`
 * (KAFKA_PARTITIONS) is the keyed topics' count when they are created.
 */
export function topicSpecs(topics: TopicNames, partitions = 12): TopicSpec[] {
  return [
    // One partition: the block stream is totally ordered, and its newest message is the
    // follower's checkpoint. Kept for ever: every read model can be rebuilt from it.
    { name: topics.blocks, partitions: 1, retentionMs: -1, cleanupPolicy: 'delete' },
    // Keyed by entity, so per-entity order holds and projectors share partitions. Compacted: the
    // newest state of every entity stays for ever, older versions go.
    { name: topics.state, partitions, retentionMs: -1, cleanupPolicy: 'compact' },
    // Keyed by asset, so one asset's history stays in order and consumers share partitions. Kept
    // for ever like the blocks: every activity is history, not a newer version of an older one.
    { name: topics.activity, partitions, retentionMs: -1, cleanupPolicy: 'delete' },
    // The superseded block streams, laid out as they always were, while a deployment still publishes them.
    ...[topics.blocksV1, topics.blocksV2]
      .filter((name) => name !== undefined)
      .map((name) => ({ name, partitions: 1, retentionMs: -1, cleanupPolicy: 'delete' as const })),
  ];
}

export async function openEventLog(config: AdapterConfig, logger?: Logger): Promise<EventLog> {
  if (config.KAFKA_BROKERS)
    return createKafkaEventLog({
      ...kafkaConnection({ ...config, KAFKA_BROKERS: config.KAFKA_BROKERS }),
      topics: topicSpecs(topicsOf(config), config.KAFKA_PARTITIONS),
      logger: logger?.child({ component: 'kafka' }),
    });
  const dir = join(resolve(config.DATA_DIR), 'log');
  await mkdir(dir, { recursive: true });
  return createFileEventLog({ dir });
}

const budgetsOf = (config: AdapterConfig): Budgets => ({
  readMs: config.STORE_READ_TIMEOUT_MS,
  writeMs: config.STORE_WRITE_TIMEOUT_MS,
});

/**
 * A server-backed store or counters get a time budget on every call (`observeBudgets` reports their
 * stalls). The embedded ones do not: their calls are synchronous in this process, so a call that
 * stuck would block the thread, and no timer could fire before it returned.
 */
export async function openReadStore(config: AdapterConfig): Promise<ReadStore> {
  if (config.MONGO_URL) {
    const budgets = budgetsOf(config);
    const store = await createMongoReadStore({
      url: config.MONGO_URL,
      database: config.MONGO_DATABASE,
      writeLanes: config.MONGO_WRITE_LANES,
      bulkChunk: config.MONGO_BULK_CHUNK,
      callBudgetMs: Math.max(budgets.readMs, budgets.writeMs),
      readBudgetMs: budgets.readMs,
    });
    return timeReadStore(store, budgets);
  }
  await mkdir(resolve(config.DATA_DIR), { recursive: true });
  return createSqliteReadStore({ path: join(resolve(config.DATA_DIR), 'read-models.sqlite') });
}

export async function openCounters(config: AdapterConfig): Promise<Counters> {
  if (config.REDIS_URL)
    return timeCounters(
      await createRedisCounters({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX }),
      budgetsOf(config),
    );
  await mkdir(resolve(config.DATA_DIR), { recursive: true });
  return createSqliteCounters({ path: join(resolve(config.DATA_DIR), 'counters.sqlite') });
}

export function describeAdapters(config: AdapterConfig): Record<string, string> {
  return {
    log: config.KAFKA_BROKERS ? `kafka ${config.KAFKA_BROKERS.join(',')}` : 'file',
    store: config.MONGO_URL ? `mongodb ${config.MONGO_DATABASE}` : 'sqlite',
    counters: config.REDIS_URL ? 'redis' : 'sqlite',
  };
}
