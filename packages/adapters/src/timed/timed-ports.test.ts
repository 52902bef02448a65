import { Writable } from 'node:stream';
import type { Counters, ReadStore, Write } from '@mtc/ports';
import { isRetryable } from '@mtc/runtime';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryReadStore } from '../memory/memory-store.ts';
import { budgetWatchOf, observeBudgets, STALL_SETTLE_MS, StoreTimeoutError, type BudgetEvent } from './budget.ts';
import { timeCounters, timeReadStore, withBudgets } from './timed-ports.ts';

const BUDGETS = { readMs: 1_000, writeMs: 5_000 };

/** A call the test settles by hand, and whether it was started at all. */
interface Pending<T> {
  started: boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A store whose every call waits until the test settles it: a server that hangs until told. */
function handStore(): { store: ReadStore; calls: { op: string; call: Pending<unknown> }[] } {
  const calls: { op: string; call: Pending<unknown> }[] = [];
  const wait = (op: string) => (): Promise<never> =>
    new Promise<never>((resolve, reject) => {
      calls.push({ op, call: { started: true, resolve, reject } });
    });
  return {
    calls,
    store: {
      ensureCollections: wait('ensureCollections'),
      collection: () => ({ get: wait('get'), getMany: wait('getMany'), find: wait('find'), count: wait('count') }),
      write: wait('write'),
      drop: wait('drop'),
      close: wait('close'),
    },
  };
}

function handCounters(): { counters: Counters; calls: { op: string; call: Pending<unknown> }[] } {
  const calls: { op: string; call: Pending<unknown> }[] = [];
  const wait = (op: string) => (): Promise<never> =>
    new Promise<never>((resolve, reject) => {
      calls.push({ op, call: { started: true, resolve, reject } });
    });
  return {
    calls,
    counters: {
      addBlockTxs: wait('addBlockTxs'),
      highestCounted: wait('highestCounted'),
      txCountBetween: wait('txCountBetween'),
      close: wait('close'),
    },
  };
}

/** Settles `promise` into a value the test can inspect without an unhandled rejection. */
function track<T>(promise: Promise<T>): {
  state: () => 'pending' | 'resolved' | 'rejected';
  value?: T;
  error?: unknown;
} {
  const t: { state: () => 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = {
    state: () => s,
  };
  let s: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    (v) => {
      s = 'resolved';
      t.value = v;
    },
    (e: unknown) => {
      s = 'rejected';
      t.error = e;
    },
  );
  return t;
}

function events(port: object): BudgetEvent[] {
  const seen: BudgetEvent[] = [];
  budgetWatchOf(port)!.subscribe((e) => seen.push(e));
  return seen;
}

const write: Write[] = [{ op: 'put', collection: 'c', doc: { _id: 'a' } }];

describe('timeReadStore', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers as the store does within the budget', async () => {
    const inner = createMemoryReadStore();
    await inner.write([{ op: 'put', collection: 'blocks', doc: { _id: '1', height: 1 } }]);
    const store = timeReadStore(inner, BUDGETS);
    const seen = events(store);
    expect(await store.collection('blocks').get('1')).toEqual({ _id: '1', height: 1 });
    expect(await store.collection('blocks').count()).toBe(1);
    expect(seen).toEqual([]);
  });

  it('rejects a read with a retryable 503 StoreTimeoutError naming the store and the call once its budget passed', async () => {
    const { store: inner } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const read = track(store.collection('head').get('indexed'));
    await vi.advanceTimersByTimeAsync(BUDGETS.readMs - 1);
    expect(read.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(read.state()).toBe('rejected');
    const error = read.error as StoreTimeoutError;
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(error.name).toBe('StoreTimeoutError');
    expect(error.status).toBe(503);
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toBe('the read store did not answer get within 1000 ms');
  });

  it('gives every call of the port a budget: reads the read budget, writes, DDL and close the write budget', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const c = store.collection('x');
    const reads = [c.get('a'), c.getMany(['a']), c.find({}), c.count()].map((p: Promise<unknown>) => track(p));
    const writes = [store.write(write), store.ensureCollections([]), store.drop(), store.close()].map(
      (p: Promise<unknown>) => track(p),
    );
    await vi.advanceTimersByTimeAsync(BUDGETS.readMs);
    expect(reads.map((r) => (r.error as StoreTimeoutError | undefined)?.op)).toEqual([
      'get',
      'getMany',
      'find',
      'count',
    ]);
    expect(writes.map((w) => w.state())).toEqual(['pending', 'pending', 'pending', 'pending']);
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs - BUDGETS.readMs);
    expect(writes.map((w) => (w.error as StoreTimeoutError | undefined)?.op)).toEqual([
      'write',
      'ensureCollections',
      'drop',
      'close',
    ]);
    expect(calls.map((x) => x.op).sort()).toEqual(
      ['get', 'getMany', 'find', 'count', 'write', 'ensureCollections', 'drop', 'close'].sort(),
    );
  });

  it('passes the store’s own errors on unchanged, before the budget', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const read = track(store.collection('x').find({}));
    const boom = new Error('E11000');
    calls[0]!.call.reject(boom);
    await vi.advanceTimersByTimeAsync(0);
    expect(read.error).toBe(boom);
  });

  it('reports a stall once, counts each timeout, and ends it once calls are answered in time again', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const seen = events(store);
    const hung = [store.collection('x').get('a'), store.collection('x').count(), store.write(write)].map(
      (p: Promise<unknown>) => track(p),
    );
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs);
    expect(hung.map((h) => h.state())).toEqual(['rejected', 'rejected', 'rejected']);
    expect(seen.map((e) => e.kind)).toEqual(['timeout', 'stalled', 'timeout', 'timeout']);
    expect(budgetWatchOf(store)!.stall()).toMatchObject({ op: 'get', timeouts: 3 });
    await vi.advanceTimersByTimeAsync(STALL_SETTLE_MS);
    const next = track(store.collection('x').find({}));
    calls.at(-1)!.call.resolve([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(next.state()).toBe('resolved');
    expect(seen.at(-1)).toMatchObject({ kind: 'recovered', port: 'store', timeouts: 3 });
    expect(budgetWatchOf(store)!.stall()).toBeNull();
  });

  it('keeps one stall while some calls still time out, ending it only with a call made after they stopped', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const seen = events(store);
    // An overloaded store: one call in two times out, the others are answered at once.
    for (let i = 0; i < 10; i++) {
      track(store.collection('x').find({})); // never answered
      const quick = track(store.collection('x').get(String(i)));
      calls.at(-1)!.call.resolve(null);
      await vi.advanceTimersByTimeAsync(0);
      expect(quick.state()).toBe('resolved');
      await vi.advanceTimersByTimeAsync(BUDGETS.readMs);
    }
    expect(seen.filter((e) => e.kind !== 'timeout').map((e) => e.kind)).toEqual(['stalled']);
    // Answered, but started before the settle time after the latest timeout passed.
    await vi.advanceTimersByTimeAsync(STALL_SETTLE_MS - 1);
    const early = track(store.collection('x').get('early'));
    await vi.advanceTimersByTimeAsync(1);
    calls.at(-1)!.call.resolve(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(early.state()).toBe('resolved');
    expect(budgetWatchOf(store)!.stall()).toMatchObject({ timeouts: 10 });
    const late = track(store.collection('x').get('late'));
    calls.at(-1)!.call.resolve(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(late.state()).toBe('resolved');
    expect(seen.filter((e) => e.kind !== 'timeout')).toEqual([
      { kind: 'stalled', port: 'store', op: 'find', budgetMs: BUDGETS.readMs },
      { kind: 'recovered', port: 'store', stalledMs: 9 * BUDGETS.readMs + STALL_SETTLE_MS, timeouts: 10 },
    ]);
  });

  it('starts no write while a write past its budget is still pending, so writes stay in order', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const first = track(store.write(write));
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs);
    expect(first.state()).toBe('rejected');
    const second = track(store.write(write));
    const read = track(store.collection('x').get('a'));
    await vi.advanceTimersByTimeAsync(100);
    // The read goes ahead; the second write waits for the first, which the server may still apply.
    expect(calls.map((c) => c.op)).toEqual(['write', 'get']);
    calls[1]!.call.resolve(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(read.state()).toBe('resolved');
    calls[0]!.call.reject(new Error('socket timeout'));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.op)).toEqual(['write', 'get', 'write']);
    calls[2]!.call.resolve(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(second.state()).toBe('resolved');
  });

  it('never starts a write whose budget passed while it waited for an abandoned one', async () => {
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    track(store.write(write));
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs);
    const waiting = track(store.write(write));
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs);
    expect(waiting.state()).toBe('rejected');
    calls[0]!.call.resolve(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
  });
});

describe('timeCounters', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives reads the read budget and addBlockTxs the write budget, naming the counters', async () => {
    const { counters: inner, calls } = handCounters();
    const counters = timeCounters(inner, BUDGETS);
    const reads = [counters.highestCounted(), counters.txCountBetween(0, 60)].map((p: Promise<unknown>) => track(p));
    const add = track(counters.addBlockTxs([{ height: 1, timestamp: 0, count: 1 }]));
    await vi.advanceTimersByTimeAsync(BUDGETS.readMs);
    expect(reads.map((r) => (r.error as StoreTimeoutError).message)).toEqual([
      'the counters store did not answer highestCounted within 1000 ms',
      'the counters store did not answer txCountBetween within 1000 ms',
    ]);
    expect(add.state()).toBe('pending');
    await vi.advanceTimersByTimeAsync(BUDGETS.writeMs);
    expect((add.error as StoreTimeoutError).op).toBe('addBlockTxs');
    expect(calls).toHaveLength(3);
  });
});

describe('observeBudgets', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('logs a stall once when it starts and once when it ends, and counts every timeout', async () => {
    const lines: { level: number; msg: string; port?: string }[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
          done();
        },
      }),
    );
    const { store: inner, calls } = handStore();
    const store = timeReadStore(inner, BUDGETS);
    const timeouts: string[] = [];
    const stalled: boolean[] = [];
    observeBudgets(store, {
      logger,
      timeout: (port, op) => timeouts.push(`${port}.${op}`),
      stalled: (_port, is) => stalled.push(is),
    });
    for (let i = 0; i < 5; i++) track(store.collection('x').get(String(i)));
    await vi.advanceTimersByTimeAsync(BUDGETS.readMs + STALL_SETTLE_MS);
    const next = track(store.collection('x').count());
    calls.at(-1)!.call.resolve(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(next.value).toBe(7);
    expect(timeouts).toEqual(Array(5).fill('store.get'));
    expect(stalled).toEqual([false, true, false]);
    expect(lines.map((l) => [l.level, l.msg, l.port])).toEqual([
      [40, 'stalled: a call got no answer within its budget', 'store'],
      [30, 'answering again after a stall', 'store'],
    ]);
  });

  it('ignores a port without a budget (an embedded store)', () => {
    const store = createMemoryReadStore();
    expect(budgetWatchOf(store)).toBeNull();
    const stalled: boolean[] = [];
    observeBudgets(store, { logger: pino({ level: 'silent' }), stalled: (_p, is) => stalled.push(is) });
    expect(stalled).toEqual([]);
  });
});

describe('withBudgets', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives a view of the port its own budgets, reporting to the same watch', async () => {
    const { store: inner } = handStore();
    const store = timeReadStore(inner, { readMs: 30_000, writeMs: 120_000 });
    const seen = events(store);
    const probe = withBudgets(store, { readMs: 700 });
    const count = track(probe.collection('head').count());
    const batch = track(store.collection('head').count());
    await vi.advanceTimersByTimeAsync(700);
    expect((count.error as StoreTimeoutError).budgetMs).toBe(700);
    expect(batch.state()).toBe('pending');
    expect(seen.map((e) => e.kind)).toEqual(['timeout', 'stalled']);
    expect(budgetWatchOf(probe)).toBe(budgetWatchOf(store));
  });

  it('returns a port without a budget as it is', () => {
    const store = createMemoryReadStore();
    expect(withBudgets(store, { readMs: 700 })).toBe(store);
  });
});
