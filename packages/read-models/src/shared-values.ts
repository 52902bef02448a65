import { hash } from 'node:crypto';
import type { Collection, Write } from '@mtc/ports';
import { LRUCache } from 'lru-cache';
import { defineModel } from './model.ts';

/**
 * Values that immutable documents would otherwise repeat, stored once by content: a wallet write's
 * MRC-402 holdings map in a transaction's entries (`TxDoc.maps`), a holder's lock-ups in the
 * holding-change log (`locksRef`). Both are a whole list that grows with what an address holds and
 * that most writes leave as it was, so kept inline they made the documents of a transaction grow with
 * history; by content, a list is written once however many documents name it.
 */
export type SharedValueDoc = {
  /** `contentId` of the value's JSON. */
  _id: string;
  value: unknown;
};

export const sharedValues = defineModel<SharedValueDoc>('shared_values');

/** Values from this size of JSON on are shared; smaller ones stay where they are. */
export const SHARE_FROM_BYTES = 512;

/** The id of a shared value: a hash of its JSON, so equal values are one document. */
export function contentId(json: string): string {
  return hash('sha256', json, 'base64url');
}

/**
 * A batch's shared values: `share` gives the id a document names instead of a large value, and
 * `writes` the documents to put, leaving out those `stored` knows are stored already.
 */
export class BatchValues {
  readonly #values = new Map<string, unknown>();
  readonly #stored: { has(id: string): boolean } | undefined;

  constructor(stored?: { has(id: string): boolean }) {
    this.#stored = stored;
  }

  /** The id to store instead of `value`, or null when it is small enough to stay inline. */
  share(value: unknown): string | null {
    const json = JSON.stringify(value);
    if (json.length < SHARE_FROM_BYTES) return null;
    const id = contentId(json);
    if (!this.#values.has(id)) this.#values.set(id, value);
    return id;
  }

  /** Every value the batch named, stored or not: what `StoredValues.committed` takes. */
  ids(): string[] {
    return [...this.#values.keys()];
  }

  writes(): Write[] {
    const out: Write[] = [];
    for (const [id, value] of this.#values)
      if (!this.#stored?.has(id)) out.push({ op: 'put', collection: sharedValues.name, doc: { _id: id, value } });
    return out;
  }
}

/**
 * The shared values a projector has committed, newest last, so that later batches leave them out (a
 * whale's holdings recur in most batches). Only a skip list: a value it does not know (after a
 * start, or once forgotten) is written again, which stores the same content, so what it holds never
 * changes what the store ends up with. Bounded: past `capacity` the least recently named are forgotten.
 */
export class StoredValues {
  readonly #ids: LRUCache<string, true>;

  constructor(capacity = 100_000) {
    this.#ids = new LRUCache({ max: capacity });
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Records the values a committed batch named (never before: a failed write must not be skipped later). */
  committed(ids: Iterable<string>): void {
    for (const id of ids) this.#ids.set(id, true);
  }
}

/**
 * The shared values `ids` names, by id. Each is written in the same batch as the documents that
 * name it, so one that is missing is a damaged store, not a race: it fails, naming `what` needed it.
 */
export async function readShared(
  values: Collection<SharedValueDoc>,
  ids: readonly string[],
  what: string,
): Promise<Map<string, unknown>> {
  const unique = [...new Set(ids)];
  const byId = new Map((await values.getMany(unique)).map((d) => [d._id, d.value]));
  const missing = unique.find((id) => !byId.has(id));
  if (missing !== undefined) throw new Error(`${what}: shared value ${missing} is not stored`);
  return byId;
}
