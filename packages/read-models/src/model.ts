import type { CollectionSpec, Doc, IndexSpec } from '@mtc/ports';

/**
 * A read model's collection: its name and the indexes its queries need, typed by its document, so
 * an index or a query that names a field the document does not have fails to compile. Each model
 * module (one folder) also holds its document type, its projection and its queries; `registry.ts`
 * lists them all once.
 */
export interface ModelSpec<D extends Doc> {
  readonly name: string;
  readonly indexes: readonly IndexSpec<D>[];
}

export function defineModel<D extends Doc>(name: string, indexes: readonly IndexSpec<D>[] = []): ModelSpec<D> {
  return { name, indexes };
}

export function collectionSpec<D extends Doc>(model: ModelSpec<D>): CollectionSpec {
  return { name: model.name, indexes: model.indexes as CollectionSpec['indexes'] };
}
