import type { Doc, Collection, CollectionSpec, AnyDoc, Filter, FindOptions, ReadStore, Write } from '@mtc/ports';
import { matches, sortDocs } from './filter.ts';

/**
 * An in-memory ReadStore: the reference implementation of the contract, and a fake for unit tests.
 * Documents are deep-copied in and out, as a real store would serialise them.
 */
export function createMemoryReadStore(): ReadStore {
  const data = new Map<string, Map<string, AnyDoc>>();
  const table = (name: string): Map<string, AnyDoc> => {
    let t = data.get(name);
    if (!t) data.set(name, (t = new Map<string, AnyDoc>()));
    return t;
  };
  const copy = <T>(doc: T): T => structuredClone(doc);

  const apply = (w: Write): void => {
    const t = table(w.collection);
    switch (w.op) {
      case 'put':
        t.set(w.doc._id, copy(w.doc));
        return;
      case 'putIfNewer': {
        const cur = t.get(w.doc._id);
        if (!cur || (cur['pos'] as string) < w.doc.pos) t.set(w.doc._id, copy(w.doc));
        return;
      }
      case 'incIfNewer': {
        const cur = t.get(w.id);
        if (cur && (cur['pos'] as string) >= w.pos) return;
        const next: AnyDoc = cur ? copy(cur) : { _id: w.id };
        for (const [field, by] of Object.entries(w.inc)) next[field] = ((next[field] as number | undefined) ?? 0) + by;
        Object.assign(next, w.set ?? {}, { pos: w.pos });
        t.set(w.id, next);
        return;
      }
      case 'delete':
        t.delete(w.id);
        return;
    }
  };

  const collection = <T extends Doc = AnyDoc>(name: string): Collection<T> => ({
    get: async (id) => copy((table(name).get(id) as T | undefined) ?? null),
    // Each existing document once, even when its id is asked for twice (as with `$in` in a real store).
    getMany: async (ids) =>
      [...new Set(ids)].flatMap((id) => (table(name).has(id) ? [copy(table(name).get(id) as T)] : [])),
    find: async (filter: Filter, options: FindOptions = {}) => {
      const hits = [...table(name).values()].filter((d) => matches(d, filter)) as T[];
      const sorted = sortDocs(hits, options.sort).slice(options.skip ?? 0);
      return copy(options.limit === undefined ? sorted : sorted.slice(0, options.limit));
    },
    count: async (filter: Filter = {}) => [...table(name).values()].filter((d) => matches(d, filter)).length,
  });

  return {
    // A write call runs to its end without yielding: no reader sees part of it.
    atomicWrites: true,
    ensureCollections: async (specs: readonly CollectionSpec[]) => {
      for (const s of specs) table(s.name);
    },
    collection,
    write: async (writes) => {
      for (const w of writes) apply(w);
    },
    drop: async () => data.clear(),
    close: async () => {},
  };
}
