import type { BlockTxCount, Counters } from '@mtc/ports';
import { openSqlite, type SqliteOptions } from './sqlite-db.ts';

/**
 * Counters on SQLite: per-minute transaction buckets plus the highest counted height, updated in
 * one transaction so that a replayed block is skipped atomically with the increments it would
 * repeat. The tables are named `counter_*`, apart from the read store's `rs_*`, so both may share
 * one file (each through its own connection) or live in separate files.
 */
export type SqliteCountersOptions = SqliteOptions;

export function createSqliteCounters(options: SqliteCountersOptions): Counters {
  const db = openSqlite(options);
  db.exec(
    'CREATE TABLE IF NOT EXISTS counter_minutes (minute INTEGER PRIMARY KEY, count INTEGER NOT NULL);' +
      'CREATE TABLE IF NOT EXISTS counter_height (id INTEGER PRIMARY KEY CHECK (id = 0), height INTEGER NOT NULL);',
  );

  return {
    async addBlockTxs(blocks: readonly BlockTxCount[]) {
      for (const b of blocks) {
        if (
          !Number.isSafeInteger(b.height) ||
          !Number.isFinite(b.timestamp) ||
          !Number.isSafeInteger(b.count) ||
          b.count < 0
        )
          throw new RangeError(`bad block tx count ${JSON.stringify(b)}`);
      }
      if (blocks.length === 0) return;
      db.transaction(() => {
        const row = db.statement('SELECT height FROM counter_height WHERE id = 0').get();
        // Blocks are taken in the order given, each compared with the highest height counted so
        // far, including earlier blocks of this call: a block repeated in one call counts once.
        let top = row ? Number(row['height']) : -Infinity;
        const bump = db.statement(
          'INSERT INTO counter_minutes (minute, count) VALUES (?, ?) ' +
            'ON CONFLICT(minute) DO UPDATE SET count = count + excluded.count',
        );
        for (const b of blocks) {
          if (b.height <= top) continue;
          top = b.height;
          if (b.count > 0) bump.run(Math.floor(b.timestamp / 60), b.count);
        }
        if (top !== -Infinity)
          db.statement(
            'INSERT INTO counter_height (id, height) VALUES (0, ?) ON CONFLICT(id) DO UPDATE SET height = excluded.height',
          ).run(top);
      });
    },
    async highestCounted() {
      const row = db.statement('SELECT height FROM counter_height WHERE id = 0').get();
      return row ? Number(row['height']) : 0;
    },
    async txCountBetween(fromTs: number, toTs: number) {
      const row = db
        .statement('SELECT coalesce(sum(count), 0) AS n FROM counter_minutes WHERE minute >= ? AND minute < ?')
        .get(Math.floor(fromTs / 60), Math.floor(toTs / 60));
      return Number(row?.['n'] ?? 0);
    },
    async close() {
      db.close();
    },
  };
}
