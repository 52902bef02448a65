import { BlockEvent } from '@mtc/domain';
import type { EventLog, LogRecord, ReadStore } from '@mtc/ports';
import { COLLECTION_SPECS, loadChainPrior, openModels, projectChainBatch, type StatsOptions } from '@mtc/read-models';

/**
 * Replays the block topic from its first message up to `height` into `store` (a scratch store):
 * the state projection from the blocks' writes (the state topic is compacted and has forgotten
 * every older version of an entity) and the chain-batch projection, exactly as the projector
 * applies them, stopping at `height`: messages past it are not applied. The store then holds the
 * read models as they stood when `height` was the indexed head.
 */
export interface ReplayOptions {
  log: EventLog;
  blocksTopic: string;
  /** A new consumer group: the replay starts at offset 0. */
  group: string;
  store: ReadStore;
  height: number;
  stats: StatsOptions;
  signal: AbortSignal;
  /** After each applied batch: the highest height applied. */
  onProgress?: (height: number) => void;
}

export async function replayToHeight(options: ReplayOptions): Promise<void> {
  const { store, height } = options;
  await store.ensureCollections(COLLECTION_SPECS);
  const models = openModels(store);
  let reached!: () => void;
  const done = new Promise<void>((resolve) => (reached = resolve));
  let applied = 0;

  const apply = async (records: readonly LogRecord[]): Promise<void> => {
    if (applied >= height) return; // past the snapshot's height: fetched, never applied
    const events = records.map((r) => BlockEvent.parse(r.value)).filter((e) => e.height <= height);
    if (events.length === 0) return;
    const batch = projectChainBatch(events, await loadChainPrior(models, events), options.stats);
    // Each phase durable before the next, as the projector writes them (chain-batch.ts).
    for (const phase of batch.phases) await store.write(phase);
    applied = events.at(-1)!.height;
    options.onProgress?.(applied);
    if (applied >= height) reached();
  };

  const subscription = await options.log.consume(
    { topic: options.blocksTopic, group: options.group, fromBeginning: true },
    apply,
  );
  const aborted = new Promise<never>((_, reject) => {
    const abort = (): void => reject(new Error('interrupted'));
    if (options.signal.aborted) abort();
    else options.signal.addEventListener('abort', abort, { once: true });
  });
  try {
    await Promise.race([
      done,
      aborted,
      subscription.done.then(() => {
        throw new Error(`the block topic ended at height ${applied}, before ${height}`);
      }),
    ]);
  } finally {
    await subscription.stop();
  }
}
