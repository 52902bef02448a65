import type { Collection, Doc, FieldOf, Filter, Scalar, SortSpec } from '@mtc/ports';
import type { RankedSeek } from '@mtc/read-models';
import { z } from 'zod';
import { badRequest } from './errors.ts';

/**
 * Keyset paging of a find ordered by one field, then `_id` (the same way): the page after a row's
 * key or before it, found by two range queries each (rows tied with the key on the field, past its
 * `_id`; then rows past it on the field), so a page deep in the list costs what page 1 does over an
 * index of (filter fields, field, `_id`). The key of a row is `[field value, _id]` as JSON, which
 * `rankedCursors` (cursor.ts) carries in a cursor.
 */
export interface KeysetOrder<T extends Doc> {
  field: FieldOf<T> & string;
  dir: 1 | -1;
}

const Key = z.tuple([z.union([z.string(), z.number()]), z.string()]);

/** The key a row is listed by. */
export function keysetKey<T extends Doc>(order: KeysetOrder<T>, doc: T): string {
  return JSON.stringify([(doc as unknown as Record<string, Scalar>)[order.field], doc._id]);
}

function parseKey(key: string): [string | number, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    throw badRequest('cursor: not a cursor this API gave');
  }
  const key2 = Key.safeParse(parsed);
  if (!key2.success) throw badRequest('cursor: not a cursor this API gave');
  return key2.data;
}

/** Rows past `[value, id]` in direction `dir` (1: above it, −1: below it), nearest first. */
async function past<T extends Doc>(
  coll: Collection<T>,
  filter: Filter<T>,
  field: FieldOf<T> & string,
  dir: 1 | -1,
  [value, id]: [string | number, string],
  limit: number,
): Promise<T[]> {
  if (limit <= 0) return [];
  const beyond = dir === 1 ? '$gt' : '$lt';
  const sort: SortSpec<T> = [
    [field, dir],
    ['_id', dir],
  ];
  const tied = await coll.find({ ...filter, [field]: value, _id: { [beyond]: id } }, { sort, limit });
  if (tied.length >= limit) return tied;
  const rest = await coll.find(
    { ...filter, [field]: { [beyond]: value } },
    {
      sort,
      limit: limit - tied.length,
    },
  );
  return [...tied, ...rest];
}

/** How many rows of the list come before `[value, id]` in `order` (with `inclusive`, or are it). */
async function rowsBefore<T extends Doc>(
  coll: Collection<T>,
  filter: Filter<T>,
  order: KeysetOrder<T>,
  [value, id]: [string | number, string],
  inclusive: boolean,
): Promise<number> {
  const before = order.dir === 1 ? '$lt' : '$gt';
  const tie = inclusive ? (order.dir === 1 ? '$lte' : '$gte') : before;
  const [tied, rest] = await Promise.all([
    coll.count({ ...filter, [order.field]: value, _id: { [tie]: id } }),
    coll.count({ ...filter, [order.field]: { [before]: value } }),
  ]);
  return tied + rest;
}

/**
 * A page of at most `limit` rows of `filter` in `order`, as `seek` places it: at an offset (only
 * for shallow windows: see FindOptions.skip), just after a row's key, or just before it; with the
 * position of its first row. A key need not name a row that is still listed.
 */
export async function keysetPage<T extends Doc>(
  coll: Collection<T>,
  filter: Filter<T>,
  order: KeysetOrder<T>,
  seek: RankedSeek,
  limit: number,
): Promise<{ docs: T[]; start: number }> {
  if ('skip' in seek) {
    const sort: SortSpec<T> = [
      [order.field, order.dir],
      ['_id', order.dir],
    ];
    return { docs: await coll.find(filter, { sort, skip: seek.skip, limit }), start: seek.skip };
  }
  if ('after' in seek) {
    const key = parseKey(seek.after);
    const [docs, start] = await Promise.all([
      past(coll, filter, order.field, order.dir, key, limit),
      rowsBefore(coll, filter, order, key, true),
    ]);
    return { docs, start };
  }
  const key = parseKey(seek.before);
  const [docs, end] = await Promise.all([
    past(coll, filter, order.field, order.dir === 1 ? -1 : 1, key, limit),
    rowsBefore(coll, filter, order, key, false),
  ]);
  return { docs: docs.reverse(), start: end - docs.length };
}
