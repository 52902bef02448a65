/**
 * Counters: today-so-far figures that the API reads on every request (Redis in distributed mode).
 * Transaction counts are kept in one-minute buckets by chain time (block timestamp, unix seconds).
 */
export interface BlockTxCount {
  height: number;
  timestamp: number;
  count: number;
}

export interface Counters {
  /**
   * Adds each block's count to its minute bucket. A block at or below the highest height already
   * counted is ignored, atomically with the increment, so replays never double count.
   */
  addBlockTxs(blocks: readonly BlockTxCount[]): Promise<void>;
  /** Sum of the buckets whose minute lies in [fromTs, toTs) (both floored to the minute). */
  txCountBetween(fromTs: number, toTs: number): Promise<number>;
  close(): Promise<void>;
}
