import { randomUUID } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import {
  CompressionTypes,
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type Producer,
  type SASLOptions,
} from 'kafkajs';
import type { ConsumeOptions, EventLog, LogRecord, OutgoingMessage, ReadOptions, Subscription } from '@mtc/ports';
import { whileTransient } from './transient.ts';

/**
 * EventLog on Kafka. The only module that imports kafkajs.
 *
 * - Producer: idempotent, acks from all in-sync replicas, one request in flight, so `publish`
 *   resolves only for messages the brokers hold, in order. While the brokers cannot take a request
 *   (a broker restarting, a leader moving) `publish` keeps sending it again, for up to
 *   `publishRetryMs`, with the same producer sequence numbers: the broker drops a request it did
 *   write before its answer was lost.
 * - Consumer: no auto-commit. A batch's offsets are committed after the handler resolved; a
 *   handler that throws stops the consumer without committing, and `done` rejects (crash loudly;
 *   the next start gets the batch again). kafkajs restarts a consumer that lost its broker by
 *   itself (from the committed offsets); when it gives up instead, `done` rejects too, rather than
 *   leave a subscription that silently consumes nothing.
 * - Topics are created on first use with the declared partitions and retention, and with the
 *   replication factor and `min.insync.replicas` of the options (else the cluster's defaults).
 * - SASL and TLS are kafkajs's own (`sasl`, `ssl`); a refused login is not retried: kafkajs fails
 *   it at once, and so does `createKafkaEventLog`.
 */
export interface TopicSpec {
  name: string;
  partitions: number;
  /** -1 keeps messages for ever (the block topic is the source of every rebuild). */
  retentionMs: number;
  cleanupPolicy?: 'delete' | 'compact';
}

export const KAFKA_COMPRESSIONS = ['gzip', 'none'] as const;
export type KafkaCompression = (typeof KAFKA_COMPRESSIONS)[number];

/** Where the brokers are, how to log in, and how new topics are replicated (kafka-settings.ts builds it). */
export interface KafkaConnectionOptions {
  brokers: string[];
  clientId?: string;
  /** TLS to every broker: `{}` verifies against the system's CAs; `ca`, `cert`, `key` are PEM text. */
  ssl?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key'>;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** Replicas of each topic created here; unset: the cluster's `default.replication.factor`. */
  replicationFactor?: number;
  /** `min.insync.replicas` of each topic created here; unset: the cluster's default. */
  minInsyncReplicas?: number;
  /**
   * Record batches are compressed with this codec (default gzip: built into kafkajs, read by every
   * Kafka client; JSON events shrink several times).
   */
  compression?: KafkaCompression;
}

export interface KafkaEventLogOptions extends KafkaConnectionOptions {
  topics: readonly TopicSpec[];
  /** Where kafkajs's own log lines go (as structured fields); default: dropped below WARN. */
  logger?: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
  /**
   * How long `publish` and offset lookups keep trying a request the brokers do not take (default 5
   * minutes, beyond a broker restart); then they reject with a retryable error.
   */
  publishRetryMs?: number;
  /**
   * Consumer group timeouts (kafkajs's defaults: 30 s without a heartbeat drops a member, 60 s for
   * members to rejoin a rebalance); tests shorten them.
   */
  group?: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number };
}

/**
 * One produce request carries at most about this many bytes of values: the broker refuses a
 * record batch over its `message.max.bytes` (1 MiB by default), and a catch-up batch of blocks is
 * larger than that. A single message may still be up to the topic's `max.message.bytes`.
 */
const MAX_REQUEST_BYTES = 900 * 1024;
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const PUBLISH_RETRY_MS = 5 * 60_000;
/** How long a consumer that lost its group coordinator waits before it rejoins. */
const REJOIN_MS = 2_000;

/** Whether kafkajs gave a consumer up because it found no group coordinator (anywhere in the causes). */
export function lostCoordinator(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = (e as Error & { cause?: unknown }).cause) {
    if (e.name === 'KafkaJSGroupCoordinatorNotFound' || /group coordinator/i.test(e.message)) return true;
  }
  return false;
}
/**
 * How often a running handler offers a heartbeat; kafkajs sends one per heartbeat interval (3 s) at
 * most, so offering it more often keeps the gaps at that interval, well inside the session timeout.
 */
const HEARTBEAT_MS = 1_000;
/** Answers to a commit that mean "rejoin the group" (kafkajs's consumer rejoins on each of them). */
const REJOIN = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']);

/** The protocol error in `error`'s cause chain that asks the member to rejoin, if any. */
function membershipError(error: unknown): Error | undefined {
  for (let e = error as { type?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.type === 'string' && REJOIN.has(e.type)) return e as unknown as Error;
  return undefined;
}

export async function createKafkaEventLog(options: KafkaEventLogOptions): Promise<EventLog> {
  const log = options.logger;
  const kafka = new Kafka({
    clientId: options.clientId ?? 'mtc-explorer',
    brokers: options.brokers,
    ...(options.ssl ? { ssl: options.ssl } : {}),
    // kafkajs types each mechanism apart; ours share one shape (username and password).
    ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: { message, ...fields } }) => {
        if (!log) return;
        const entry = { component: 'kafkajs', ...fields };
        if (level === logLevel.ERROR) log.error(entry, message);
        else if (level === logLevel.WARN) log.warn(entry, message);
        else if (level === logLevel.INFO) log.info(entry, message);
        else log.debug(entry, message);
      },
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 10_000 },
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  const known = new Set(await admin.listTopics());
  const ensureTopic = async (name: string): Promise<void> => {
    if (known.has(name)) return;
    const spec = options.topics.find((t) => t.name === name) ?? { name, partitions: 1, retentionMs: -1 };
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: spec.name,
            numPartitions: spec.partitions,
            // -1: the cluster's default.replication.factor.
            replicationFactor: options.replicationFactor ?? -1,
            configEntries: [
              { name: 'retention.ms', value: String(spec.retentionMs) },
              { name: 'cleanup.policy', value: spec.cleanupPolicy ?? 'delete' },
              { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
              ...(options.minInsyncReplicas === undefined
                ? []
                : [{ name: 'min.insync.replicas', value: String(options.minInsyncReplicas) }]),
            ],
          },
        ],
      });
    } catch (error) {
      // Another process created it first (services start together): that is what we wanted.
      if (!(await admin.listTopics()).includes(name)) throw topicCreationError(spec, options, error);
    }
    known.add(name);
  };

  const compression = options.compression === 'none' ? CompressionTypes.None : CompressionTypes.GZIP;
  let producer: Promise<Producer> | undefined;
  const getProducer = (): Promise<Producer> =>
    (producer ??= (async () => {
      const p = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await p.connect();
      return p;
    })());
  const retryMs = options.publishRetryMs ?? PUBLISH_RETRY_MS;
  /** An offset lookup, again while it fails transiently (a new topic's leader not elected yet, a broker restarting). */
  const topicOffsets = (topic: string) =>
    whileTransient({ op: 'offset lookup', topic, retryMs, log }, () => admin.fetchTopicOffsets(topic));
  // Publishes go out one call at a time, so one call's messages stay contiguous in a partition.
  let publishing: Promise<unknown> = Promise.resolve();
  const consumers = new Set<Consumer>();

  return {
    async publish(topic: string, messages: readonly OutgoingMessage[]) {
      if (messages.length === 0) return;
      const send = async (): Promise<void> => {
        await ensureTopic(topic);
        const p = await getProducer();
        for (const chunk of bySize(messages.map((m) => ({ key: m.key, value: JSON.stringify(m.value) })))) {
          await whileTransient({ op: 'publish', topic, retryMs, log }, () =>
            p.send({ topic, acks: -1, messages: chunk, compression }),
          );
        }
      };
      const sent = publishing.then(send, send);
      publishing = sent.catch(() => {});
      await sent;
    },

    async lastValue(topic: string) {
      await ensureTopic(topic);
      const offsets = await topicOffsets(topic);
      if (offsets.length !== 1)
        throw new Error(`lastValue needs a single-partition topic; ${topic} has ${offsets.length}`);
      const high = BigInt(offsets[0]!.high);
      const low = BigInt(offsets[0]!.low);
      if (high === 0n || high <= low) return null;
      return readOne(kafka, topic, (high - 1n).toString());
    },

    async consume(
      opts: ConsumeOptions,
      handler: (batch: readonly LogRecord[]) => Promise<void>,
    ): Promise<Subscription> {
      await ensureTopic(opts.topic);
      const consumer = kafka.consumer({
        groupId: opts.group,
        allowAutoTopicCreation: false,
        sessionTimeout: options.group?.sessionTimeoutMs,
        rebalanceTimeout: options.group?.rebalanceTimeoutMs,
      });
      consumers.add(consumer);
      await consumer.connect();
      await consumer.subscribe({ topic: opts.topic, fromBeginning: opts.fromBeginning ?? true });
      const maxBatch = opts.maxBatch ?? 500;
      let settle!: { resolve: () => void; reject: (e: unknown) => void };
      const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      let failed = false;
      let stopping = false;
      let inHand: Promise<void> = Promise.resolve();
      const giveUp = (error: unknown): void => {
        if (failed || stopping) return;
        failed = true;
        consumers.delete(consumer);
        settle.reject(error);
      };
      const runConfig = {
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload: EachBatchPayload) => {
          rejoinUntil = undefined;
          const work = handleBatch(payload);
          inHand = work.catch(() => {});
          await work;
        },
      };
      // A group coordinator lookup that runs out of retries while a broker restarts (seen during a
      // controlled shutdown in mid-rebalance) is not retriable to kafkajs: the consumer rejoins the
      // group itself, for as long as a publish would retry, as a restarted process would.
      let rejoinUntil: number | undefined;
      const rejoin = async (): Promise<void> => {
        if (failed || stopping) return;
        try {
          await consumer.connect();
          await consumer.run(runConfig);
        } catch (error) {
          giveUp(error);
        }
      };
      // kafkajs restarts a consumer after a retriable crash (a lost broker); after any other it
      // leaves it disconnected, and only this event says so.
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (payload.restart || failed || stopping) return;
        rejoinUntil ??= Date.now() + retryMs;
        if (lostCoordinator(payload.error) && Date.now() < rejoinUntil) {
          log?.warn(
            { topic: opts.topic, group: opts.group, error: payload.error.message },
            'consumer lost its group coordinator, rejoining',
          );
          setTimeout(() => void rejoin(), REJOIN_MS);
          return;
        }
        giveUp(payload.error);
      });

      await consumer.run(runConfig);

      async function handleBatch(payload: EachBatchPayload): Promise<void> {
        const live = (): boolean => payload.isRunning() && !payload.isStale() && !failed && !stopping;
        // A handler may outlast the group's session timeout (a slow store, or one that is being
        // restarted while the handler retries): heartbeats go on meanwhile, or the group drops this
        // member mid-batch. A heartbeat that fails here surfaces again at the commit below.
        const beat = setInterval(() => void payload.heartbeat().catch(() => {}), HEARTBEAT_MS);
        try {
          await handleSlices(payload, live);
        } finally {
          clearInterval(beat);
        }
      }

      async function handleSlices(payload: EachBatchPayload, live: () => boolean): Promise<void> {
        const { batch } = payload;
        for (let i = 0; i < batch.messages.length && live(); i += maxBatch) {
          const slice = batch.messages.slice(i, i + maxBatch);
          const records: LogRecord[] = slice.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            key: m.key?.toString() ?? '',
            value: JSON.parse(m.value?.toString() ?? 'null') as unknown,
          }));
          try {
            await handler(records);
          } catch (error) {
            failed = true;
            // Stop without committing; never await the stop inside the batch (it waits for us).
            setImmediate(() => void consumer.disconnect().finally(() => settle.reject(error)));
            return;
          }
          const last = slice.at(-1)!.offset;
          payload.resolveOffset(last);
          try {
            await consumer.commitOffsets([
              { topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() },
            ]);
          } catch (error) {
            // The group moved on without this member (a rebalance, a broker restart): the writes are
            // done and idempotent, so the batch is left uncommitted for whoever owns the partition
            // now, and kafkajs rejoins the group when it sees the protocol error itself (wrapped,
            // it would give the consumer up instead).
            throw membershipError(error) ?? error;
          }
          await payload.heartbeat();
        }
      }

      return {
        done,
        async stop() {
          consumers.delete(consumer);
          if (!failed) {
            // No new batch starts; the one in hand finishes and commits before the group is left.
            stopping = true;
            consumer.pause([{ topic: opts.topic }]);
            await inHand;
            await consumer.disconnect();
            settle.resolve();
          }
          await done.catch(() => {});
        },
      };
    },

    async read(opts: ReadOptions, handler: (batch: readonly LogRecord[]) => Promise<void>): Promise<Subscription> {
      if (!/^(0|[1-9][0-9]*)$/.test(opts.from)) throw new RangeError(`bad offset ${JSON.stringify(opts.from)}`);
      await ensureTopic(opts.topic);
      // Past the end, the reader delivers what is appended from now on: start at the end itself, or
      // it would wait for offset `from` and drop everything appended before it.
      const end = (await topicOffsets(opts.topic))[0]?.high ?? '0';
      const from = BigInt(opts.from) > BigInt(end) ? end : opts.from;
      const reader = await startReader(kafka, { ...opts, from }, handler, { group: options.group, retryMs, log });
      consumers.add(reader.consumer);
      void reader.done.then(
        () => consumers.delete(reader.consumer),
        () => consumers.delete(reader.consumer),
      );
      return { done: reader.done, stop: reader.stop };
    },

    async endOffset(topic: string) {
      await ensureTopic(topic);
      const offsets = await topicOffsets(topic);
      if (offsets.length !== 1)
        throw new Error(`endOffset needs a single-partition topic; ${topic} has ${offsets.length}`);
      return offsets[0]!.high;
    },

    async lag(topic: string, group: string) {
      await ensureTopic(topic);
      const [ends, committed] = await Promise.all([
        topicOffsets(topic),
        admin.fetchOffsets({ groupId: group, topics: [topic] }),
      ]);
      const done = new Map(
        (committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset === '-1' ? '0' : p.offset)]),
      );
      return ends.map((e) => {
        const end = BigInt(e.high);
        const at = done.get(e.partition) ?? BigInt(e.low);
        return { partition: e.partition, lag: Number(end > at ? end - at : 0n) };
      });
    },

    async close() {
      for (const c of consumers) await c.disconnect();
      consumers.clear();
      if (producer) await (await producer).disconnect();
      await admin.disconnect();
    },
  };
}

/**
 * kafkajs reports a refused topic as "Topic creation errors", the reasons inside: the operator
 * gets the topic, the layout asked for and the broker's reason (an impossible replication factor,
 * a min.insync.replicas the cluster refuses, a missing ACL) in the message itself.
 */
function topicCreationError(spec: TopicSpec, options: KafkaConnectionOptions, error: unknown): Error {
  const inner = (error as { errors?: unknown }).errors;
  const reasons = (Array.isArray(inner) ? inner : [error])
    .map((e: { type?: string; message?: string }) => (e.type ? `${e.type}: ${e.message}` : String(e.message)))
    .join('; ');
  const layout = [
    `${spec.partitions} partition(s)`,
    `replication factor ${options.replicationFactor ?? "the cluster's default"}`,
    ...(options.minInsyncReplicas === undefined ? [] : [`min.insync.replicas ${options.minInsyncReplicas}`]),
  ].join(', ');
  return new Error(`the broker refused to create topic ${spec.name} (${layout}): ${reasons}`, { cause: error });
}

/** Consecutive runs of messages whose values add up to at most MAX_REQUEST_BYTES (or one message). */
function bySize(messages: { key: string; value: string }[]): { key: string; value: string }[][] {
  const chunks: { key: string; value: string }[][] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = Buffer.byteLength(m.value) + Buffer.byteLength(m.key);
    if (bytes > MAX_MESSAGE_BYTES)
      throw new Error(`a message of ${bytes} bytes exceeds the topic limit of ${MAX_MESSAGE_BYTES}`);
    const last = chunks.at(-1);
    if (last && size + bytes <= MAX_REQUEST_BYTES) {
      last.push(m);
      size += bytes;
    } else {
      chunks.push([m]);
      size = bytes;
    }
  }
  return chunks;
}

/** Reads the message at one offset of partition 0 through a throw-away consumer group. */
async function readOne(kafka: Kafka, topic: string, offset: string): Promise<unknown> {
  const consumer = kafka.consumer({ groupId: `mtc-peek-${randomUUID()}`, allowAutoTopicCreation: false });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    let found!: (value: unknown) => void;
    const value = new Promise<unknown>((resolve) => (found = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        if (message.offset === offset) found(JSON.parse(message.value?.toString() ?? 'null'));
      },
    });
    consumer.seek({ topic, partition: 0, offset });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`no message at ${topic}@${offset}`), { retryable: true })),
        30_000,
      );
    });
    try {
      return await Promise.race([value, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await consumer.disconnect();
  }
}

/**
 * A reader of partition 0 from an offset (EventLog.read). kafkajs fetches only for a group member,
 * so the reader is the one member of a group of its own (a random id, never shared, nothing ever
 * committed, so the group leaves no position behind). After every (re)join — a broker restart, a
 * session that lapsed — it seeks back to the next offset it owes the handler, and drops records
 * before it, so the handler sees each offset once and in order whatever the group does.
 */
async function startReader(
  kafka: Kafka,
  opts: ReadOptions,
  handler: (batch: readonly LogRecord[]) => Promise<void>,
  {
    group,
    retryMs,
    log,
  }: { group: KafkaEventLogOptions['group']; retryMs: number; log: KafkaEventLogOptions['logger'] },
): Promise<{ consumer: Consumer; done: Promise<void>; stop: () => Promise<void> }> {
  const consumer = kafka.consumer({
    groupId: `mtc-reader-${randomUUID()}`,
    allowAutoTopicCreation: false,
    sessionTimeout: group?.sessionTimeoutMs,
    rebalanceTimeout: group?.rebalanceTimeoutMs,
  });
  const maxBatch = opts.maxBatch ?? 500;
  let next = BigInt(opts.from);
  let settle!: { resolve: () => void; reject: (e: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  let ended = false;
  let inHand: Promise<void> = Promise.resolve();
  const end = (error?: unknown): void => {
    if (ended) return;
    ended = true;
    setImmediate(
      () => void consumer.disconnect().finally(() => (error === undefined ? settle.resolve() : settle.reject(error))),
    );
  };
  // As a subscription does (see `consume`): a lost group coordinator is not retriable to kafkajs,
  // so the reader rejoins by itself for as long as a publish would retry; its GROUP_JOIN seek then
  // resumes at the next offset it owes the handler.
  let rejoinUntil: number | undefined;
  const rejoin = async (): Promise<void> => {
    if (ended) return;
    try {
      await consumer.connect();
      await consumer.run(runConfig);
    } catch (error) {
      end(error);
    }
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || ended) return;
    rejoinUntil ??= Date.now() + retryMs;
    if (lostCoordinator(payload.error) && Date.now() < rejoinUntil) {
      log?.warn({ topic: opts.topic, error: payload.error.message }, 'reader lost its group coordinator, rejoining');
      setTimeout(() => void rejoin(), REJOIN_MS);
      return;
    }
    end(payload.error);
  });
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (!ended) consumer.seek({ topic: opts.topic, partition: 0, offset: next.toString() });
  });
  await consumer.connect();
  // Past the end, a seek is out of range: the reader then starts at the end (the latest offset).
  await consumer.subscribe({ topic: opts.topic, fromBeginning: false });
  const runConfig = {
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async (payload: EachBatchPayload) => {
      rejoinUntil = undefined;
      const work = (async () => {
        const beat = setInterval(() => void payload.heartbeat().catch(() => {}), HEARTBEAT_MS);
        try {
          const fresh = payload.batch.messages.filter((m) => BigInt(m.offset) >= next);
          for (let i = 0; i < fresh.length && !ended && payload.isRunning() && !payload.isStale(); i += maxBatch) {
            const slice = fresh.slice(i, i + maxBatch);
            const records: LogRecord[] = slice.map((m) => ({
              topic: payload.batch.topic,
              partition: payload.batch.partition,
              offset: m.offset,
              key: m.key?.toString() ?? '',
              value: JSON.parse(m.value?.toString() ?? 'null') as unknown,
            }));
            await handler(records);
            next = BigInt(slice.at(-1)!.offset) + 1n;
            payload.resolveOffset(slice.at(-1)!.offset);
          }
        } finally {
          clearInterval(beat);
        }
      })();
      inHand = work.catch(() => {});
      try {
        await work;
      } catch (error) {
        end(error);
      }
    },
  };
  await consumer.run(runConfig);
  consumer.seek({ topic: opts.topic, partition: 0, offset: next.toString() });
  return {
    consumer,
    done,
    async stop() {
      if (!ended) {
        ended = true;
        consumer.pause([{ topic: opts.topic }]);
        await inHand;
        await consumer.disconnect();
        settle.resolve();
      }
      await done.catch(() => {});
    },
  };
}
