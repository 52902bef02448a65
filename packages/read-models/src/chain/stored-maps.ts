/**
 * The `tx_maps` documents a projector has committed, newest last: a batch leaves out the maps it
 * knows are stored (a whale's holdings recur in most batches). Only a skip list: a map it does not
 * know (after a start, or once forgotten) is written again, which stores the same content, so what
 * it holds never changes what the store ends up with. Bounded: past `capacity` the least recently
 * recorded are forgotten.
 */
export class StoredMaps {
  readonly #ids = new Set<string>();
  readonly #capacity: number;

  constructor(capacity = 100_000) {
    this.#capacity = capacity;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Records maps whose write was committed (never before: a failed write must not be skipped later). */
  committed(ids: Iterable<string>): void {
    for (const id of ids) {
      this.#ids.delete(id);
      this.#ids.add(id);
      if (this.#ids.size > this.#capacity) this.#ids.delete(this.#ids.values().next().value!);
    }
  }
}
