import type { Condition, AnyDoc, Filter, Scalar, SortSpec } from '@mtc/ports';

/** Reference semantics of the ReadStore query subset, shared by the in-memory store and tests. */
export function matches(doc: AnyDoc, filter: Filter): boolean {
  return Object.entries(filter).every(([field, cond]) => cond === undefined || test(doc[field], cond));
}

function test(value: unknown, cond: Condition): boolean {
  if (cond === null || typeof cond !== 'object') return value === cond || (cond === null && value === undefined);
  // `$in` is a set of equalities, so `null` in the list also matches a missing field (as in MongoDB).
  if (cond.$in && !cond.$in.some((c) => c === value || (c === null && value === undefined))) return false;
  if (cond.$gt !== undefined && !(comparable(value, cond.$gt) && compare(value as Scalar, cond.$gt) > 0)) return false;
  if (cond.$gte !== undefined && !(comparable(value, cond.$gte) && compare(value as Scalar, cond.$gte) >= 0))
    return false;
  if (cond.$lt !== undefined && !(comparable(value, cond.$lt) && compare(value as Scalar, cond.$lt) < 0)) return false;
  if (cond.$lte !== undefined && !(comparable(value, cond.$lte) && compare(value as Scalar, cond.$lte) <= 0))
    return false;
  return true;
}

/** Like MongoDB, range operators only match values of the same type as the bound. */
function comparable(value: unknown, bound: Scalar): boolean {
  return value !== undefined && value !== null && typeof value === typeof bound;
}

export function compare(a: Scalar | undefined, b: Scalar | undefined): number {
  if (a === b) return 0;
  // null and a missing field are the same value to sorts and ranges, as in MongoDB.
  if ((a === undefined || a === null) && (b === undefined || b === null)) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Strings order by Unicode code point, which is the byte order of their UTF-8 form: what SQLite
 * (BINARY collation) and MongoDB (simple collation) do. JavaScript's `<` compares UTF-16 code
 * units instead, which puts astral characters (emoji) before U+E000..U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates (U+D800..U+DFFF) above U+E000..U+FFFF, keeping each group's own order. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

export function sortDocs<T extends AnyDoc>(docs: T[], sort: SortSpec | undefined): T[] {
  const keys: SortSpec = sort && sort.length > 0 ? sort : [['_id', 1]];
  return docs.sort((x, y) => {
    for (const [field, dir] of keys) {
      const c = compare(x[field] as Scalar, y[field] as Scalar);
      if (c !== 0) return c * dir;
    }
    return 0;
  });
}
