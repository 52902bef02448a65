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
  /**
   * The highest height counted so far, 0 when nothing is (a fresh store, or one that lost its data:
   * the projector then refills the recent buckets from the read models).
   */
  highestCounted(): Promise<number>;
  /** Sum of the buckets whose minute lies in [fromTs, toTs) (both floored to the minute). */
  txCountBetween(fromTs: number, toTs: number): Promise<number>;
  close(): Promise<void>;
}
