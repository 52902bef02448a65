import {
  BlockEvent,
  decodeTransaction,
  SCHEMA_VERSION,
  TOPICS,
  type RawBlock,
  type RawTransaction,
  type StateEvent,
  type TopicNames,
} from '@mtc/domain';
import type { ChainSource, EventLog } from '@mtc/ports';
import { isRetryable, mapWithConcurrency, sleep, TransientError, withRetry, type Logger } from '@mtc/runtime';

/**
 * The block follower: reads the node block by block (1 + N requests per block: the node has no
 * range route), decodes each block into one BlockEvent and publishes the events in chain order.
 * The log is its checkpoint: on start it resumes after the newest published block, so a restart
 * leaves no gap, and since a block is published as one message, no duplicate either.
 */
export interface FollowerOptions {
  /** Blocks fetched at once. */
  blockConcurrency: number;
  /** Transactions of one block fetched at once. */
  txConcurrency: number;
  /** Most blocks per publish: large when catching up, the whole lag when near the head. */
  batchBlocks: number;
  /** Wait between head polls once caught up. */
  pollIntervalMs: number;
}

export const DEFAULT_FOLLOWER_OPTIONS: FollowerOptions = {
  blockConcurrency: 8,
  txConcurrency: 8,
  batchBlocks: 200,
  pollIntervalMs: 1000,
};

export interface FollowerDeps {
  chain: ChainSource;
  log: EventLog;
  logger: Logger;
  signal: AbortSignal;
  topics?: TopicNames;
  options?: Partial<FollowerOptions>;
  /** Called after each publish: the newest published height, the node's height, blocks in the batch. */
  onProgress?: (published: number, nodeHeight: number, blocks: number) => void;
}

export interface Follower {
  /** Follows until the signal aborts; rejects on a fault that retrying cannot mend. */
  run(): Promise<void>;
}

interface Cursor {
  height: number;
  seq: number;
}

export function createFollower(deps: FollowerDeps): Follower {
  const options = { ...DEFAULT_FOLLOWER_OPTIONS, ...deps.options };
  const logger = deps.logger.child({ component: 'follower' });
  const { chain, log, signal } = deps;
  const topics = deps.topics ?? TOPICS;

  const retry = <T>(what: string, op: () => Promise<T>): Promise<T> =>
    withRetry(op, {
      retryable: isRetryable,
      signal,
      baseDelayMs: 200,
      maxDelayMs: 15_000,
      onRetry: (err, attempt, delayMs) => logger.warn({ err, what, attempt, delayMs }, 'node request failed, retrying'),
    });

  async function resume(): Promise<Cursor> {
    const last = await log.lastValue(topics.blocks);
    if (last === null || last === undefined) return { height: 1, seq: 0 };
    const event = BlockEvent.parse(last);
    return { height: event.height + 1, seq: event.firstTxSeq + event.txs.length };
  }

  async function fetchBlock(height: number): Promise<{ block: RawBlock; txs: RawTransaction[] }> {
    const block = await retry(`block ${height}`, async () => {
      const b = await chain.block(height);
      if (!b) throw new TransientError(`node has no block ${height} yet`);
      return b;
    });
    if (Number(block.sn) !== height) throw new Error(`node answered block ${block.sn} for height ${height}`);
    const txs = await mapWithConcurrency(block.transaction, options.txConcurrency, (t) =>
      retry(`tx ${t.id}`, async () => {
        const tx = await chain.transaction(t.id);
        if (!tx) throw new TransientError(`node has no transaction ${t.id} yet`);
        return tx;
      }),
    );
    return { block, txs };
  }

  function toEvent(cursor: Cursor, block: RawBlock, txs: RawTransaction[]): BlockEvent {
    const height = cursor.height;
    return {
      schemaVersion: SCHEMA_VERSION,
      eventId: `block:${height}`,
      height,
      hash: block.id,
      timestamp: block.timestamp,
      firstTxSeq: cursor.seq,
      txs: block.transaction.map((t, index) =>
        decodeTransaction(
          { height, index, seq: cursor.seq + index, id: t.id, timestamp: t.timestamp },
          txs[index] ?? [],
        ),
      ),
    };
  }

  return {
    async run() {
      try {
        await follow();
      } catch (error) {
        // A retry loop cut short by shutdown is not a fault.
        if (!signal.aborted) throw error;
      }
    },
  };

  async function follow(): Promise<void> {
    {
      let cursor = await resume();
      logger.info({ from: cursor.height }, 'following');
      while (!signal.aborted) {
        const head = await retry('head', () => chain.height());
        if (cursor.height > head) {
          await sleep(options.pollIntervalMs, signal);
          continue;
        }
        const last = Math.min(head, cursor.height + options.batchBlocks - 1);
        const heights = range(cursor.height, last);
        const fetched = await mapWithConcurrency(heights, options.blockConcurrency, fetchBlock);
        if (signal.aborted) break;
        const events: BlockEvent[] = [];
        for (const { block, txs } of fetched) {
          const event = toEvent(cursor, block, txs);
          events.push(event);
          cursor = { height: cursor.height + 1, seq: cursor.seq + event.txs.length };
        }
        // State first: a crash in between republishes the state of these blocks (harmless, since
        // projections apply by position) but never leaves a published block without its state.
        await log.publish(topics.state, events.flatMap(stateMessages));
        await log.publish(
          topics.blocks,
          events.map((e) => ({ key: String(e.height), value: e })),
        );
        logger.debug({ from: heights[0], to: last, head }, 'published blocks');
        deps.onProgress?.(last, head, events.length);
      }
    }
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function stateMessages(block: BlockEvent): { key: string; value: StateEvent }[] {
  return block.txs.flatMap((tx) =>
    tx.writes.map((write) => ({
      key: write.key,
      value: { schemaVersion: SCHEMA_VERSION, eventId: `state:${write.pos}`, height: block.height, txId: tx.id, write },
    })),
  );
}
