import type { Appended, SeriesRow } from './series.ts';

/**
 * Filtered activity lists as series of their own. A row of key K is appended, at projection time,
 * also under one key per combination of its filter values — `K|t=5`, `K|d=out`, `K|t=5|d=out|k=buy`
 * … — so a filtered list is numbered like the whole one: a page is one range of numbers, its total
 * a counter, and page 10,000 costs what page 1 does. A row with several values of a dimension (a
 * transfer to oneself is both in and out) is filed under each; a row with none (a creation that
 * neither sends nor receives) under no key that names the dimension.
 *
 * The combinations are 2^d per row for d dimensions with a value: at most 8 keys for an address's
 * row (token, direction, kind), 2 for a token's (kind).
 */
export type Direction = 'in' | 'out';

export interface ActivityFilter {
  token?: number | undefined;
  direction?: Direction | undefined;
  kind?: string | undefined;
}

/** A row's values in each dimension (empty: the row is under no key naming that dimension). */
export interface FilterValues {
  token: readonly number[];
  direction: readonly Direction[];
  kind: readonly string[];
}

const DIMENSIONS = [
  ['token', 't'],
  ['direction', 'd'],
  ['kind', 'k'],
] as const;

/** The series key of `base` filtered by `filter` (the base itself when no filter is set). */
export function filterKey(base: string, filter: ActivityFilter): string {
  let key = base;
  for (const [dimension, tag] of DIMENSIONS) {
    const value = filter[dimension];
    if (value !== undefined) key += `|${tag}=${value}`;
  }
  return key;
}

/** Every filtered key a row with `values` is filed under, the base key excluded. */
export function filterKeys(base: string, values: FilterValues): string[] {
  let filters: ActivityFilter[] = [{}];
  for (const [dimension] of DIMENSIONS) {
    const options = values[dimension] as readonly (string | number)[];
    filters = filters.flatMap((f) => [f, ...options.map((value) => ({ ...f, [dimension]: value }))]);
  }
  return filters.slice(1).map((f) => filterKey(base, f));
}

/** `items` with each row also appended under its filtered keys, in the same (chain) order. */
export function withFilterKeys<R extends SeriesRow>(
  items: readonly Appended<R>[],
  valuesOf: (item: Appended<R>) => FilterValues,
): Appended<R>[] {
  const out: Appended<R>[] = [];
  for (const item of items) {
    out.push(item);
    for (const key of filterKeys(item.key, valuesOf(item))) out.push({ ...item, key });
  }
  return out;
}
