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

export interface ReadOptions {
  /** A single-partition topic (the block topic). */
  topic: string;
  /** Offset of the first record to deliver; at or past the end offset, records appended from then on. */
  from: string;
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
   * Reads a single-partition topic from an offset, like `consume` but with no group: nothing is
   * committed and no other reader or group is affected, so any number of readers may run in any
   * number of processes (one per live-stream subscriber). Batches come in offset order, then the
   * reader waits for new records; the next batch is fetched only after the handler resolved, so a
   * slow handler slows its reader down and nothing piles up. A handler that throws ends it (`done`).
   */
  read(options: ReadOptions, handler: (batch: readonly LogRecord[]) => Promise<void>): Promise<Subscription>;
  /** The next offset to be written to a single-partition topic (its record count when none expired). */
  endOffset(topic: string): Promise<string>;
  /**
   * Records of `topic` not yet committed by `group`, per partition (a group with no committed
   * position lags by everything). For metrics, readiness and knowing when a rebuild caught up.
   */
  lag(topic: string, group: string): Promise<PartitionLag[]>;
  close(): Promise<void>;
}
