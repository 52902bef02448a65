import type { Collection, Write } from '@mtc/ports';
import { defineModel, type ModelSpec } from '../model.ts';

/**
 * An ordered series: per key (an address, a token), rows numbered 1, 2, 3 … in chain order at
 * projection time, and a counter holding the last number. A page of the newest rows is then one
 * range query on (key, n), whatever the page number, and the total is the counter: nothing is
 * counted or skipped per request.
 *
 * Rows are written before their counters, each durable before the next: a counter that passed a
 * position proves that position's row is stored; one that did not yields the same number again on
 * a replay (the row id is the chain position, so the row is overwritten with itself).
 */
export type SeriesRow = {
  /** `<key>:<pos>`. */
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
};

export const seriesCounters = defineModel<SeriesCounterDoc>('series_counters');

export const counterId = (series: string, key: string): string => `${series}:${key}`;

/** A series' rows, indexed for newest-first pages by key. */
export function defineSeries<R extends SeriesRow>(name: string): ModelSpec<R> {
  return defineModel<R>(name, [
    {
      fields: [
        ['key', 1],
        ['n', 1],
      ] as never,
      unique: true,
    },
  ]);
}

/** A row to append, without its number. Items come in chain order. */
export interface Appended<R extends SeriesRow> {
  key: string;
  pos: string;
  row: Omit<R, keyof SeriesRow>;
}

export function projectSeries<R extends SeriesRow>(
  series: ModelSpec<R>,
  items: readonly Appended<R>[],
  stored: ReadonlyMap<string, SeriesCounterDoc>,
): { rows: Write[]; counters: Write[] } {
  const next = new Map<string, { n: number; pos: string }>();
  const rows: Write[] = [];
  for (const item of items) {
    const id = counterId(series.name, item.key);
    const had = stored.get(id);
    if (had && had.pos >= item.pos) continue;
    const c = next.get(id) ?? { n: had?.n ?? 0, pos: had?.pos ?? '' };
    c.n += 1;
    c.pos = item.pos;
    next.set(id, c);
    const doc = { ...item.row, _id: `${item.key}:${item.pos}`, key: item.key, n: c.n, pos: item.pos };
    rows.push({ op: 'put', collection: series.name, doc });
  }
  const counters: Write[] = [...next].map(([id, c]) => ({
    op: 'putIfNewer',
    collection: seriesCounters.name,
    doc: { _id: id, n: c.n, pos: c.pos } satisfies SeriesCounterDoc,
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

/** Page `page` (1-based) of a key's rows, newest first, out of `total`. */
export function seriesPage<R extends SeriesRow>(
  rows: Collection<R>,
  key: string,
  total: number,
  page: number,
  limit: number,
): Promise<R[]> {
  const to = total - (page - 1) * limit;
  if (to <= 0) return Promise.resolve([]);
  const from = Math.max(0, to - limit);
  return (rows as unknown as Collection<SeriesRow>)
    .find({ key, n: { $gt: from, $lte: to } }, { sort: [['n', -1]], limit })
    .then((r) => r as R[]);
}
