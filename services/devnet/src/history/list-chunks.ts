import { randomUUID } from 'node:crypto';
import type { RawEntry } from '@mtc/domain';

/**
 * Long balance lists, stored once per change instead of once per transaction.
 *
 * Every wallet entry the node serves carries the wallet's whole balance list, and a list only
 * grows: one entry per (token, unlockdate), expired locks included (families/mrc010/balance.ts). The
 * wallets most transactions touch hold thousands of entries after a few hundred thousand
 * transactions, so a transaction's JSON grows with the history (≈ 20 KB at 100k transactions,
 * ≈ 270 KB at 500k) and storing each as text would take hundreds of GB. Between two snapshots of
 * one wallet only a few entries change, so a list of `MIN_CHUNKED` entries or more is cut into
 * chunks, each written once to the chunk log and referenced by number; a snapshot rewrites only the
 * chunks whose entries changed.
 *
 * Chunk boundaries follow the entries' (token, unlockdate), which identify an entry within its list
 * and never change, rather than positions: an entry removed or added moves no boundary but its own
 * chunk's. A chunk is reused when the same key's previous snapshot had one starting at the same
 * entry with equal entries (same keys in the same order, same values), so its stored text is
 * exactly what JSON.stringify would write now.
 */
export interface ListChunker {
  /**
   * Cuts `list` (a snapshot of `key`'s list) into chunks and returns their numbers, writing the new
   * ones; null, writing nothing, when the list is not one of objects.
   */
  chunks(key: string, list: readonly unknown[]): number[] | null;
}

/** Shorter lists stay inline. */
export const MIN_CHUNKED = 32;
/** On average one entry in 16 ends a chunk… */
const BOUNDARY_MASK = 15;
/** …and no chunk is longer than this. */
const MAX_CHUNK = 64;

/** list[start, end) of a snapshot (the list is the record's own, never changed), stored as `ordinal`. */
interface Chunk {
  readonly list: readonly object[];
  readonly start: number;
  readonly end: number;
  readonly ordinal: number;
}

/** `write` stores a chunk's JSON (an array) and returns its number. */
export function createListChunker(write: (json: string) => number): ListChunker {
  /** Per key, the chunks of its last snapshot, by entryHash of their first entry. */
  const previous = new Map<string, Map<number, Chunk>>();
  return {
    chunks(key, entries) {
      if (!entries.every(isFlatObject)) return null;
      const before = previous.get(key);
      const now = new Map<number, Chunk>();
      const out: number[] = [];
      let start = 0;
      for (let i = 0; i < entries.length; i++) {
        const end = i + 1;
        if (end < entries.length && end - start < MAX_CHUNK && (entryHash(entries[i]!) & BOUNDARY_MASK) !== 0) continue;
        const first = entryHash(entries[start]!);
        const old = before?.get(first);
        const ordinal =
          old && sameEntries(old, entries, start, end) ? old.ordinal : write(JSON.stringify(entries.slice(start, end)));
        now.set(first, { list: entries, start, end, ordinal });
        out.push(ordinal);
        start = end;
      }
      previous.set(key, now);
      return out;
    },
  };
}

/**
 * A hash of what an entry is within its list, its (token, unlockdate): unique within a list, and
 * the same in every snapshot whatever the entry's amounts.
 */
function entryHash(entry: object): number {
  const { token, unlockdate } = entry as { token?: unknown; unlockdate?: unknown };
  let h = Math.imul(Number(token) | 0, 0x9e3779b1) ^ Math.imul(Number(unlockdate) | 0, 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

function isFlatObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `chunk` holds entries equal to list[start, end). */
function sameEntries(chunk: Chunk, list: readonly object[], start: number, end: number): boolean {
  if (chunk.end - chunk.start !== end - start) return false;
  for (let i = 0; i < end - start; i++) if (!sameFlat(chunk.list[chunk.start + i]!, list[start + i]!)) return false;
  return true;
}

/** Same keys in the same order with identical values: the two serialize alike. */
function sameFlat(a: object, b: object): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k !== other[i] || (a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  }
  return true;
}

/**
 * A transaction's entries as stored: their JSON with each chunked balance list left empty (`[]`),
 * and `refs`, one `[offset, ...chunk numbers]` per such list, offset being where its entries go
 * back in (just inside the brackets); '' when nothing was chunked.
 */
export interface EncodedEntries {
  readonly json: string;
  readonly refs: string;
}

/** Stands in for a chunked list while the entries are stringified; no chain data can contain it. */
const MARK = JSON.stringify(`\u0001chunked ${randomUUID()}\u0001`);
const MARK_VALUE = JSON.parse(MARK) as string;

export function encodeEntries(entries: readonly RawEntry[], chunker: ListChunker): EncodedEntries {
  const chunked: number[][] = [];
  const marked = entries.map((entry) => {
    const list = entry.values?.balance;
    if (entry.datakey === undefined || !Array.isArray(list) || list.length < MIN_CHUNKED) return entry;
    const ordinals = chunker.chunks(entry.datakey, list);
    if (!ordinals) return entry;
    chunked.push(ordinals);
    return { ...entry, values: { ...entry.values, balance: MARK_VALUE } };
  });
  const text = JSON.stringify(marked);
  if (chunked.length === 0) return { json: text, refs: '' };
  const parts: string[] = [];
  const refs: number[][] = [];
  let from = 0;
  let length = 0;
  for (const ordinals of chunked) {
    const at = text.indexOf(MARK, from);
    const before = text.slice(from, at);
    parts.push(before, '[]');
    length += before.length + 2;
    refs.push([length - 1, ...ordinals]);
    from = at + MARK.length;
  }
  parts.push(text.slice(from));
  return { json: parts.join(''), refs: JSON.stringify(refs) };
}

/** The entries' JSON as JSON.stringify wrote it before encoding; `chunk` reads a chunk's JSON. */
export function decodeEntries({ json, refs }: EncodedEntries, chunk: (ordinal: number) => string): string {
  if (refs === '') return json;
  const parts: string[] = [];
  let from = 0;
  for (const [offset, ...ordinals] of JSON.parse(refs) as number[][]) {
    parts.push(json.slice(from, offset));
    parts.push(ordinals.map((ordinal) => chunk(ordinal).slice(1, -1)).join(','));
    from = offset!;
  }
  parts.push(json.slice(from));
  return parts.join('');
}
