import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

/**
 * One `node:sqlite` connection as the embedded adapters use it: WAL, a busy timeout, prepared
 * statements cached by their SQL text, and writes grouped in `BEGIN IMMEDIATE` transactions.
 *
 * Durability: `synchronous=FULL` by default, so a commit that was reported survives a power cut
 * too. The port promises that: the log's consumer position (fsynced) moves right after a write,
 * and a commit lost behind it would leave a gap in the read models that nothing fills. Commits
 * are per batch, so the one fsync each costs little. `NORMAL` (fsync at checkpoints only) is there
 * for scratch databases.
 */
export interface SqliteOptions {
  /** A file path, or ':memory:' for a private in-memory database. */
  path: string;
  synchronous?: 'NORMAL' | 'FULL';
  busyTimeoutMs?: number;
}

export interface SqliteDb {
  /** A prepared statement for `sql`, reused while it stays among the most recent ones. */
  statement(sql: string): StatementSync;
  exec(sql: string): void;
  /** Runs `fn` in one write transaction; rolls back and rethrows if it throws. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export type { SQLInputValue };

/** Enough for every query shape a store issues; a bound keeps odd callers from growing it. */
const STATEMENT_CACHE_SIZE = 256;

export function openSqlite(options: SqliteOptions): SqliteDb {
  const db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5_000 });
  try {
    db.exec('PRAGMA journal_mode = WAL'); // answers 'memory' for ':memory:', which is fine
    db.exec(`PRAGMA synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5_000)}`);
  } catch (error) {
    db.close();
    throw asStoreError(error);
  }
  const cache = new Map<string, StatementSync>();

  return {
    statement(sql) {
      let s = cache.get(sql);
      if (s) {
        // Re-insert to mark it most recently used.
        cache.delete(sql);
      } else {
        s = db.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, s);
      return s;
    },
    exec(sql) {
      db.exec(sql);
    },
    transaction(fn) {
      // IMMEDIATE takes the write lock up front, so a concurrent writer (another process) makes us
      // wait busy_timeout at BEGIN instead of failing half-way through with SQLITE_BUSY.
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw asStoreError(error);
      }
      try {
        const result = fn();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw asStoreError(error);
      }
    },
    close() {
      cache.clear();
      if (db.isOpen) db.close();
    },
  };
}

/** SQLite table and index names are interpolated into SQL, so they must be plain identifiers. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function assertIdentifier(kind: string, name: string): string {
  if (!IDENTIFIER.test(name))
    throw new TypeError(`invalid ${kind} name ${JSON.stringify(name)}: use [A-Za-z_][A-Za-z0-9_]*`);
  return name;
}

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** A busy or locked database is worth retrying (another process holds the lock); mark it so. */
export function asStoreError(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number') {
    const primary = error.errcode & 0xff;
    if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) Object.assign(error, { retryable: true });
  }
  return error;
}
