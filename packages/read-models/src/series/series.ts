import type { Collection, Write } from '@mtc/ports';
import { defineModel, type ModelSpec } from '../model.ts';

/**
 * An ordered series: per key (an address, a token), rows numbered 1, 2, 3 … in chain order at
 * projection time, and a counter holding the last number. A row's id is its key and number, so a
 * page of the newest rows is the ids of its numbers, read by key whatever the page number (every
 * MongoDB-compatible store answers a read by `_id` from its index; mongo-java-server answers no
 * range on a compound index from it), and the total is the counter: nothing is counted or skipped
 * per request.
 *
 * Rows are written before their counters, each durable before the next: a counter that passed a
 * position proves that position's row is stored; one that did not yields the same numbers again on
 * a replay for the same positions (numbers follow chain order from the counter), so each row is
 * overwritten with itself.
 */
export type SeriesRow = {
  /** `<key>:<n>` (seriesRowId). */
  _id: string;
  key: string;
  /** 1-based, in chain order within the key. */
  n: number;
  pos: string;
};

export type SeriesCounterDoc = {
  /** `<series>:<key>`. */
  _id: string;
  n: number;
  pos: string;
  /**
   * The key's filed lists (below), in suffix order, `;`-separated, each `<suffix>:<rows>:<references
   * of its partly filled last chunk, ','-separated>` (FiledLists). One string, not a map of arrays:
   * MongoDB stand-ins write a string several times faster. Absent: none.
   */
  filed?: string;
};

/** A key's filed lists as its counter holds them: per suffix, the row count and the last chunk's references. */
export type FiledLists = Map<string, { n: number; tail: number[] }>;

export function parseFiled(filed: string | undefined): FiledLists {
  const lists: FiledLists = new Map();
  if (!filed) return lists;
  for (const list of filed.split(';')) {
    const [suffix, n, tail] = list.split(':') as [string, string, string];
    lists.set(suffix, { n: Number(n), tail: tail === '' ? [] : tail.split(',').map(Number) });
  }
  return lists;
}

export function formatFiled(lists: FiledLists): string {
  return [...lists]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([suffix, { n, tail }]) => `${suffix}:${n}:${tail.join(',')}`)
    .join(';');
}

export const seriesCounters = defineModel<SeriesCounterDoc>('series_counters');

/**
 * Filed lists: a series may file each row of key K also under lists `K|<suffix>` (the activity
 * filters, `filters.ts`), by reference: row m of a filed list is row `refs[m]` of K, so it is
 * numbered, paged and counted like K while its rows are stored once. References are packed
 * REFS_PER_DOC to a document, `<series>:K|<suffix>#<chunk>` holding rows chunk·REFS_PER_DOC + 1 …,
 * written once, when full; K's counter holds each filed list's count and the references of its
 * last, partly filled chunk (`filed`). So filing costs no document of its own until a list fills a chunk,
 * and one counter write keeps K and its filed lists at one position: a replay that finds K's
 * counter short of a row numbers it, and files it, again as before.
 */
export const REFS_PER_DOC = 32;

export type SeriesRefsDoc = {
  /** `<series>:<key>|<suffix>#<chunk>` (refsId). */
  _id: string;
  /** Row numbers in the key, rising. */
  refs: number[];
};

export const seriesRefs = defineModel<SeriesRefsDoc>('series_refs');

export const refsId = (series: string, list: string, chunk: number): string => `${series}:${list}#${chunk}`;

/** The chunk of a filed list that holds its row m. */
export const refsChunk = (m: number): number => Math.floor((m - 1) / REFS_PER_DOC);

/** The suffixes of the lists a row of `key` is filed under, from its fields. */
export type FiledKeys<R extends SeriesRow> = (key: string, row: Omit<R, keyof SeriesRow>) => readonly string[];

export const counterId = (series: string, key: string): string => `${series}:${key}`;

/** Row `n` of `key` (a key may hold ':' — the number after the last one is the row's). */
export const seriesRowId = (key: string, n: number): string => `${key}:${n}`;

/** A series' rows: read by id only (seriesRowId), so no index beyond `_id`. */
export function defineSeries<R extends SeriesRow>(name: string): ModelSpec<R> {
  return defineModel<R>(name);
}

/** A row to append, without its number. Items come in chain order. */
export interface Appended<R extends SeriesRow> {
  key: string;
  pos: string;
  row: Omit<R, keyof SeriesRow>;
}

/** Rows and full chunks of filed references first, counters after (`rows` before `counters`). */
export function projectSeries<R extends SeriesRow>(
  series: ModelSpec<R>,
  items: readonly Appended<R>[],
  stored: ReadonlyMap<string, SeriesCounterDoc>,
  filed?: FiledKeys<R>,
): { rows: Write[]; counters: Write[] } {
  type Next = { n: number; pos: string; filed?: FiledLists };
  const next = new Map<string, Next>();
  const rows: Write[] = [];
  for (const item of items) {
    const id = counterId(series.name, item.key);
    const had = stored.get(id);
    if (had && had.pos >= item.pos) continue;
    let c = next.get(id);
    if (!c) {
      c = { n: had?.n ?? 0, pos: had?.pos ?? '' };
      if (had?.filed) c.filed = parseFiled(had.filed);
      next.set(id, c);
    }
    c.n += 1;
    c.pos = item.pos;
    const doc = { ...item.row, _id: seriesRowId(item.key, c.n), key: item.key, n: c.n, pos: item.pos };
    rows.push({ op: 'put', collection: series.name, doc });
    for (const suffix of filed?.(item.key, item.row) ?? []) {
      const lists = (c.filed ??= new Map() as FiledLists);
      let list = lists.get(suffix);
      if (!list) lists.set(suffix, (list = { n: 0, tail: [] }));
      list.n += 1;
      list.tail.push(c.n);
      if (list.n % REFS_PER_DOC !== 0) continue;
      const _id = refsId(series.name, `${item.key}|${suffix}`, refsChunk(list.n));
      rows.push({ op: 'put', collection: seriesRefs.name, doc: { _id, refs: list.tail } satisfies SeriesRefsDoc });
      list.tail = [];
    }
  }
  const counters: Write[] = [...next].map(([_id, c]) => ({
    op: 'putIfNewer',
    collection: seriesCounters.name,
    doc: {
      _id,
      n: c.n,
      pos: c.pos,
      ...(c.filed && { filed: formatFiled(c.filed) }),
    } satisfies SeriesCounterDoc,
  }));
  return { rows, counters };
}

/** How many rows a key has. */
export async function seriesTotal(
  counters: Collection<SeriesCounterDoc>,
  series: { readonly name: string },
  key: string,
): Promise<number> {
  return (await counters.get(counterId(series.name, key)))?.n ?? 0;
}

/** Rows `from` … `to` of a key (1-based, both included) that are stored, in number order (descending when `newestFirst`). */
export async function seriesRows<R extends SeriesRow>(
  rows: Collection<R>,
  key: string,
  range: { from: number; to: number; newestFirst?: boolean },
): Promise<R[]> {
  const from = Math.max(1, range.from);
  if (range.to < from) return [];
  const ids = Array.from({ length: range.to - from + 1 }, (_, i) => seriesRowId(key, from + i));
  const found = await rows.getMany(ids);
  return found.sort(range.newestFirst ? (a, b) => b.n - a.n : (a, b) => a.n - b.n);
}

/**
 * The highest row number of `key`, at most `below`, whose row is at or before position `at` (0: none),
 * by bisection over the row numbers (positions grow with them): ⌈log2(below + 1)⌉ reads by id.
 */
export async function seriesNumberAt(
  rows: Collection<SeriesRow>,
  key: string,
  below: number,
  at: string,
): Promise<number> {
  let lo = 0;
  let hi = below;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const row = await rows.get(seriesRowId(key, mid));
    // A number past a counter's write is stored before the counter: a row missing here is one the
    // counter read before does not count yet, after `at` as far as this read goes.
    if (row !== null && row.pos <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Row numbers `first` … `last` of a key (both included; none when last < first). */
export interface SeriesWindow {
  first: number;
  last: number;
}

/**
 * The rows of `key` (out of `total`) between positions `after` (excluded) and `upTo` (included),
 * either bound open: two bisections at most, so a range costs the same wherever it lies.
 */
export async function seriesWindow(
  rows: Collection<SeriesRow>,
  key: string,
  total: number,
  range: { after?: string | undefined; upTo?: string | undefined },
): Promise<SeriesWindow> {
  const last = range.upTo === undefined ? total : await seriesNumberAt(rows, key, total, range.upTo);
  const first = range.after === undefined ? 1 : (await seriesNumberAt(rows, key, last, range.after)) + 1;
  return { first, last };
}

/** How many rows a window holds. */
export const windowSize = (w: SeriesWindow): number => Math.max(0, w.last - w.first + 1);

/** Page `page` (1-based) of a key's rows, newest first, out of `total` (or of the rows of `window`). */
export function seriesPage<R extends SeriesRow>(
  rows: Collection<R>,
  key: string,
  total: number,
  page: number,
  limit: number,
  window: SeriesWindow = { first: 1, last: total },
): Promise<R[]> {
  const to = window.last - (page - 1) * limit;
  if (to < window.first) return Promise.resolve([]);
  return seriesRows(rows, key, { from: Math.max(window.first, to - limit + 1), to, newestFirst: true });
}
