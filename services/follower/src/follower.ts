import {
  activityKey,
  BlockEvent,
  chainPos,
  PublishedWallets,
  toBlockEventV2,
  decodeTransaction,
  SCHEMA_VERSION,
  TOPICS,
  unknownJobTypes,
  type ActivityEvent,
  type BlockEventV1,
  type RawBlock,
  type RawTransaction,
  type StateEvent,
  type TopicNames,
} from '@mtc/domain';
import type { ChainSource, EventLog } from '@mtc/ports';
import {
  crashPoint,
  isRetryable,
  mapWithConcurrency,
  sleep,
  TransientError,
  withRetry,
  type Logger,
} from '@mtc/runtime';

/**
 * The block follower: reads the node block by block (1 + N requests per block: the node has no
 * range route), decodes each block and publishes, per batch, the state writes, then the
 * activities, then the block events, in chain order. The block topic is its checkpoint: on start
 * it resumes after the newest published block, so a restart leaves no gap, and since a block is
 * published as one message, no duplicate either.
 *
 * The real node fails in ways that look like answers (node-api.md §1–§2), so the follower judges
 * them against what it already knows:
 * - a head lower than one seen before (`GET /block` answers `0` when its storage read fails) is
 *   transient: the highest head seen stays;
 * - a block at or below that head, or a transaction a block lists, that the node does not serve
 *   (404: the bridge is unreachable) is transient: retried with capped backoff, and only after
 *   `missingGiveUpMs` does the follower stop, saying which block or transaction and why;
 * - on start it checks that the node's block at the resume height has the hash the log holds, and
 *   stops if not, rather than index another chain on top of the old one.
 * Retries and stalls (no block published for `stallAfterMs` while the node is ahead) are logged and
 * reported through `metrics`.
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
  /** First and largest wait between retries of a node request (capped exponential backoff). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long a block under the head or a listed transaction may go unserved before the follower stops. */
  missingGiveUpMs: number;
  /** No block published for this long while the node is ahead counts as a stall. */
  stallAfterMs: number;
}

export const DEFAULT_FOLLOWER_OPTIONS: FollowerOptions = {
  blockConcurrency: 8,
  txConcurrency: 8,
  batchBlocks: 200,
  pollIntervalMs: 1000,
  retryBaseMs: 200,
  retryMaxMs: 15_000,
  missingGiveUpMs: 10 * 60_000,
  stallAfterMs: 60_000,
};

/** What the follower reports for /metrics; each method is optional. */
export interface FollowerMetrics {
  /**
   * A node request is tried again. `reason`: `head_regressed`, `block_missing`, `tx_missing`,
   * `node_behind_log`, or the node error's own reason (`timeout`, `network`, `http_412`, …).
   */
  retry(reason: string): void;
  /** No progress for `stallAfterMs` while the node is ahead (true); progress again (false). */
  stalled(stalled: boolean): void;
  /**
   * Where the follower stands, whenever it learns the node's head: the newest published block and
   * that head. Also while a batch is held up (a block the node keeps answering 404 for), when the
   * follower asks for the head now and then, so that the lag shows a node that moves on meanwhile.
   */
  heights(published: number, head: number): void;
  /** A node entry of a job type the decoder does not know (it becomes generic activity). */
  unknownJobType(jobType: string): void;
}

export interface FollowerDeps {
  chain: ChainSource;
  log: EventLog;
  logger: Logger;
  signal: AbortSignal;
  topics?: TopicNames;
  options?: Partial<FollowerOptions>;
  metrics?: Partial<FollowerMetrics>;
  /** Called after each publish: the newest published height, the node's height, blocks in the batch. */
  onProgress?: (published: number, nodeHeight: number, blocks: number) => void;
}

export interface Follower {
  /** Follows until the signal aborts; rejects on a fault that retrying cannot mend. */
  run(): Promise<void>;
}

/**
 * A fault the follower will not retry past: the node serves another chain than the log holds, or
 * keeps refusing data it says it has. The message says what to do.
 */
export class FollowerHalt extends Error {
  override name = 'FollowerHalt';
}

/** The node does not serve something it should (yet): retried until `missingGiveUpMs`. */
class Missing extends TransientError {
  readonly reason: 'block_missing' | 'tx_missing';

  constructor(reason: 'block_missing' | 'tx_missing', message: string) {
    super(message);
    this.reason = reason;
  }
}

interface Cursor {
  height: number;
  seq: number;
}

export function createFollower(deps: FollowerDeps): Follower {
  const options = { ...DEFAULT_FOLLOWER_OPTIONS, ...deps.options };
  const logger = deps.logger.child({ component: 'follower' });
  const { chain, log } = deps;
  const topics = deps.topics ?? TOPICS;
  const metrics = deps.metrics ?? {};

  return {
    async run() {
      // Stops this run's retries too when it fails, not only on shutdown.
      const stop = new AbortController();
      const onAbort = (): void => stop.abort();
      deps.signal.addEventListener('abort', onAbort, { once: true });
      if (deps.signal.aborted) stop.abort();
      const run = startRun(stop.signal);
      try {
        await run.follow();
      } catch (error) {
        // A retry loop cut short by shutdown is not a fault.
        if (!deps.signal.aborted) throw error;
      } finally {
        stop.abort();
        run.close();
        deps.signal.removeEventListener('abort', onAbort);
      }
    },
  };

  function startRun(signal: AbortSignal) {
    /** The highest head the node ever reported: a lower answer later is a failure, not news. */
    let head = 0;
    let headRegressed = false;
    let published = 0;
    let lastProgressAt = Date.now();
    let lastHeadAt = Date.now();
    let stalled = false;
    const unknownSeen = new Set<string>();

    /** Raises the head to `reported` if higher (a lower one is a failed read) and reports it. */
    const sawHead = (reported: number): void => {
      lastHeadAt = Date.now();
      if (reported > head) head = reported;
      metrics.heights?.(published, head);
    };
    const tickMs = Math.max(10, Math.min(options.stallAfterMs / 2, 5_000));
    let askingHead = false;
    const watchdog = setInterval(() => {
      // A batch waiting on one block polls no head meanwhile: ask once per tick (no retry; a
      // failure waits for the next tick), so the lag reported follows the node.
      if (!askingHead && Date.now() - lastHeadAt >= tickMs) {
        askingHead = true;
        void chain
          .height()
          .then(sawHead, (err: unknown) => logger.debug({ err }, 'head not read during a batch'))
          .finally(() => (askingHead = false));
      }
      stallCheck();
    }, tickMs);
    watchdog.unref();

    function stallCheck(): void {
      const idleMs = Date.now() - lastProgressAt;
      if (stalled || head <= published || idleMs < options.stallAfterMs) return;
      stalled = true;
      logger.warn({ published, head, idleMs }, 'follower stalled: no block published while the node is ahead');
      metrics.stalled?.(true);
    }

    const retry = <T>(what: string, op: () => Promise<T>): Promise<T> =>
      withRetry(op, {
        retryable: isRetryable,
        signal,
        baseDelayMs: options.retryBaseMs,
        maxDelayMs: options.retryMaxMs,
        onRetry: (err, attempt, delayMs) => {
          const reason = reasonOf(err);
          metrics.retry?.(reason);
          // The first failure and every tenth after it at warn, the rest at debug: a node that is
          // down for an hour must not flood the log.
          const level = attempt === 1 || attempt % 10 === 0 ? 'warn' : 'debug';
          logger[level]({ err, what, reason, attempt, delayMs }, 'node request failed, retrying');
        },
      });

    /** The node's head, never lower than one seen before. */
    async function pollHead(): Promise<number> {
      const reported = await retry('head', () => chain.height());
      if (reported < head) {
        metrics.retry?.('head_regressed');
        if (!headRegressed)
          logger.warn(
            { reported, highest: head },
            'node head went backwards (a failed storage read answers 0); keeping the highest seen',
          );
        headRegressed = true;
        return head;
      }
      if (headRegressed) logger.info({ head: reported }, 'node head is sane again');
      headRegressed = false;
      sawHead(reported);
      return head;
    }

    /**
     * `op` until it serves a value; "not served" (null) is retried like a node error, and after
     * `missingGiveUpMs` of it the follower stops with `halt()`'s message.
     */
    async function required<T>(
      what: string,
      reason: Missing['reason'],
      op: () => Promise<T | null>,
      halt: (waitedMs: number) => string,
    ): Promise<T> {
      let missingSince: number | undefined;
      return retry(what, async () => {
        const value = await op();
        if (value !== null) return value;
        missingSince ??= Date.now();
        const waited = Date.now() - missingSince;
        if (waited >= options.missingGiveUpMs) throw new FollowerHalt(halt(waited));
        throw new Missing(reason, `node does not serve ${what}`);
      });
    }

    /** The block at `height`, which the node's head covers. */
    async function blockAt(height: number): Promise<RawBlock> {
      const block = await required(
        `block ${height}`,
        'block_missing',
        () => chain.block(height),
        (waited) =>
          `block ${height} is still not served after ${minutes(waited)} although the node reported a head of ${head}: ` +
          `its storage is failing or it was reset. Check GET /block/${height} on the node; the follower resumes ` +
          `after the newest block of the log when restarted.`,
      );
      if (Number(block.sn) !== height) throw new FollowerHalt(`node answered block ${block.sn} for height ${height}`);
      return block;
    }

    async function fetchBlock(height: number): Promise<{ block: RawBlock; txs: RawTransaction[] }> {
      const block = await blockAt(height);
      const txs = await mapWithConcurrency(block.transaction, options.txConcurrency, (t, index) =>
        required(
          `tx ${t.id}`,
          'tx_missing',
          () => chain.transaction(t.id),
          (waited) =>
            `transaction ${t.id} (index ${index} of ${block.transaction.length}) of block ${height} (${block.id}) ` +
            `is still not served after ${minutes(waited)}: the node answers "not found" although the block lists it ` +
            `(its bridge is unreachable, or it lost its copy). Check GET /transaction/${t.id} on the node; the ` +
            `follower resumes at block ${height} when restarted.`,
        ),
      );
      return { block, txs };
    }

    /**
     * Resumes after the newest published block, once the node's block at that height has the hash
     * the log holds: a node of another chain (or a reset devnet) must not be indexed on top of it.
     */
    async function resume(): Promise<Cursor> {
      const last = await log.lastValue(topics.blocks);
      if (last === null || last === undefined) return { height: 1, seq: 0 };
      const event = BlockEvent.parse(last);
      // The log's newest block is published already: every report from the first head poll on
      // (lag, readiness, stall) counts from it, not from 0, also while the node is behind the log.
      published = event.height;
      let warned = false;
      while ((await pollHead()) < event.height && !signal.aborted) {
        metrics.retry?.('node_behind_log');
        if (!warned)
          logger.warn(
            { head, logged: event.height },
            'node is behind the log; waiting for it to reach the resume height (is CHAIN_NODE_URL the indexed chain’s node?)',
          );
        warned = true;
        await sleep(options.pollIntervalMs, signal);
      }
      const cursor = { height: event.height + 1, seq: event.firstTxSeq + event.txs.length };
      if (signal.aborted) return cursor;
      const block = await blockAt(event.height);
      if (block.id !== event.hash)
        throw new FollowerHalt(
          `the node serves another chain than the log holds: block ${event.height} has hash ${block.id} on the node ` +
            `but ${event.hash} in the log (${topics.blocks}). Point CHAIN_NODE_URL at the node of the indexed chain, ` +
            `or index this chain from scratch with a new data directory (DATA_DIR) or new topics (TOPIC_PREFIX) and ` +
            `fresh read models.`,
        );
      logger.info({ height: event.height, hash: event.hash }, 'node agrees with the log at the resume height');
      return cursor;
    }

    /** The block decoded from the entries as served: the `mtc.blocks.v1` message (v2 slims it). */
    function toEvent(cursor: Cursor, block: RawBlock, txs: RawTransaction[]): BlockEventV1 {
      const height = cursor.height;
      return {
        schemaVersion: SCHEMA_VERSION,
        eventId: `block:${height}`,
        height,
        hash: block.id,
        timestamp: block.timestamp,
        firstTxSeq: cursor.seq,
        txs: block.transaction.map((t, index) => {
          const entries = txs[index] ?? [];
          for (const type of unknownJobTypes(entries)) {
            metrics.unknownJobType?.(type);
            if (!unknownSeen.has(type)) {
              unknownSeen.add(type);
              logger.warn({ jobType: type, height, txId: t.id }, 'unknown job type: published as generic activity');
            }
          }
          return decodeTransaction(
            { height, index, seq: cursor.seq + index, id: t.id, timestamp: t.timestamp },
            entries,
          );
        }),
      };
    }

    type Fetched = { heights: number[]; blocks: Promise<{ block: RawBlock; txs: RawTransaction[] }[]> };
    /** The batch that starts at `from`: up to batchBlocks blocks, not past the node's head. */
    const fetchBatch = (from: number): Fetched => {
      const heights = range(from, Math.min(head, from + options.batchBlocks - 1));
      const blocks = mapWithConcurrency(heights, options.blockConcurrency, fetchBlock);
      // Awaited when its turn comes; a stop before that leaves it unread, not unhandled.
      blocks.catch(() => undefined);
      return { heights, blocks };
    };

    async function follow(): Promise<void> {
      let cursor = await resume();
      logger.info({ from: cursor.height }, 'following');
      /**
       * What each wallet's next write on the block topic is a change to (none yet: written whole).
       * A failed publish ends the run, and the next run starts from the log with none.
       */
      const wallets = new PublishedWallets();
      /** The next batch, fetched while the one before it is published (a backfill's node time overlaps its log time). */
      let prefetched: Fetched | undefined;
      while (!signal.aborted) {
        await pollHead();
        if (cursor.height > head) {
          // Caught up: idle time on a quiet chain (blocks come with transactions only) is no stall.
          lastProgressAt = Date.now();
          await sleep(options.pollIntervalMs, signal);
          continue;
        }
        const batch = prefetched ?? fetchBatch(cursor.height);
        prefetched = undefined;
        const { heights } = batch;
        const last = heights.at(-1)!;
        const fetched = await batch.blocks;
        if (signal.aborted) break;
        if (last < head) prefetched = fetchBatch(last + 1);
        const events: BlockEventV1[] = [];
        for (const { block, txs } of fetched) {
          const event = toEvent(cursor, block, txs);
          events.push(event);
          cursor = { height: cursor.height + 1, seq: cursor.seq + event.txs.length };
        }
        // State and activity first, the block (the checkpoint) last: a crash in between
        // republishes those messages (harmless: consumers apply by position / de-duplicate by
        // eventId) but never leaves a published block without its state and activity.
        await log.publish(topics.state, newestPerKey(events.flatMap(stateMessages)));
        crashPoint('follower.published-state');
        await log.publish(topics.activity, events.flatMap(activityMessages));
        crashPoint('follower.published-activity');
        if (topics.blocksV1)
          await log.publish(
            topics.blocksV1,
            events.map((e) => ({ key: String(e.height), value: e })),
          );
        const v2 = events.map(toBlockEventV2);
        if (topics.blocksV2)
          await log.publish(
            topics.blocksV2,
            v2.map((e) => ({ key: String(e.height), value: e })),
          );
        await log.publish(
          topics.blocks,
          v2.map((e) => ({ key: String(e.height), value: wallets.toBlockEventV3(e) })),
        );
        crashPoint('follower.published-blocks');
        published = last;
        lastProgressAt = Date.now();
        if (stalled) {
          stalled = false;
          logger.info({ published, head }, 'follower progressing again');
          metrics.stalled?.(false);
        }
        logger.debug({ from: heights[0], to: last, head }, 'published blocks');
        deps.onProgress?.(last, head, events.length);
      }
    }

    return { follow, close: () => clearInterval(watchdog) };
  }
}

/** A retry's reason label: the follower's own, else the error's (NodeError.reason), else `error`. */
function reasonOf(error: unknown): string {
  if (error instanceof Missing) return error.reason;
  const reason = (error as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' && /^[a-z0-9_]{1,32}$/.test(reason) ? reason : 'error';
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/**
 * A batch's state messages, each key's newest only: the state topic is compacted (last write wins
 * by key), so the earlier writes of a key in the same batch are what compaction would drop. A
 * whale's wallet, written by most transactions, goes once per batch instead of once per write.
 */
function newestPerKey<M extends { key: string }>(messages: readonly M[]): M[] {
  const last = new Map<string, number>();
  messages.forEach((m, i) => last.set(m.key, i));
  return messages.filter((m, i) => last.get(m.key) === i);
}

function stateMessages(block: BlockEventV1): { key: string; value: StateEvent }[] {
  return block.txs.flatMap((tx) =>
    tx.writes.map((write) => ({
      key: write.key,
      value: { schemaVersion: SCHEMA_VERSION, eventId: `state:${write.pos}`, height: block.height, txId: tx.id, write },
    })),
  );
}

/** One message per activity of a valid transaction, keyed by its asset (see `activityKey`). */
function activityMessages(block: BlockEventV1): { key: string; value: ActivityEvent }[] {
  return block.txs.flatMap((tx) =>
    tx.activity.map((activity, i) => {
      const pos = chainPos(block.height, tx.index, i);
      return {
        key: activityKey(activity),
        value: {
          schemaVersion: SCHEMA_VERSION,
          eventId: `activity:${pos}`,
          pos,
          height: block.height,
          txId: tx.id,
          timestamp: tx.timestamp,
          activity,
        },
      };
    }),
  );
}
