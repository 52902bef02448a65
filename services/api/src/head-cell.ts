import type { Head } from './head.ts';

/**
 * Where a head reader keeps the newest head it read (and when): this thread's memory, or memory
 * shared by the API threads of one process (the all-in-one's API_THREADS), so that every thread
 * answers from one head: within a process heights only grow, whichever thread a connection lands
 * on, and a head one thread read serves the others for the rest of API_HEAD_CACHE_MS.
 */
export interface HeadCell {
  get(): { head: Head; at: number } | undefined;
  /** Keeps `head`, read at `at`, unless the cell holds a higher one. */
  offer(head: Head, at: number): void;
}

export function localHeadCell(): HeadCell {
  let held: { head: Head; at: number } | undefined;
  return {
    get: () => held,
    offer(head, at) {
      if (!held || head.height >= held.head.height) held = { head, at };
    },
  };
}

/** Memory for `sharedHeadCell`, made once by the thread that starts the others. */
export function headMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(SEQ_BYTES + FIELDS * Float64Array.BYTES_PER_ELEMENT);
}

const SEQ_BYTES = 8;
const FIELDS = 5; // height, txCount, writing (0/1), at, kept (0: nothing kept yet)
const [HEIGHT, TX_COUNT, WRITING, AT, KEPT] = [0, 1, 2, 3, 4];

/**
 * A cell in `memory` (from `headMemory`), read and written by several threads. A sequence lock: the
 * writer makes the sequence odd, writes, and makes it even again; a reader retries while it reads
 * an odd sequence or one that changed under it. Writes are one per head read, so nobody spins long.
 */
export function sharedHeadCell(memory: SharedArrayBuffer): HeadCell {
  const seq = new Int32Array(memory, 0, 1);
  const fields = new Float64Array(memory, SEQ_BYTES, FIELDS);
  return {
    get() {
      for (;;) {
        const before = Atomics.load(seq, 0);
        if ((before & 1) === 1) continue;
        const height = fields[HEIGHT]!;
        const txCount = fields[TX_COUNT]!;
        const writing = fields[WRITING] === 1;
        const at = fields[AT]!;
        const kept = fields[KEPT] === 1;
        if (Atomics.load(seq, 0) !== before) continue;
        return kept ? { head: { height, txCount, writing }, at } : undefined;
      }
    },
    offer(head, at) {
      let before: number;
      do before = Atomics.load(seq, 0);
      while ((before & 1) === 1 || Atomics.compareExchange(seq, 0, before, before + 1) !== before);
      if (fields[KEPT] === 0 || head.height >= fields[HEIGHT]!) {
        fields[HEIGHT] = head.height;
        fields[TX_COUNT] = head.txCount;
        fields[WRITING] = head.writing ? 1 : 0;
        fields[AT] = at;
        fields[KEPT] = 1;
      }
      Atomics.store(seq, 0, before + 2);
    },
  };
}
