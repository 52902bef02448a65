import { setTimeout as delay } from 'node:timers/promises';
import { BlockEvent, TOPICS, type TopicNames } from '@mtc/domain';
import type { Counters, EventLog, LogRecord, ReadStore, Subscription } from '@mtc/ports';
import {
  COLLECTION_SPECS,
  HEAD_ID,
  layoutMismatch,
  loadChainPrior,
  openModels,
  projectChainBatch,
  StoredValues,
  type ChainPrior,
  writingWrite,
  type HeadDoc,
  type StatsOptions,
} from '@mtc/read-models';
import { crashPoint, isRetryable, withRetry, type Logger } from '@mtc/runtime';

export type ProjectionOptions = StatsOptions;

/** The fewest transactions a commit of a consumer batch holds on a store whose writes are not atomic. */
const MIN_TXS_PER_COMMIT = 100;

/** How far back the today-so-far counters reach (today and yesterday at the same time, in any zone). */
const COUNTER_WINDOW_S = 3 * 86_400;

/**
 * The projector: one subscription, to the block topic (one partition, so one projector of a group
 * is active and the others stand by). Block events carry every state write too, so the records as
 * written (wallets, tokens, NFT records) are projected in the same batch as the facts, holders and
 * the head, and move with the head; the state topic is for downstream consumers. A batch's log
 * position is committed only after its writes are durable (the
 * log commits after the handler resolves), and every write is idempotent, so at-least-once
 * delivery gives exactly-once effects. A fault that retrying cannot mend ends the subscription: it
 * crashes loudly instead of skipping an event.
 */
export interface ProjectorDeps {
  log: EventLog;
  store: ReadStore;
  counters: Counters;
  logger: Logger;
  signal: AbortSignal;
  topics?: TopicNames;
  options: ProjectionOptions & {
    group?: string;
    maxBatch?: number;
    /** Non-atomic stores: the writing time one commit aims at (ms). */
    writeWindowMs?: number;
    /** Non-atomic stores: the pause between commits of one consumer batch, for waiting readers (ms). */
    readGapMs?: number;
  };
  onProgress?: (height: number, blocks: number) => void;
  /** Wall clock in unix milliseconds; tests pin it. */
  now?: () => number;
}

export interface Projector {
  /** Subscribes to the block topic. */
  start(): Promise<Subscription>;
}

export const DEFAULT_PROJECTOR_GROUP = 'mtc-projector';

/** The consumer group of each subscription, derived from the projector's group name. */
function subscriptions(topics: TopicNames, group: string): Record<'chain', { topic: string; group: string }> {
  return { chain: { topic: topics.blocks, group: `${group}.chain` } };
}

/** What a projector group has not yet committed, per topic partition (see docs/topics.md). */
export async function projectorLag(
  log: EventLog,
  topics: TopicNames,
  group: string,
): Promise<{ topic: string; partition: number; lag: number }[]> {
  const per = await Promise.all(
    Object.values(subscriptions(topics, group)).map(async (s) =>
      (await log.lag(s.topic, s.group)).map((p) => ({ topic: s.topic, ...p })),
    ),
  );
  return per.flat();
}

export const totalLag = (lags: readonly { lag: number }[]): number => lags.reduce((sum, p) => sum + p.lag, 0);

export function createProjector(deps: ProjectorDeps): Projector {
  const logger = deps.logger.child({ component: 'projector' });
  const retry = <T>(what: string, op: () => Promise<T>): Promise<T> =>
    withRetry(op, {
      retryable: isRetryable,
      signal: deps.signal,
      maxDelayMs: 10_000,
      onRetry: (err, attempt, delayMs) => logger.warn({ err, what, attempt, delayMs }, 'write failed, retrying'),
    });

  const topics = deps.topics ?? TOPICS;
  const group = deps.options.group ?? DEFAULT_PROJECTOR_GROUP;
  const maxBatch = deps.options.maxBatch ?? 500;

  const models = openModels(deps.store);
  const now = deps.now ?? (() => Date.now());

  /**
   * The today-so-far counters live apart from the read models (Redis in distributed mode) and can
   * lose their data on their own. When they report nothing counted while the store has indexed
   * blocks, the recent buckets are refilled from the blocks collection before anything else counts.
   */
  const restoreCounters = async (head: HeadDoc | null): Promise<void> => {
    if (!head || head.height === 0) return;
    if ((await retry('counters', () => deps.counters.highestCounted())) > 0) return;
    const since = Math.floor(now() / 1000) - COUNTER_WINDOW_S;
    const recent = await retry('recent blocks', () =>
      models.blocks.find({ timestamp: { $gte: since } }, { sort: [['timestamp', 1]] }),
    );
    const counts = recent
      .filter((b) => b.height <= head.height)
      .sort((a, b) => a.height - b.height)
      .map((b) => ({ height: b.height, timestamp: b.timestamp, count: b.txCount }));
    // The head itself too (possibly with no recent block), so the counters know where they stand.
    if (counts.at(-1)?.height !== head.height)
      counts.push({ height: head.height, timestamp: head.timestamp, count: 0 });
    await retry('counters', () => deps.counters.addBlockTxs(counts));
    logger.warn(
      { blocks: recent.length, height: head.height },
      'today-so-far counters were empty: restored from the store',
    );
  };

  /** The block topic's next expected offset in this process; a batch elsewhere is a resume. */
  let expectedOffset: bigint | null = null;

  /**
   * On a store whose writes are not atomic, readers wait while a batch is being written (HeadDoc),
   * so a consumer batch is committed in parts of about `writeWindowMs` of writing each, sized from
   * the write time per transaction measured so far, with `readGapMs` between parts in which waiting
   * readers answer. On an atomic store readers never wait: one commit per consumer batch.
   */
  const windowMs = deps.options.writeWindowMs ?? 250;
  const gapMs = deps.options.readGapMs ?? 50;
  // A cautious start (a cold store, a cold process); the measurements take over within a few commits.
  let msPerTx = 5;
  const commitsOf = (events: readonly BlockEvent[]): BlockEvent[][] => {
    if (deps.store.atomicWrites === true) return [[...events]];
    // At least MIN_TXS_PER_COMMIT: on a slow store (FerretDB) parts of a few transactions would
    // spend their time loading each part's prior state rather than writing.
    const txsPerCommit = Math.max(MIN_TXS_PER_COMMIT, Math.floor(windowMs / msPerTx));
    const out: BlockEvent[][] = [];
    let part: BlockEvent[] = [];
    let txs = 0;
    for (const e of events) {
      if (part.length > 0 && txs + e.txs.length > txsPerCommit) {
        out.push(part);
        part = [];
        txs = 0;
      }
      part.push(e);
      txs += e.txs.length;
    }
    if (part.length > 0) out.push(part);
    return out;
  };

  /** Shared values this projector has committed: later batches name them without writing them. */
  const storedValues = new StoredValues();

  /** How long each prior state took to load, for the batch's log line. */
  const loadMs = new WeakMap<ChainPrior, number>();

  /** Projects and commits `events` (whole blocks) over the state `prior` holds. */
  const commit = async (events: readonly BlockEvent[], prior: ChainPrior): Promise<void> => {
    const batch = projectChainBatch(events, prior, deps.options, storedValues);
    const last = events.at(-1);
    // A batch becomes visible whole (HeadDoc): one call where the store commits a call at once,
    // else the head says it is being written first. Each call durable before the next: the phase
    // order is what keeps aggregates exact after a crash (chain-batch.ts).
    const calls =
      deps.store.atomicWrites === true
        ? [batch.phases.flat()]
        : batch.phases.length > 0 && last
          ? [[writingWrite(prior.head, last.height)], ...batch.phases]
          : [];
    // Refilled if they lost their data, then counted, as one step: counters that lose their data
    // in between refuse the batch (retryable), and the next attempt refills them first. Counted
    // before the head is written: at a head H the counters have counted H or beyond, so a reader
    // that finds them at exactly H after reading them knows they were at H (routes/stats).
    const count = async (): Promise<void> => {
      await retry('counters', async () => {
        await restoreCounters(prior.head);
        await deps.counters.addBlockTxs(batch.counts);
      });
      crashPoint('projector.chain.counted');
    };
    const started = performance.now();
    for (const [i, call] of calls.entries()) {
      if (i === calls.length - 1) await count();
      await retry(`write ${i + 1}`, () => deps.store.write(call));
      crashPoint(`projector.chain.write-${i + 1}`);
    }
    if (calls.length === 0) await count();
    storedValues.committed(batch.shared);
    const txs = events.reduce((n, e) => n + e.txs.length, 0);
    if (calls.length > 0) msPerTx = 0.7 * msPerTx + (0.3 * (performance.now() - started)) / Math.max(1, txs);
    if (last) {
      // What the batch cost the store, for finding what grows with history (docs/BENCHMARKS.md):
      // the documents its prior state loaded and the write operations it sent.
      logger.debug(
        {
          height: last.height,
          blocks: events.length,
          txs,
          loaded: {
            wallets: prior.wallets?.length ?? 0,
            holders: prior.holders.length,
            nftHolders: prior.nftHolders.length,
            stats: prior.holderStats.length + prior.nftHolderStats.length + prior.collectionStats.length,
            other: prior.itemOwners.length + prior.collectionHolders.length + prior.counters.length,
          },
          loadMs: loadMs.get(prior),
          written: calls.reduce((n, c) => n + c.length, 0),
          writeMs: Math.round(performance.now() - started),
        },
        'projected blocks',
      );
      deps.onProgress?.(last.height, events.length);
    }
  };

  const projectChain = async (records: readonly LogRecord[]): Promise<void> => {
    const parts = commitsOf(records.map((r) => BlockEvent.parse(r.value)));
    const load = async (events: readonly BlockEvent[]): Promise<ChainPrior> => {
      const started = performance.now();
      const prior = await retry('load', () => loadChainPrior(models, events));
      loadMs.set(prior, Math.round(performance.now() - started));
      return prior;
    };
    let loaded: ChainPrior | undefined;
    for (const [k, events] of parts.entries()) {
      const prior = loaded ?? (await load(events));
      const first = records[0];
      if (k === 0 && first && BigInt(first.offset) !== expectedOffset)
        // At start and after the partition moved here: where the committed position put us, beside
        // the store's head (blocks at or below it are skipped). Fault tests read this line.
        logger.info(
          { offset: first.offset, height: events[0]?.height, head: prior.head?.height ?? 0 },
          'block topic resumed',
        );
      await commit(events, prior);
      // The next part's prior state is read in the gap left to waiting readers: reads hold nobody
      // up, and that state is what this part's commit left.
      const next = parts[k + 1];
      loaded = next ? (await Promise.all([load(next), delay(gapMs)]))[0] : undefined;
    }
    const lastRecord = records.at(-1);
    if (lastRecord) expectedOffset = BigInt(lastRecord.offset) + 1n;
  };

  return {
    async start() {
      await deps.store.ensureCollections(COLLECTION_SPECS);
      const stored = await retry('head', () => models.head.get(HEAD_ID));
      const mismatch = layoutMismatch(stored);
      if (mismatch !== null) throw new Error(mismatch);
      // At start too, not only with the next block: a quiet chain may bring none for a while.
      await restoreCounters(stored);
      return deps.log.consume({ ...subscriptions(topics, group).chain, maxBatch }, projectChain);
    },
  };
}
