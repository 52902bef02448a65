import type {
  Collection,
  CollectionSpec,
  AnyDoc,
  Doc,
  Filter,
  FindOptions,
  IndexSpec,
  ReadStore,
  Scalar,
  Write,
} from '@mtc/ports';
import { assertIdentifier, openSqlite, type SqliteDb, type SqliteOptions, type SQLInputValue } from './sqlite-db.ts';
import { countQuery, fieldValueSql, findQuery, TABLE_PREFIX, tableFor } from './sqlite-query.ts';

/**
 * ReadStore on SQLite (`node:sqlite`): one table `rs_<collection>(_id, pos, doc)` per collection,
 * the document as JSON text, `pos` copied into its own column so that guarded writes compare it
 * in the upsert itself. Query semantics are those of the in-memory reference (see
 * `sqlite-query.ts`); the contract suite holds both to it.
 *
 * All calls are synchronous underneath (node:sqlite blocks the thread for each statement), which
 * suits an embedded store whose queries are index lookups. Another process may open the same file:
 * WAL lets it read while we write, and writers queue on the busy timeout.
 */
export type SqliteReadStoreOptions = SqliteOptions;

export function createSqliteReadStore(options: SqliteReadStoreOptions): ReadStore {
  const db: SqliteDb = openSqlite(options);
  /** Tables known to exist; collections are also created on first use, as in the reference. */
  const known = new Set<string>();

  const ensureTable = (collection: string): string => {
    const table = tableFor(collection);
    if (!known.has(table)) {
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (_id TEXT PRIMARY KEY, pos TEXT, doc TEXT NOT NULL)`);
      known.add(table);
    }
    return table;
  };

  const rows = (sql: string, params: SQLInputValue[]): string[] =>
    db
      .statement(sql)
      .all(...params)
      .map((r) => r['doc'] as string);

  const collection = <T extends Doc = AnyDoc>(name: string): Collection<T> => ({
    get: async (id) => {
      const row = db.statement(`SELECT doc FROM ${ensureTable(name)} WHERE _id = ?`).get(id);
      return row ? (JSON.parse(row['doc'] as string) as T) : null;
    },
    getMany: async (ids) => {
      if (ids.length === 0) return [];
      const sql = `SELECT doc FROM ${ensureTable(name)} WHERE _id IN (SELECT value FROM json_each(?))`;
      return rows(sql, [JSON.stringify(ids)]).map((d) => JSON.parse(d) as T);
    },
    find: async (filter: Filter, opts: FindOptions = {}) => {
      ensureTable(name);
      const q = findQuery(name, filter, opts);
      return rows(q.sql, q.params).map((d) => JSON.parse(d) as T);
    },
    count: async (filter: Filter = {}) => {
      ensureTable(name);
      const q = countQuery(name, filter);
      return Number(db.statement(q.sql).get(...q.params)?.['n'] ?? 0);
    },
  });

  const apply = (w: Write): void => {
    const table = ensureTable(w.collection);
    switch (w.op) {
      case 'put':
        db.statement(
          `INSERT INTO ${table} (_id, pos, doc) VALUES (?, ?, ?) ` +
            `ON CONFLICT(_id) DO UPDATE SET pos = excluded.pos, doc = excluded.doc`,
        ).run(w.doc._id, posOf(w.doc), JSON.stringify(w.doc));
        return;
      case 'putIfNewer':
        // A stored document without pos (NULL) is not replaced: `NULL > x` is not true. That is
        // the reference's behaviour (`undefined < pos` is false); see the contract notes.
        db.statement(
          `INSERT INTO ${table} (_id, pos, doc) VALUES (?, ?, ?) ` +
            `ON CONFLICT(_id) DO UPDATE SET pos = excluded.pos, doc = excluded.doc WHERE excluded.pos > ${table}.pos`,
        ).run(w.doc._id, w.doc.pos, JSON.stringify(w.doc));
        return;
      case 'incIfNewer': {
        const incs = Object.entries(w.inc);
        const sets = Object.entries(w.set ?? {});
        // Same field order as the reference: increments, then sets, then pos (which wins).
        const paths = [
          ...incs.map(([f]) => {
            const p = `'$.${assertIdentifier('field', f)}'`;
            return `${p}, coalesce(json_extract(${table}.doc, ${p}), 0) + ?`;
          }),
          ...sets.map(([f]) => `'$.${assertIdentifier('field', f)}', json(?)`),
          `'$.pos', excluded.pos`,
        ];
        const sql =
          `INSERT INTO ${table} (_id, pos, doc) VALUES (?, ?, ?) ` +
          `ON CONFLICT(_id) DO UPDATE SET pos = excluded.pos, doc = json_set(${table}.doc, ${paths.join(', ')}) ` +
          `WHERE ${table}.pos IS NULL OR excluded.pos > ${table}.pos`;
        const fresh: AnyDoc = { _id: w.id };
        for (const [f, by] of incs) fresh[f] = ((fresh[f] as number | undefined) ?? 0) + by;
        Object.assign(fresh, w.set ?? {}, { pos: w.pos });
        db.statement(sql).run(
          w.id,
          w.pos,
          JSON.stringify(fresh),
          ...incs.map(([, by]) => sqlNumber(by)),
          ...sets.map(([, v]) => JSON.stringify(v satisfies Scalar)),
        );
        return;
      }
      case 'delete':
        db.statement(`DELETE FROM ${table} WHERE _id = ?`).run(w.id);
        return;
    }
  };

  return {
    // Each write call is one transaction, and a reader's statement sees only committed ones (WAL).
    atomicWrites: true,
    async ensureCollections(specs: readonly CollectionSpec[]) {
      try {
        db.transaction(() => {
          for (const spec of specs) {
            const table = ensureTable(spec.name);
            for (const index of spec.indexes) db.exec(indexSql(spec.name, table, index));
          }
        });
      } catch (error) {
        known.clear(); // the rollback may have undone tables we noted as created
        throw error;
      }
    },
    collection,
    async write(writes: readonly Write[]) {
      if (writes.length === 0) return;
      // One transaction per call: one fsync for the batch, and a failure leaves nothing half done.
      try {
        db.transaction(() => {
          for (const w of writes) apply(w);
        });
      } catch (error) {
        known.clear();
        throw error;
      }
    },
    async drop() {
      db.transaction(() => {
        const tables = db
          .statement(`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?`)
          .all(TABLE_PREFIX.length, TABLE_PREFIX)
          .map((r) => assertIdentifier('table', r['name'] as string));
        for (const t of tables) db.exec(`DROP TABLE IF EXISTS ${t}`);
      });
      known.clear();
    },
    async close() {
      db.close();
    },
  };
}

/** `pos` of an unguarded document, kept so that later guarded writes compare against it. */
function posOf(doc: AnyDoc): string | null {
  return typeof doc['pos'] === 'string' ? doc['pos'] : null;
}

/** Integers go in as SQLite integers, so that sums stay integers in the stored JSON. */
function sqlNumber(n: number): number | bigint {
  return Number.isSafeInteger(n) ? BigInt(n) : n;
}

/**
 * An expression index per IndexSpec, on exactly the expression the queries use. Its name is derived
 * from its definition, so a changed spec creates a new index next to the old one.
 */
function indexSql(collection: string, table: string, index: IndexSpec): string {
  const parts = index.fields.map(([f, dir]) => `${f}_${dir === -1 ? 'desc' : 'asc'}`);
  const name = assertIdentifier('index', `ix_${collection}__${parts.join('__')}${index.unique ? '__unique' : ''}`);
  const columns = index.fields.map(([f, dir]) => `${fieldValueSql(f)}${dir === -1 ? ' DESC' : ''}`).join(', ');
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${table} (${columns})`;
}
