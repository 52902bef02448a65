import type { AnyDoc, Collection, Counters, Doc, ReadStore } from '@mtc/ports';
import { attachWatch, createBudget, type Budget } from './budget.ts';

/**
 * Budgets of a port's calls, in ms. Reads answer a request or load a batch's prior state; writes
 * carry a projection phase (thousands of documents) and DDL, so they get longer.
 */
export interface Budgets {
  readMs: number;
  writeMs: number;
}

/**
 * The read store with a time budget on every call (see budget.ts). `collection` itself does no I/O;
 * the collection it returns is budgeted. `close` gets the write budget, so a shutdown never waits
 * on a hung server for ever.
 */
export function timeReadStore(store: ReadStore, budgets: Budgets, budget: Budget = createBudget('store')): ReadStore {
  const read = <T>(op: string, ms: number, call: () => Promise<T>): Promise<T> => budget.run(op, ms, call);
  const { readMs, writeMs } = budgets;
  const collection = <T extends Doc = AnyDoc>(name: string): Collection<T> => {
    const c = store.collection<T>(name);
    return {
      get: (id) => read('get', readMs, () => c.get(id)),
      getMany: (ids) => read('getMany', readMs, () => c.getMany(ids)),
      find: (filter, options) => read('find', readMs, () => c.find(filter, options)),
      count: (filter) => read('count', readMs, () => c.count(filter)),
    };
  };
  return withRebudget(
    {
      atomicWrites: store.atomicWrites ?? false,
      ensureCollections: (specs) => budget.mutate('ensureCollections', writeMs, () => store.ensureCollections(specs)),
      collection,
      write: (writes) => budget.mutate('write', writeMs, () => store.write(writes)),
      drop: () => budget.mutate('drop', writeMs, () => store.drop()),
      close: () => read('close', writeMs, () => store.close()),
    },
    budget,
    (other) => timeReadStore(store, { ...budgets, ...other }, budget),
  );
}

/** The counters with a time budget on every call: `addBlockTxs` is a write, the rest are reads. */
export function timeCounters(
  counters: Counters,
  budgets: Budgets,
  budget: Budget = createBudget('counters'),
): Counters {
  const { readMs, writeMs } = budgets;
  return withRebudget(
    {
      addBlockTxs: (blocks) => budget.mutate('addBlockTxs', writeMs, () => counters.addBlockTxs(blocks)),
      highestCounted: () => budget.run('highestCounted', readMs, () => counters.highestCounted()),
      txCountBetween: (fromTs, toTs) =>
        budget.run('txCountBetween', readMs, () => counters.txCountBetween(fromTs, toTs)),
      close: () => budget.run('close', writeMs, () => counters.close()),
    },
    budget,
    (other) => timeCounters(counters, { ...budgets, ...other }, budget),
  );
}

const REBUDGET = Symbol('rebudget');

function withRebudget<P extends object>(port: P, budget: Budget, rebudget: (budgets: Partial<Budgets>) => P): P {
  Object.defineProperty(port, REBUDGET, { value: rebudget, enumerable: false });
  return attachWatch(port, budget.watch);
}

/**
 * The same budgeted port with other budgets, reporting its timeouts and stalls as the port does:
 * for a readiness probe, which must not wait a batch's budget. A port without a budget (embedded)
 * is returned as it is.
 */
export function withBudgets<P extends ReadStore | Counters>(port: P, budgets: Partial<Budgets>): P {
  const rebudget = (port as { [REBUDGET]?: (b: Partial<Budgets>) => P })[REBUDGET];
  return rebudget ? rebudget(budgets) : port;
}
