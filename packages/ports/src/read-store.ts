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
 * - `write` is durable when it resolves. Ordering inside one call is preserved. Whether readers can
 *   see a call half done is the adapter's `atomicWrites` (see there): the projector makes a batch
 *   visible whole either way (`packages/read-models/src/chain/docs.ts`, HeadDoc).
 */
export type Scalar = string | number | boolean | null;

/** A stored document: a JSON object keyed by a string `_id`. Read-model types name their fields. */
export type Doc = { _id: string };
/** A document whose fields are not typed (adapters, dumps, contract tests). */
export type AnyDoc = { _id: string; [field: string]: unknown };

/** Field names of a document type (all of them for an untyped `Doc`). */
export type FieldOf<T extends Doc> = string extends keyof T ? string : keyof T & string;

export type Condition = Scalar | { $gt?: Scalar; $gte?: Scalar; $lt?: Scalar; $lte?: Scalar; $in?: Scalar[] };
/** Conditions on the document's own top-level fields, all of which must hold. */
export type Filter<T extends Doc = AnyDoc> = { [K in FieldOf<T>]?: Condition };

export type SortSpec<T extends Doc = AnyDoc> = readonly (readonly [field: FieldOf<T>, direction: 1 | -1])[];

export interface FindOptions<T extends Doc = AnyDoc> {
  sort?: SortSpec<T>;
  limit?: number;
  /**
   * Documents to pass over first. Only for bounded windows over an index that matches the sort
   * (a few thousand at most): deep lists page by key range instead.
   */
  skip?: number;
}

export interface IndexSpec<T extends Doc = AnyDoc> {
  fields: SortSpec<T>;
  unique?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes: readonly IndexSpec[];
}

export type Write =
  /** Insert or replace the whole document. For immutable facts (a block, a transaction). */
  | { op: 'put'; collection: string; doc: AnyDoc }
  /** Replace the whole document only if the stored `pos` is older (or there is none). */
  | { op: 'putIfNewer'; collection: string; doc: AnyDoc & { pos: string } }
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

export interface Collection<T extends Doc = AnyDoc> {
  get(id: string): Promise<T | null>;
  /** Documents for the ids that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<T[]>;
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;
  count(filter?: Filter<T>): Promise<number>;
}

export interface ReadStore {
  /**
   * True when one `write` call is applied all or nothing and readers see none of it until it
   * resolves (SQLite: one transaction). False or absent (MongoDB without transactions): readers may
   * see a call's documents one by one, so a batch says it is being written before it starts.
   */
  readonly atomicWrites?: boolean;
  /** Creates collections and their indexes if missing. Safe to call at every start-up. */
  ensureCollections(specs: readonly CollectionSpec[]): Promise<void>;
  collection<T extends Doc = AnyDoc>(name: string): Collection<T>;
  write(writes: readonly Write[]): Promise<void>;
  /** Drops every collection: for rebuilds and tests. */
  drop(): Promise<void>;
  close(): Promise<void>;
}
