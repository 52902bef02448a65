/**
 * A map from 64-hex ids (tx ids, block data_hashes: sha256 output, so uniformly spread) to record
 * numbers, in two typed arrays instead of a Map of strings. A `Map<string, number>` costs about 130
 * bytes per id (an 80-byte string, the entry, a boxed number past 2^30); this open-addressing table
 * keeps only the id's first 32 bits as a tag and the record number, 8 bytes a slot, at most 70 %
 * full: 11–23 bytes per id (34 while it doubles).
 *
 * A tag is not the id: two ids can share one, so a hit is only a candidate and `find` asks the
 * caller to confirm it against the stored record (which holds the full id). Ids must be 64
 * lower-case hex characters; the caller rejects anything else before asking.
 */
export interface HexIndex {
  /** Records `ordinal` (0 … 2^32 − 2) under `id`. Adding the same id twice keeps both. */
  add(id: string, ordinal: number): void;
  /** The first candidate, in probe order, that `confirm` accepts. */
  find(id: string, confirm: (ordinal: number) => boolean): number | undefined;
  readonly size: number;
  byteLength(): number;
}

const MAX_LOAD = 0.7;
const MIN_CAPACITY = 1 << 10;

export function createHexIndex(): HexIndex {
  let tags = new Uint32Array(MIN_CAPACITY);
  /** ordinal + 1; 0 marks an empty slot. */
  let slots = new Uint32Array(MIN_CAPACITY);
  let mask = MIN_CAPACITY - 1;
  let size = 0;

  // The tag's low bits pick the home slot: sha256 bits are uniform, and a resize needs no id.
  const place = (tag: number, value: number): void => {
    let i = tag & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    tags[i] = tag;
    slots[i] = value;
  };

  const grow = (): void => {
    const oldTags = tags;
    const oldSlots = slots;
    tags = new Uint32Array(oldTags.length * 2);
    slots = new Uint32Array(oldSlots.length * 2);
    mask = tags.length - 1;
    for (let i = 0; i < oldSlots.length; i++) if (oldSlots[i] !== 0) place(oldTags[i]!, oldSlots[i]!);
  };

  return {
    add(id, ordinal) {
      if (size + 1 > MAX_LOAD * tags.length) grow();
      place(tagOf(id), ordinal + 1);
      size++;
    },
    find(id, confirm) {
      const tag = tagOf(id);
      for (let i = tag & mask; slots[i] !== 0; i = (i + 1) & mask) {
        if (tags[i] === tag && confirm(slots[i]! - 1)) return slots[i]! - 1;
      }
      return undefined;
    },
    get size() {
      return size;
    },
    byteLength: () => tags.byteLength + slots.byteLength,
  };
}

function tagOf(id: string): number {
  return Number.parseInt(id.slice(0, 8), 16) >>> 0;
}
