/**
 * EventLog: the ordered, durable log between the follower and the projectors (Kafka in distributed
 * mode, an append-only file when embedded). Values are JSON-serialisable; the adapter serialises
 * them and consumers decode them with the topic's zod schema.
 */
export interface OutgoingMessage {
  /** Partitioning key: messages with the same key keep their order. */
  key: string;
  value: unknown;
}

export interface LogRecord {
  topic: string;
  partition: number;
  /** Offset within the partition, as a decimal string (Kafka offsets are 64-bit). */
  offset: string;
  key: string;
  value: unknown;
}

export interface ConsumeOptions {
  topic: string;
  /** Consumer group: its committed position survives restarts. */
  group: string;
  /** Where a group with no committed position starts. Default: the beginning. */
  fromBeginning?: boolean;
  /** Upper bound of records handed to one handler call. */
  maxBatch?: number;
}

export interface Subscription {
  /** Stops fetching, waits for the batch in hand to finish and its position to be committed. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: rejects if the handler threw (the position was not moved). */
  readonly done: Promise<void>;
}

export interface PartitionLag {
  partition: number;
  /** End offset (the next offset to be written) minus the group's committed offset. */
  lag: number;
}

export interface EventLog {
  /** Appends in order; resolves only once the messages are durable (fsynced / acknowledged). */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** The value of the newest message of a single-partition topic, or null when it is empty. */
  lastValue(topic: string): Promise<unknown>;
  /**
   * Delivers batches in offset order per partition and commits a batch's position only after the
   * handler resolved: at-least-once. A handler that throws ends the subscription (see `done`).
   */
  consume(options: ConsumeOptions, handler: (batch: readonly LogRecord[]) => Promise<void>): Promise<Subscription>;
  /**
   * Records of `topic` not yet committed by `group`, per partition (a group with no committed
   * position lags by everything). For metrics, readiness and knowing when a rebuild caught up.
   */
  lag(topic: string, group: string): Promise<PartitionLag[]>;
  close(): Promise<void>;
}
