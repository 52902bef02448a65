import type { Condition, Filter, FindOptions, Scalar, SortSpec } from '@mtc/ports';
import { assertIdentifier, type SQLInputValue } from './sqlite-db.ts';

/**
 * Translates the ReadStore query subset into SQL over `(_id, pos, doc JSON)` tables, with exactly
 * the semantics of the in-memory reference (`memory/filter.ts`).
 *
 * A field is read with `json_extract(doc, '$.f')`, written identically here and in the index
 * definitions so that SQLite matches the expression indexes. `json_extract` alone loses the JSON
 * type (true reads as 1, an array as its text), so every comparison also checks
 * `json_type(doc, '$.f')`: a number bound matches numbers only, a string bound strings only, as in
 * MongoDB. The type check is a filter on the rows the index range yields; it does not stop the
 * planner from using the index for the range itself.
 */
export interface SqlQuery {
  sql: string;
  params: SQLInputValue[];
}

/** Collection tables carry a prefix, so that other tables may share the file (the counters). */
export const TABLE_PREFIX = 'rs_';

export function tableFor(collection: string): string {
  return TABLE_PREFIX + assertIdentifier('collection', collection);
}

interface FieldSql {
  /** The value as SQL sees it: the `_id` column, or the extracted JSON value. */
  value: string;
  /** The JSON type as `json_type` names it: integer, real, text, true, false, null, object, array. */
  type: string;
  /** `_id` is always a string; its column has TEXT affinity, which would coerce numeric operands. */
  isId: boolean;
}

export function fieldValueSql(field: string): string {
  return field === '_id' ? '_id' : `json_extract(doc, '$.${assertIdentifier('field', field)}')`;
}

function fieldSql(field: string): FieldSql {
  if (field === '_id') return { value: '_id', type: "'text'", isId: true };
  const name = assertIdentifier('field', field);
  return { value: fieldValueSql(name), type: `json_type(doc, '$.${name}')`, isId: false };
}

const TYPES_OF = {
  number: "('integer', 'real')",
  string: "('text')",
  boolean: "('true', 'false')",
} as const;

const FALSE = '0';

type Params = SQLInputValue[];

function equals(f: FieldSql, v: Scalar, params: Params): string {
  if (v === null) return `${f.value} IS NULL`; // JSON null and a missing field alike
  if (typeof v === 'boolean') return `${f.type} = '${v ? 'true' : 'false'}'`;
  if (f.isId && typeof v !== 'string') return FALSE;
  params.push(v);
  return `(${f.value} = ? AND ${f.type} IN ${TYPES_OF[typeof v as 'number' | 'string']})`;
}

const OPERATORS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
type RangeOp = keyof typeof OPERATORS;

function range(f: FieldSql, op: RangeOp, bound: Scalar, params: Params): string {
  // The reference treats null as the type of objects and arrays, and orders null below them.
  if (bound === null) return op === '$gt' || op === '$gte' ? `${f.type} IN ('object', 'array')` : FALSE;
  if (f.isId && typeof bound !== 'string') return FALSE;
  params.push(typeof bound === 'boolean' ? (bound ? 1 : 0) : bound); // json_extract reads true/false as 1/0
  return `(${f.value} ${OPERATORS[op]} ? AND ${f.type} IN ${TYPES_OF[typeof bound as 'number' | 'string' | 'boolean']})`;
}

function oneOf(f: FieldSql, values: readonly Scalar[], params: Params): string {
  const usable = values.filter((v) => typeof v === 'string' || (typeof v === 'number' && !f.isId));
  const parts: string[] = [];
  if (usable.length > 0) {
    // One statement shape whatever the list length: the list travels as one JSON parameter.
    params.push(JSON.stringify(usable));
    parts.push(`(${f.value} IN (SELECT value FROM json_each(?)) AND ${f.type} IN ('integer', 'real', 'text'))`);
  }
  const bools = [...new Set(values.filter((v) => typeof v === 'boolean'))];
  if (bools.length > 0) parts.push(`${f.type} IN (${bools.map((b) => `'${b ? 'true' : 'false'}'`).join(', ')})`);
  if (values.includes(null)) parts.push(`${f.value} IS NULL`);
  if (parts.length === 0) return FALSE;
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
}

function condition(field: string, cond: Condition, params: Params): string[] {
  const f = fieldSql(field);
  if (cond === null || typeof cond !== 'object') return [equals(f, cond, params)];
  const out: string[] = [];
  for (const [key, arg] of Object.entries(cond)) {
    if (arg === undefined) continue; // as in the reference: an absent operator constrains nothing
    if (key === '$in') out.push(oneOf(f, arg as Scalar[], params));
    else if (key in OPERATORS) out.push(range(f, key as RangeOp, arg as Scalar, params));
    else throw new TypeError(`unsupported filter operator ${key} on ${field}`);
  }
  return out;
}

export function whereSql(filter: Filter, params: Params): string {
  const clauses = Object.entries(filter).flatMap(([field, cond]) =>
    cond === undefined ? [] : condition(field, cond, params),
  );
  return clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
}

/** Without a sort, documents come by `_id`, like the reference. Ties keep no particular order. */
export function orderSql(sort: SortSpec | undefined): string {
  const keys: SortSpec = sort && sort.length > 0 ? sort : [['_id', 1]];
  return ` ORDER BY ${keys.map(([field, dir]) => `${fieldValueSql(field)} ${dir === -1 ? 'DESC' : 'ASC'}`).join(', ')}`;
}

export function findQuery(collection: string, filter: Filter, options: FindOptions = {}): SqlQuery {
  const params: Params = [];
  let sql = `SELECT doc FROM ${tableFor(collection)}${whereSql(filter, params)}${orderSql(options.sort)}`;
  if (options.limit !== undefined || options.skip !== undefined) {
    // SQLite needs a LIMIT to take an OFFSET; -1 is "no limit".
    sql += ' LIMIT ?';
    params.push(options.limit === undefined ? -1 : Math.max(0, Math.trunc(options.limit)));
  }
  if (options.skip !== undefined) {
    sql += ' OFFSET ?';
    params.push(Math.max(0, Math.trunc(options.skip)));
  }
  return { sql, params };
}

export function countQuery(collection: string, filter: Filter): SqlQuery {
  const params: Params = [];
  return { sql: `SELECT count(*) AS n FROM ${tableFor(collection)}${whereSql(filter, params)}`, params };
}
