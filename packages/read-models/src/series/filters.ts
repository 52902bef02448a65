/**
 * Filtered activity lists: a row of key K is filed, at projection time, also under one key per
 * combination of its filter values — `K|t=5`, `K|d=out`, `K|t=5|d=out|k=buy` … — as a reference to
 * its number in K (`series.ts`, filed keys), so a filtered list is numbered like the whole one: a page is one
 * range of numbers, its total a counter, and page 10,000 costs what page 1 does. A row with several
 * values of a dimension (a transfer to oneself is both in and out) is filed under each; a row with
 * none (a creation that neither sends nor receives) under no key that names the dimension.
 *
 * The combinations are 2^d - 1 per row for d dimensions with a value: at most 7 keys for an
 * address's row (token, direction, kind), 1 for a token's (kind).
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

/** What `filter` adds to a key: `t=5|d=out` … ('' when no filter is set). */
export function filterSuffix(filter: ActivityFilter): string {
  const parts: string[] = [];
  for (const [dimension, tag] of DIMENSIONS) {
    const value = filter[dimension];
    if (value !== undefined) parts.push(`${tag}=${value}`);
  }
  return parts.join('|');
}

/** The suffixes of every filtered key a row with `values` is filed under (the base key's excluded). */
export function filterSuffixes(values: FilterValues): string[] {
  let filters: ActivityFilter[] = [{}];
  for (const [dimension] of DIMENSIONS) {
    const options = values[dimension] as readonly (string | number)[];
    filters = filters.flatMap((f) => [f, ...options.map((value) => ({ ...f, [dimension]: value }))]);
  }
  return filters.slice(1).map(filterSuffix);
}
