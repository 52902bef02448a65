import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AnyDoc, Filter, FindOptions, ReadStore, Scalar, SortSpec } from '@mtc/ports';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeReadStoreContract } from '../contract/index.ts';
import { createMemoryReadStore } from '../memory/memory-store.ts';
import { createSqliteCounters } from './sqlite-counters.ts';
import { findQuery } from './sqlite-query.ts';
import { createSqliteReadStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'mtc-sqlite-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshPath = (): string => join(dir, `store-${++files}.sqlite`);

describeReadStoreContract('sqlite (file)', async () => createSqliteReadStore({ path: freshPath() }));
describeReadStoreContract('sqlite (:memory:)', async () => createSqliteReadStore({ path: ':memory:' }));

describe('createSqliteReadStore', () => {
  const stores: ReadStore[] = [];
  const open = (path: string): ReadStore => {
    const s = createSqliteReadStore({ path });
    stores.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  const BLOCKS = {
    name: 'blocks',
    indexes: [{ fields: [['height', 1]] as SortSpec, unique: true }, { fields: [['hash', 1]] as SortSpec }],
  };

  it('answers a height range with a descending sort from the index, without sorting', async () => {
    const path = freshPath();
    const store = open(path);
    await store.ensureCollections([BLOCKS]);
    await store.write(
      Array.from({ length: 200 }, (_, h) => ({
        op: 'put' as const,
        collection: 'blocks',
        doc: { _id: String(h), height: h, hash: `h${h}` },
      })),
    );
    const filter: Filter = { height: { $gte: 50, $lt: 150 } };
    const options: FindOptions = { sort: [['height', -1]], limit: 20 };
    const found = await store.collection('blocks').find(filter, options);
    expect(found.map((d) => d['height'])).toEqual(Array.from({ length: 20 }, (_, i) => 149 - i));

    const q = findQuery('blocks', filter, options);
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
        .all(...q.params)
        .map((r) => String(r['detail']));
      expect(plan.join('\n')).toMatch(
        /SEARCH rs_blocks USING INDEX ix_blocks__height_asc__unique \(<expr>>\? AND <expr><\?\)/,
      );
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    } finally {
      db.close();
    }
  });

  it('enforces unique indexes, and a failed write call leaves nothing applied', async () => {
    const store = open(freshPath());
    await store.ensureCollections([BLOCKS]);
    await store.write([{ op: 'put', collection: 'blocks', doc: { _id: '1', height: 1, hash: 'a' } }]);
    await expect(
      store.write([
        { op: 'put', collection: 'blocks', doc: { _id: '2', height: 2, hash: 'b' } },
        { op: 'incIfNewer', collection: 'daily', id: 'd', pos: '1', inc: { n: 1 } },
        { op: 'put', collection: 'blocks', doc: { _id: '3', height: 1, hash: 'c' } },
      ]),
    ).rejects.toThrow(/UNIQUE/);
    expect(await store.collection('blocks').count()).toBe(1);
    expect(await store.collection('daily').get('d')).toBeNull();
    // The store is still usable after the rollback.
    await store.write([{ op: 'put', collection: 'blocks', doc: { _id: '2', height: 2, hash: 'b' } }]);
    expect(await store.collection('blocks').count()).toBe(2);
  });

  it('keeps documents across a reopen of the file', async () => {
    const path = freshPath();
    const first = open(path);
    await first.ensureCollections([BLOCKS]);
    await first.write([
      { op: 'put', collection: 'blocks', doc: { _id: '7', height: 7, hash: 'x' } },
      { op: 'incIfNewer', collection: 'daily', id: 'd', pos: '0002', inc: { n: 2 } },
    ]);
    await first.close();
    const second = open(path);
    await second.ensureCollections([BLOCKS]);
    expect(await second.collection('blocks').find({ height: 7 })).toEqual([{ _id: '7', height: 7, hash: 'x' }]);
    await second.write([{ op: 'incIfNewer', collection: 'daily', id: 'd', pos: '0002', inc: { n: 2 } }]);
    expect(await second.collection('daily').get('d')).toEqual({ _id: 'd', n: 2, pos: '0002' });
  });

  it('sees writes made through another connection to the same file', async () => {
    const path = freshPath();
    const writer = open(path);
    const reader = open(path);
    await writer.write([{ op: 'put', collection: 'blocks', doc: { _id: '1', height: 1 } }]);
    expect(await reader.collection('blocks').get('1')).toEqual({ _id: '1', height: 1 });
  });

  it('shares a file with the counters, and drop() leaves their tables alone', async () => {
    const path = freshPath();
    const store = open(path);
    const counters = createSqliteCounters({ path });
    try {
      await store.ensureCollections([BLOCKS]);
      await counters.addBlockTxs([{ height: 1, timestamp: 120, count: 3 }]);
      await store.write([{ op: 'put', collection: 'blocks', doc: { _id: '1', height: 1 } }]);
      await store.drop();
      expect(await store.collection('blocks').count()).toBe(0);
      expect(await counters.txCountBetween(0, 600)).toBe(3);
    } finally {
      await counters.close();
    }
  });

  it('rejects collection and field names that are not plain identifiers', async () => {
    const store = open(':memory:');
    await expect(store.ensureCollections([{ name: 'x; DROP TABLE y', indexes: [] }])).rejects.toThrow(
      /invalid collection name/,
    );
    await expect(store.collection('a-b').get('1')).rejects.toThrow(/invalid collection name/);
    await expect(store.collection('ok').find({ "a') OR 1=1 --": 1 })).rejects.toThrow(/invalid field name/);
    await expect(store.collection('ok').find({}, { sort: [['a.b', 1]] })).rejects.toThrow(/invalid field name/);
    await expect(
      store.write([{ op: 'incIfNewer', collection: 'ok', id: '1', pos: '1', inc: { 'a.b': 1 } }]),
    ).rejects.toThrow(/invalid field name/);
  });

  it('rejects an unknown filter operator instead of ignoring it', async () => {
    const store = open(':memory:');
    await expect(store.collection('ok').find({ n: { $ne: 1 } as unknown as Scalar })).rejects.toThrow(
      /unsupported filter operator/,
    );
  });

  /**
   * The contract pins chosen cases; this compares SQLite with the reference on many random ones,
   * over values of mixed types (the cases where json_extract alone would go wrong).
   */
  it('answers random filters exactly like the in-memory reference', async () => {
    const sqlite = open(':memory:');
    const memory = createMemoryReadStore();
    const spec = { name: 'r', indexes: [{ fields: [['a', 1]] as SortSpec }] };
    await sqlite.ensureCollections([spec]);
    await memory.ensureCollections([spec]);

    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const pool: readonly (Scalar | undefined)[] = [
      undefined,
      null,
      true,
      false,
      0,
      1,
      -1,
      2.5,
      10,
      '',
      '0',
      '1',
      'a',
      'B',
      'é',
      '😀',
      '\uFFFD',
    ];
    const pick = (): Scalar | undefined => pool[rand(pool.length)];
    const scalar = (): Scalar => pick() ?? null;

    const docs: AnyDoc[] = Array.from({ length: 120 }, (_, i) => {
      const doc: AnyDoc = { _id: `d${String(i).padStart(3, '0')}` };
      for (const f of ['a', 'b']) {
        const v = pick();
        if (v !== undefined) doc[f] = v;
      }
      if (rand(10) === 0) doc['b'] = { nested: true };
      return doc;
    });
    const writes = docs.map((doc) => ({ op: 'put' as const, collection: 'r', doc }));
    await sqlite.write(writes);
    await memory.write(writes);

    const ops = ['$gt', '$gte', '$lt', '$lte'] as const;
    let nonEmpty = 0;
    for (let round = 0; round < 2_000; round++) {
      const filter: Filter = {};
      for (const f of ['a', 'b', '_id']) {
        // Few conditions per filter, so that most answers are not empty.
        const kind = rand(f === '_id' ? 12 : 5);
        if (kind === 0) filter[f] = scalar();
        else if (kind === 1) filter[f] = { $in: Array.from({ length: rand(4) }, scalar) };
        else if (kind === 2) {
          const cond: Record<string, Scalar> = { [ops[rand(4)]!]: scalar() };
          if (rand(2) === 0) cond[ops[rand(4)]!] = scalar();
          filter[f] = cond;
        }
      }
      // Sorted by _id so that ties in mixed-type fields cannot make equal answers look different.
      const options: FindOptions = {
        sort: [['_id', rand(2) === 0 ? 1 : -1]],
        ...(rand(3) === 0 ? { limit: rand(10) } : {}),
      };
      const expected = await memory.collection('r').find(filter, options);
      const actual = await sqlite.collection('r').find(filter, options);
      expect({ filter, ids: actual.map((d) => d._id) }).toEqual({ filter, ids: expected.map((d) => d._id) });
      expect(await sqlite.collection('r').count(filter)).toBe(await memory.collection('r').count(filter));
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(500);
  });
});
