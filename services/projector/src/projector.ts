import { BlockEvent, StateEvent, TOPICS, type TopicNames } from '@mtc/domain';
import type { Counters, EventLog, LogRecord, ReadStore, Subscription } from '@mtc/ports';
import { COLLECTION_SPECS } from '@mtc/read-models';
import { isRetryable, withRetry, type Logger } from '@mtc/runtime';
import { projectBlocks, projectState, type ProjectionOptions } from './projection.ts';

/**
 * The projector: two subscriptions, one per topic. The chain part consumes the block topic (one
 * partition: blocks, transactions, daily counts, the head, the counters); the state part consumes
 * the state topic (partitioned by entity: wallets, tokens), so projector processes in one group
 * share its partitions. A batch's log position is committed only after its writes are durable (the
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
  options: ProjectionOptions & { group?: string; maxBatch?: number };
  onProgress?: (height: number, blocks: number) => void;
}

export interface Projector {
  /** Subscribes to both topics; the returned subscription covers both. */
  start(): Promise<Subscription>;
}

export const DEFAULT_PROJECTOR_GROUP = 'mtc-projector';

/** The consumer group of each subscription, derived from the projector's group name. */
function subscriptions(topics: TopicNames, group: string): Record<'state' | 'chain', { topic: string; group: string }> {
  return {
    state: { topic: topics.state, group: `${group}.state` },
    chain: { topic: topics.blocks, group: `${group}.chain` },
  };
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

  const projectChain = async (records: readonly LogRecord[]): Promise<void> => {
    const events = records.map((r) => BlockEvent.parse(r.value));
    const batch = projectBlocks(events, deps.options);
    await retry('blocks', () => deps.store.write(batch.data));
    await retry('head', () => deps.store.write(batch.head));
    await retry('counters', () => deps.counters.addBlockTxs(batch.counts));
    const last = events.at(-1);
    if (last) {
      logger.debug({ height: last.height, blocks: events.length }, 'projected blocks');
      deps.onProgress?.(last.height, events.length);
    }
  };

  const projectStateBatch = async (records: readonly LogRecord[]): Promise<void> => {
    const writes = projectState(records.map((r) => StateEvent.parse(r.value)));
    await retry('state', () => deps.store.write(writes));
  };

  return {
    async start() {
      await deps.store.ensureCollections(COLLECTION_SPECS);
      const subs = subscriptions(topics, group);
      const state = await deps.log.consume({ ...subs.state, maxBatch }, projectStateBatch);
      const chain = await deps.log.consume({ ...subs.chain, maxBatch }, projectChain);
      return {
        done: Promise.all([state.done, chain.done]).then(() => undefined),
        stop: async () => {
          await Promise.all([chain.stop(), state.stop()]);
        },
      };
    },
  };
}
