import type { EventLog, LogRecord } from '@mtc/ports';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchBatches, type StallReport } from './stall-watch.ts';

/** A log that hands the test each subscription's handler, to deliver batches by hand. */
function handLog(): { log: EventLog; handlers: Map<string, (batch: readonly LogRecord[]) => Promise<void>> } {
  const handlers = new Map<string, (batch: readonly LogRecord[]) => Promise<void>>();
  const log: EventLog = {
    publish: async () => {},
    lastValue: async () => null,
    lag: async () => [],
    read: async () => ({ stop: async () => {}, done: new Promise<void>(() => {}) }),
    endOffset: async () => '0',
    close: async () => {},
    consume: async (options, handler) => {
      handlers.set(options.topic, handler);
      return { stop: async () => {}, done: new Promise<void>(() => {}) };
    },
  };
  return { log, handlers };
}

const record: LogRecord = { topic: 't', partition: 0, offset: '0', key: 'k', value: null };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('watchBatches', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports a batch in hand for stallAfterMs once, and the end once no batch in hand is that old', async () => {
    const { log, handlers } = handLog();
    const reports: [boolean, StallReport][] = [];
    const watch = watchBatches(log, 10_000, (stalled, detail) => reports.push([stalled, detail]));
    const calls: ReturnType<typeof deferred>[] = [];
    await watch.log.consume({ topic: 'blocks', group: 'g' }, () => {
      const d = deferred();
      calls.push(d);
      return d.promise;
    });
    const handler = handlers.get('blocks')!;
    const first = handler([record]);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(reports).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(watch.stalled()).toBe(true);
    expect(reports).toHaveLength(1);
    expect(reports[0]![0]).toBe(true);
    expect(reports[0]![1].topic).toBe('blocks');
    expect(reports[0]![1].inHandMs).toBeGreaterThanOrEqual(10_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reports).toHaveLength(1);
    calls[0]!.resolve();
    await first;
    expect(watch.stalled()).toBe(false);
    expect(reports.map(([s]) => s)).toEqual([true, false]);
    watch.close();
  });

  it('is not stalled while batches keep finishing, however long the run', async () => {
    const { log, handlers } = handLog();
    const reports: boolean[] = [];
    const watch = watchBatches(log, 10_000, (stalled) => reports.push(stalled));
    await watch.log.consume({ topic: 'blocks', group: 'g' }, async () => {
      await new Promise((r) => setTimeout(r, 5_000));
    });
    for (let i = 0; i < 10; i++) {
      const done = handlers.get('blocks')!([record]);
      await vi.advanceTimersByTimeAsync(5_000);
      await done;
    }
    expect(reports).toEqual([]);
    watch.close();
  });

  it('passes the batches and the other calls through unchanged', async () => {
    const { log, handlers } = handLog();
    const watch = watchBatches(log, 10_000, () => {});
    const seen: (readonly LogRecord[])[] = [];
    await watch.log.consume({ topic: 'state', group: 'g' }, async (batch) => void seen.push(batch));
    await handlers.get('state')!([record]);
    expect(seen).toEqual([[record]]);
    expect(await watch.log.lag('state', 'g')).toEqual([]);
    watch.close();
  });
});
