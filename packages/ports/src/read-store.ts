/**
 * ReadStore: the document store behind the read models. Deliberately small, so that an embedded
 * store (SQLite) and MongoDB implement exactly the same behaviour, proven by one contract suite.
 *
 * - Documents are JSON objects keyed by a string `_id`. Filters, sorts and indexes name top-level
 *   fields only. Values in filters are scalars compared by type-aware equality/ordering
 *   (numbers as numbers, strings as strings); never mix types in one indexed field.
 * - Every write is idempotent on its own, so a batch may be replayed after a crash. Guarded writes
 *   carry a chain position `pos` (a string that sorts in chain order) and only apply when they are
 *   newer than what is stored: replaying the log changes nothing.
 * - `write` is durable when it resolves. It is not atomic across documents; ordering inside one call
 *   is preserved per document.
 */
export type Scalar = string | number | boolean | null;

export type Doc = { _id: string } & { [field: string]: unknown };

export type Condition = Scalar | { $gt?: Scalar; $gte?: Scalar; $lt?: Scalar; $lte?: Scalar; $in?: Scalar[] };
export type Filter = Record<string, Condition>;

export type SortSpec = readonly (readonly [field: string, direction: 1 | -1])[];

export interface FindOptions {
  sort?: SortSpec;
  limit?: number;
}

export interface IndexSpec {
  fields: SortSpec;
  unique?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes: readonly IndexSpec[];
}

export type Write =
  /** Insert or replace the whole document. For immutable facts (a block, a transaction). */
  | { op: 'put'; collection: string; doc: Doc }
  /** Replace the whole document only if the stored `pos` is older (or there is none). */
  | { op: 'putIfNewer'; collection: string; doc: Doc & { pos: string } }
  /**
   * Add `inc` to numeric fields (missing fields count as 0) and set `set` fields, only if the
   * stored `pos` is older than `pos` (or the document is missing); then store `pos`.
   */
  | {
      op: 'incIfNewer';
      collection: string;
      id: string;
      pos: string;
      inc: Record<string, number>;
      set?: Record<string, Scalar>;
    }
  /** Delete by id; deleting a missing document is a no-op. */
  | { op: 'delete'; collection: string; id: string };

export interface Collection<T extends Doc> {
  get(id: string): Promise<T | null>;
  /** Documents for the ids that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<T[]>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter): Promise<number>;
}

export interface ReadStore {
  /** Creates collections and their indexes if missing. Safe to call at every start-up. */
  ensureCollections(specs: readonly CollectionSpec[]): Promise<void>;
  collection<T extends Doc>(name: string): Collection<T>;
  write(writes: readonly Write[]): Promise<void>;
  /** Drops every collection: for rebuilds and tests. */
  drop(): Promise<void>;
  close(): Promise<void>;
}
