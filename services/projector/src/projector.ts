import { BlockEvent, TOPICS } from '@mtc/domain';
import type { Counters, EventLog, ReadStore, Subscription } from '@mtc/ports';
import { COLLECTION_SPECS } from '@mtc/read-models';
import { isRetryable, withRetry, type Logger } from '@mtc/runtime';
import { projectBlocks, type ProjectionOptions } from './projection.ts';

/**
 * The projector: consumes block events and applies the projection. A batch's log position is
 * committed only after its writes are durable (the log commits after the handler resolves), and
 * every write is idempotent, so at-least-once delivery gives exactly-once effects. A fault that
 * retrying cannot mend ends the subscription: it crashes loudly instead of skipping a block.
 */
export interface ProjectorDeps {
  log: EventLog;
  store: ReadStore;
  counters: Counters;
  logger: Logger;
  signal: AbortSignal;
  options: ProjectionOptions & { group?: string; maxBatch?: number };
  onProgress?: (height: number, blocks: number) => void;
}

export interface Projector {
  start(): Promise<Subscription>;
}

export const DEFAULT_PROJECTOR_GROUP = 'mtc-projector';

export function createProjector(deps: ProjectorDeps): Projector {
  const logger = deps.logger.child({ component: 'projector' });
  const retry = <T>(what: string, op: () => Promise<T>): Promise<T> =>
    withRetry(op, {
      retryable: isRetryable,
      signal: deps.signal,
      maxDelayMs: 10_000,
      onRetry: (err, attempt, delayMs) => logger.warn({ err, what, attempt, delayMs }, 'write failed, retrying'),
    });

  return {
    async start() {
      await deps.store.ensureCollections(COLLECTION_SPECS);
      return deps.log.consume(
        { topic: TOPICS.blocks, group: deps.options.group ?? DEFAULT_PROJECTOR_GROUP, maxBatch: deps.options.maxBatch ?? 500 },
        async (records) => {
          const events = records.map((r) => BlockEvent.parse(r.value));
          const batch = projectBlocks(events, deps.options);
          await retry('data', () => deps.store.write(batch.data));
          await retry('head', () => deps.store.write(batch.head));
          await retry('counters', () => deps.counters.addBlockTxs(batch.counts));
          const last = events.at(-1);
          if (last) {
            logger.debug({ height: last.height, blocks: events.length }, 'projected');
            deps.onProgress?.(last.height, events.length);
          }
        },
      );
    },
  };
}
