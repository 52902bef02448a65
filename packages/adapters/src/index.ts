export { createMemoryReadStore } from './memory/memory-store.ts';
export { createSqliteReadStore, type SqliteReadStoreOptions } from './embedded/sqlite-store.ts';
export { createSqliteCounters, type SqliteCountersOptions } from './embedded/sqlite-counters.ts';
export { createFileEventLog, type FileEventLogOptions } from './embedded/file-log.ts';
export { createHttpChainSource, NodeError, type HttpChainSourceOptions } from './http/chain-source.ts';
export * from './select.ts';
export { createMongoReadStore, WRITE_LIMITS, type MongoReadStoreOptions } from './mongo/mongo-store.ts';
export {
  createKafkaEventLog,
  type KafkaConnectionOptions,
  type KafkaEventLogOptions,
  type TopicSpec,
} from './kafka/kafka-log.ts';
export {
  checkKafkaSettings,
  KAFKA_SASL_MECHANISMS,
  kafkaConnection,
  kafkaSettingsIssues,
  KafkaSettingsShape,
  type KafkaSettings,
  type PemFile,
} from './kafka/kafka-settings.ts';
export { createRedisCounters, type RedisCountersOptions } from './redis/redis-counters.ts';
export {
  createRedisRateLimitBuckets,
  type RedisRateLimitBuckets,
  type RedisRateLimitOptions,
} from './redis/redis-rate-limit.ts';
export * from './timed/index.ts';
export {
  createImageFetcher,
  sniffImageType,
  type AllowedHost,
  type ImageCache,
  type ImageFetcherOptions,
} from './http/image-fetcher.ts';
