import type { Collection, CollectionSpec, Doc, IndexSpec } from '@mtc/ports';

declare const docType: unique symbol;

/**
 * A read model's collection: its name and the indexes its queries need, typed by its document, so
 * an index or a query that names a field the document does not have fails to compile. Each model
 * module (one folder) also holds its document type, its projection and its queries; `registry.ts`
 * lists them all once.
 */
export interface ModelSpec<D extends Doc> {
  readonly name: string;
  readonly indexes: readonly IndexSpec<D>[];
  /**
   * Never set: carries the document type for `Opened`, which cannot infer it back from the index
   * fields. A parameter, so a model is contravariant in its document as its index fields are.
   */
  readonly [docType]?: (doc: D) => void;
}

/** Any read model, whatever its document (`never`, as the document type is contravariant). */
export type AnyModel = ModelSpec<never>;

/** The collections a list of models opens, by the list's keys, each typed by its model's document. */
export type Opened<M> = { -readonly [K in keyof M]: M[K] extends ModelSpec<infer D> ? Collection<D> : never };

export function defineModel<D extends Doc>(name: string, indexes: readonly IndexSpec<D>[] = []): ModelSpec<D> {
  return { name, indexes };
}

export function collectionSpec<D extends Doc>(model: ModelSpec<D>): CollectionSpec {
  return { name: model.name, indexes: model.indexes as CollectionSpec['indexes'] };
}
