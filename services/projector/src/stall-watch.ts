import type { EventLog } from '@mtc/ports';

export interface StallReport {
  /** How long the oldest batch in hand had been in hand. */
  inHandMs: number;
  topic: string;
}

export interface BatchWatch {
  /** The log to consume through: its handlers are watched. */
  log: EventLog;
  stalled(): boolean;
  close(): void;
}

/**
 * A watch on the batches this process has in hand: one still in hand after `stallAfterMs` (its
 * writes waiting on a store that does not answer, or failing and retried again and again) is
 * reported once, as is the end of the stall, when no batch in hand is that old any more.
 *
 * Per process, not per group: a projector that holds no partition has nothing in hand and is not
 * stalled however far its group lags, and one that holds a partition but cannot finish its batch is
 * stalled even when the group's lag looks small.
 */
export function watchBatches(
  inner: EventLog,
  stallAfterMs: number,
  report: (stalled: boolean, detail: StallReport) => void,
  now: () => number = Date.now,
): BatchWatch {
  const inHand = new Map<symbol, { since: number; topic: string }>();
  let stalled = false;

  const check = (done?: StallReport): void => {
    let oldest: { since: number; topic: string } | undefined;
    for (const b of inHand.values()) if (!oldest || b.since < oldest.since) oldest = b;
    const stuck = oldest !== undefined && now() - oldest.since >= stallAfterMs;
    if (stuck === stalled) return;
    stalled = stuck;
    report(
      stalled,
      stuck && oldest ? { inHandMs: now() - oldest.since, topic: oldest.topic } : (done ?? { inHandMs: 0, topic: '' }),
    );
  };

  const timer = setInterval(() => check(), Math.max(10, Math.min(stallAfterMs / 4, 5_000)));
  timer.unref();

  const log: EventLog = {
    publish: (topic, messages) => inner.publish(topic, messages),
    lastValue: (topic) => inner.lastValue(topic),
    lag: (topic, group) => inner.lag(topic, group),
    read: (options, handler) => inner.read(options, handler),
    endOffset: (topic) => inner.endOffset(topic),
    close: () => inner.close(),
    consume: (options, handler) =>
      inner.consume(options, async (batch) => {
        const id = Symbol('batch');
        const since = now();
        inHand.set(id, { since, topic: options.topic });
        try {
          await handler(batch);
        } finally {
          inHand.delete(id);
          check({ inHandMs: now() - since, topic: options.topic });
        }
      }),
  };
  return { log, stalled: () => stalled, close: () => clearInterval(timer) };
}
