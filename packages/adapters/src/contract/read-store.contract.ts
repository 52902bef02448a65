import type { CollectionSpec, AnyDoc, Filter, FindOptions, ReadStore, Write } from '@mtc/ports';
import { afterEach, beforeEach, describe, expect, it as vitestIt } from 'vitest';

/**
 * The ReadStore contract: what every adapter (in-memory, SQLite, MongoDB) must do alike.
 *
 * `make` opens a store on the adapter's test database; each test starts from `drop()` and
 * `ensureCollections`, so one database per test file is enough. The fixtures keep to what the port
 * promises: scalar fields in filters (no arrays, whose matching differs in MongoDB), sorts over
 * values of one type, and sort keys without ties where an order is asserted.
 *
 * Deliberately not pinned here (the adapters differ, and callers must not rely on it): `limit: 0`,
 * unique indexes over documents missing the field, guarded writes onto a document that `put`
 * stored without `pos`, and ties in a sort.
 */
const INDEXED = 'items';
const PLAIN = 'plain';
const TALLIES = 'tallies';
const EXTRA = 'extra';

const SPECS: readonly CollectionSpec[] = [
  {
    name: INDEXED,
    indexes: [
      { fields: [['n', 1]] },
      { fields: [['s', 1]] },
      {
        fields: [
          ['kind', 1],
          ['n', -1],
        ],
      },
      { fields: [['flag', 1]] },
    ],
  },
  { name: PLAIN, indexes: [] },
  { name: TALLIES, indexes: [{ fields: [['day', 1]] }] },
];

/** Mixed types on purpose: equality and ranges must tell 1 from '1' from true. */
const FIXTURE: readonly AnyDoc[] = [
  { _id: 'a', kind: 'x', n: 1, s: 'apple', flag: true },
  { _id: 'b', kind: 'x', n: 2, s: 'banana', flag: false },
  { _id: 'c', kind: 'y', n: 10, s: 'cherry' },
  { _id: 'd', kind: 'y', n: -3.5, s: 'Date', flag: null },
  { _id: 'e', kind: 'z', n: '5', s: 5 },
  { _id: 'f', kind: 'z', n: null, s: null },
  { _id: 'g', kind: 'z' },
  { _id: 'i', kind: 'w', n: true, s: 'true', flag: 1 },
];

/** Positions as the projector writes them: fixed-width, so that string order is chain order. */
const pos = (n: number): string => String(n).padStart(12, '0');

const ids = (docs: readonly AnyDoc[]): string[] => docs.map((d) => d._id);
const sortedIds = (docs: readonly AnyDoc[]): string[] => ids(docs).sort();

export interface ReadStoreContractOptions {
  /**
   * Cases a wire-compatible stand-in is known to fail through a bug of its own (never the
   * adapter's), by test name, with the reason. They run as expected failures: the suite stays
   * green, and turns red once the stand-in is fixed, so the entry can go. The contract itself does
   * not change.
   */
  knownDeviations?: Readonly<Record<string, string>>;
}

export function describeReadStoreContract(
  name: string,
  make: () => Promise<ReadStore>,
  options: ReadStoreContractOptions = {},
): void {
  const deviations = options.knownDeviations ?? {};
  const it = (title: string, test: () => Promise<void>): void => {
    const why = deviations[title];
    if (why === undefined) vitestIt(title, test);
    else vitestIt.fails(`${title} [known deviation of ${name}: ${why}]`, test);
  };

  describe(`ReadStore contract: ${name}`, () => {
    let store: ReadStore;

    beforeEach(async () => {
      store = await make();
      await store.drop();
      await store.ensureCollections(SPECS);
    });

    afterEach(async () => {
      await store.close();
    });

    const put = (collection: string, ...docs: AnyDoc[]): Promise<void> =>
      store.write(docs.map((doc) => ({ op: 'put', collection, doc })));

    describe('put, get and getMany', () => {
      it('returns a stored document by id, and null for an unknown id', async () => {
        await put(INDEXED, { _id: 'a', n: 1, s: 'x' });
        expect(await store.collection(INDEXED).get('a')).toEqual({ _id: 'a', n: 1, s: 'x' });
        expect(await store.collection(INDEXED).get('zz')).toBeNull();
      });

      it('replaces the whole document on a second put', async () => {
        await put(INDEXED, { _id: 'a', n: 1, s: 'x' });
        await put(INDEXED, { _id: 'a', n: 2 });
        expect(await store.collection(INDEXED).get('a')).toEqual({ _id: 'a', n: 2 });
      });

      it('getMany returns the documents that exist, each once', async () => {
        await put(INDEXED, { _id: 'a', n: 1 }, { _id: 'b', n: 2 }, { _id: 'c', n: 3 });
        expect(sortedIds(await store.collection(INDEXED).getMany(['c', 'zz', 'a', 'a']))).toEqual(['a', 'c']);
        expect(await store.collection(INDEXED).getMany([])).toEqual([]);
      });

      it('round-trips nested values, unicode and large numbers unchanged', async () => {
        const doc: AnyDoc = {
          _id: 'nested',
          text: 'line one\nline two\t"quoted" \\ back, 한글, émoji 😀, nul-free',
          big: Number.MAX_SAFE_INTEGER,
          negative: -42,
          fraction: 0.125,
          yes: true,
          no: false,
          nothing: null,
          list: [1, 'two', { three: [3] }, null],
          map: { a: { b: { c: 'deep' } }, empty: {}, none: [] },
        };
        await put(PLAIN, doc);
        expect(await store.collection(PLAIN).get('nested')).toEqual(doc);
      });

      it('hands out copies: changing a returned document changes nothing stored', async () => {
        await put(PLAIN, { _id: 'a', list: [1], map: { k: 'v' } });
        const got = (await store.collection(PLAIN).get('a')) as AnyDoc & {
          list: number[];
          map: Record<string, string>;
        };
        got.list.push(2);
        got.map['k'] = 'changed';
        expect(await store.collection(PLAIN).get('a')).toEqual({ _id: 'a', list: [1], map: { k: 'v' } });
      });

      it('reads a collection that was never written as empty', async () => {
        const c = store.collection(EXTRA);
        expect(await c.get('a')).toBeNull();
        expect(await c.getMany(['a'])).toEqual([]);
        expect(await c.find({})).toEqual([]);
        expect(await c.count()).toBe(0);
      });
    });

    for (const [label, collection] of [
      ['indexed fields', INDEXED],
      ['unindexed fields', PLAIN],
    ] as const) {
      describe(`find and count on ${label}`, () => {
        beforeEach(async () => {
          await put(collection, ...FIXTURE.map((d) => ({ ...d })));
        });
        const find = (filter: Filter, options?: FindOptions): Promise<AnyDoc[]> =>
          store.collection(collection).find(filter, options);
        const findIds = async (filter: Filter, options?: FindOptions): Promise<string[]> =>
          ids(await find(filter, options));

        it('matches equality by type: 1 is not "1" and not true', async () => {
          expect(await findIds({ n: 1 })).toEqual(['a']);
          expect(await findIds({ n: '5' })).toEqual(['e']);
          expect(await findIds({ s: 5 })).toEqual(['e']);
          expect(await findIds({ s: 'true' })).toEqual(['i']);
          expect(await findIds({ n: true })).toEqual(['i']);
          expect(await findIds({ flag: true })).toEqual(['a']);
          expect(await findIds({ flag: false })).toEqual(['b']);
          expect(await findIds({ flag: 1 })).toEqual(['i']);
          expect(await findIds({ s: 'nope' })).toEqual([]);
        });

        it('matches null against null and missing fields, and nothing else', async () => {
          expect(await findIds({ n: null })).toEqual(['f', 'g']);
          expect(await findIds({ flag: null })).toEqual(['c', 'd', 'e', 'f', 'g']);
        });

        it('matches $in against any listed value, by type, with null matching missing', async () => {
          expect(await findIds({ n: { $in: [1, 10, '5'] } })).toEqual(['a', 'c', 'e']);
          expect(await findIds({ s: { $in: ['apple', 'nope'] } })).toEqual(['a']);
          expect(await findIds({ n: { $in: [true] } })).toEqual(['i']);
          expect(await findIds({ n: { $in: [null, 2] } })).toEqual(['b', 'f', 'g']);
          expect(await findIds({ n: { $in: [] } })).toEqual([]);
        });

        it('matches number ranges against numbers only, sorted both ways, with a limit', async () => {
          expect(await findIds({ n: { $gte: 1, $lt: 10 } })).toEqual(['a', 'b']);
          expect(await findIds({ n: { $gt: 1, $lte: 10 } })).toEqual(['b', 'c']);
          expect(await findIds({ n: { $lte: 2 } }, { sort: [['n', 1]] })).toEqual(['d', 'a', 'b']);
          expect(await findIds({ n: { $gt: -4 } }, { sort: [['n', 1]] })).toEqual(['d', 'a', 'b', 'c']);
          expect(await findIds({ n: { $gt: -4 } }, { sort: [['n', -1]] })).toEqual(['c', 'b', 'a', 'd']);
          expect(await findIds({ n: { $gt: -4 } }, { sort: [['n', -1]], limit: 2 })).toEqual(['c', 'b']);
          expect(await findIds({ n: { $gt: -4 } }, { sort: [['n', 1]], limit: 1 })).toEqual(['d']);
        });

        it('matches string ranges against strings only, by byte order, sorted both ways', async () => {
          expect(await findIds({ s: { $gte: 'b', $lt: 'd' } })).toEqual(['b', 'c']);
          // 'Date' sorts before 'apple': upper case letters come first.
          expect(await findIds({ s: { $lt: 'b' } }, { sort: [['s', 1]] })).toEqual(['d', 'a']);
          expect(await findIds({ s: { $gt: 'a' } }, { sort: [['s', -1]] })).toEqual(['i', 'c', 'b', 'a']);
          expect(await findIds({ s: { $gt: 'a' } }, { sort: [['s', -1]], limit: 2 })).toEqual(['i', 'c']);
          expect(await findIds({ n: { $gte: '' } })).toEqual(['e']);
        });

        it('matches boolean ranges against booleans only', async () => {
          expect(await findIds({ flag: { $gt: false } })).toEqual(['a']);
          expect(await findIds({ flag: { $gte: false } }, { sort: [['flag', 1]] })).toEqual(['b', 'a']);
        });

        it('filters and pages on _id', async () => {
          expect(await findIds({ _id: { $gte: 'b', $lt: 'e' } })).toEqual(['b', 'c', 'd']);
          expect(await findIds({ _id: { $in: ['a', 'zz', 'g'] } })).toEqual(['a', 'g']);
          expect(await findIds({ _id: 'c' })).toEqual(['c']);
          expect(await findIds({ _id: { $gt: 'd' } }, { sort: [['_id', -1]], limit: 2 })).toEqual(['i', 'g']);
        });

        it('pages by keyset: the field equal and _id past, then the field past, sorted by both either way', async () => {
          const up = [
            ['kind', 1],
            ['_id', 1],
          ] as const;
          const down = [
            ['kind', -1],
            ['_id', -1],
          ] as const;
          expect(await findIds({ kind: 'y', _id: { $gt: 'c' } }, { sort: up, limit: 5 })).toEqual(['d']);
          expect(await findIds({ kind: { $gt: 'y' } }, { sort: up, limit: 4 })).toEqual(['e', 'f', 'g']);
          expect(await findIds({ kind: 'z', _id: { $lt: 'g' } }, { sort: down, limit: 1 })).toEqual(['f']);
          expect(await findIds({ kind: { $lt: 'y' } }, { sort: down })).toEqual(['b', 'a', 'i']);
          expect(await findIds({ flag: { $in: [true, false] }, kind: 'x', _id: { $gt: 'a' } }, { sort: up })).toEqual([
            'b',
          ]);
          const c = store.collection(collection);
          expect(await c.count({ kind: 'z', _id: { $lte: 'f' } })).toBe(2);
          expect(await c.count({ kind: 'z', _id: { $gte: 'f' } })).toBe(2);
          expect(await c.count({ kind: { $gt: 'w' }, _id: { $lt: 'e' } })).toBe(4);
        });

        it('ANDs the conditions on several fields', async () => {
          expect(await findIds({ kind: 'x', n: { $gt: 1 } })).toEqual(['b']);
          expect(await findIds({ kind: 'z', n: null })).toEqual(['f', 'g']);
          expect(await findIds({ kind: { $in: ['x', 'y'] }, s: { $gte: 'b' } })).toEqual(['b', 'c']);
        });

        it('orders by _id without a sort, and by several keys with one', async () => {
          expect(await findIds({})).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'i']);
          expect(await findIds({}, { limit: 3 })).toEqual(['a', 'b', 'c']);
          const sort = [
            ['kind', 1],
            ['n', -1],
          ] as const;
          expect(await findIds({ n: { $gte: -10 } }, { sort })).toEqual(['b', 'a', 'c', 'd']);
          expect(await findIds({ n: { $gte: -10 } }, { sort, limit: 3 })).toEqual(['b', 'a', 'c']);
        });

        it('skips the first documents of the sorted result, with or without a limit', async () => {
          const sort = [['n', -1]] as const;
          expect(await findIds({ n: { $gt: -4 } }, { sort, skip: 1 })).toEqual(['b', 'a', 'd']);
          expect(await findIds({ n: { $gt: -4 } }, { sort, skip: 1, limit: 2 })).toEqual(['b', 'a']);
          expect(await findIds({ n: { $gt: -4 } }, { sort, skip: 4 })).toEqual([]);
          expect(await findIds({}, { skip: 6, limit: 5 })).toEqual(['g', 'i']);
        });

        it('returns whole documents', async () => {
          expect(await find({ n: 2 })).toEqual([{ _id: 'b', kind: 'x', n: 2, s: 'banana', flag: false }]);
        });

        it('counts the matching documents', async () => {
          const c = store.collection(collection);
          expect(await c.count()).toBe(8);
          expect(await c.count({})).toBe(8);
          expect(await c.count({ kind: 'x' })).toBe(2);
          expect(await c.count({ n: { $gte: 0 } })).toBe(3);
          expect(await c.count({ n: null })).toBe(2);
          expect(await c.count({ s: { $in: [] } })).toBe(0);
        });
      });
    }

    it('sorts null and missing values first ascending and last descending', async () => {
      await put(
        INDEXED,
        { _id: 'p1', n: 3 },
        { _id: 'p2', n: 1 },
        { _id: 'p3', n: null },
        { _id: 'p4' },
        { _id: 'p5', n: 2 },
      );
      const asc = ids(await store.collection(INDEXED).find({}, { sort: [['n', 1]] }));
      expect(asc.slice(0, 2).sort()).toEqual(['p3', 'p4']);
      expect(asc.slice(2)).toEqual(['p2', 'p5', 'p1']);
      const desc = ids(await store.collection(INDEXED).find({}, { sort: [['n', -1]] }));
      expect(desc.slice(0, 3)).toEqual(['p1', 'p5', 'p2']);
      expect(desc.slice(3).sort()).toEqual(['p3', 'p4']);
    });

    it('compares numbers as numbers, never as text', async () => {
      const values = [100, 9, -1, 0.5, 10, Number.MAX_SAFE_INTEGER, -1e9];
      await put(INDEXED, ...values.map((n, i) => ({ _id: `v${i}`, n })));
      const found = await store.collection(INDEXED).find({ n: { $gt: -2 } }, { sort: [['n', 1]] });
      expect(found.map((d) => d['n'])).toEqual([-1, 0.5, 9, 10, 100, Number.MAX_SAFE_INTEGER]);
      expect(await store.collection(INDEXED).count({ n: { $gte: 9, $lte: 100 } })).toBe(3);
    });

    it('compares strings by code point, which is UTF-8 byte order', async () => {
      const values = ['a', '\uFFFD', '😀', 'é', 'Z', 'ab', ''];
      await put(INDEXED, ...values.map((s, i) => ({ _id: `s${i}`, s })));
      const found = await store.collection(INDEXED).find({ s: { $gte: '' } }, { sort: [['s', 1]] });
      expect(found.map((d) => d['s'])).toEqual(['', 'Z', 'a', 'ab', 'é', '\uFFFD', '😀']);
      expect(ids(await store.collection(INDEXED).find({ s: { $gt: '\uFFFD' } }))).toEqual(['s2']);
    });

    describe('putIfNewer', () => {
      const guarded = (p: number, fields: Record<string, unknown>): Write => ({
        op: 'putIfNewer',
        collection: PLAIN,
        doc: { _id: 'w', pos: pos(p), ...fields },
      });
      const get = (): Promise<AnyDoc | null> => store.collection(PLAIN).get('w');

      it('inserts a missing document', async () => {
        await store.write([guarded(2, { v: 1 })]);
        expect(await get()).toEqual({ _id: 'w', pos: pos(2), v: 1 });
      });

      it('ignores an older and an equal position, and applies a newer one whole', async () => {
        await store.write([guarded(2, { v: 1, keep: 'x' })]);
        await store.write([guarded(1, { v: 0 })]);
        expect(await get()).toEqual({ _id: 'w', pos: pos(2), v: 1, keep: 'x' });
        await store.write([guarded(2, { v: 2 })]);
        expect(await get()).toEqual({ _id: 'w', pos: pos(2), v: 1, keep: 'x' });
        await store.write([guarded(3, { v: 3 })]);
        expect(await get()).toEqual({ _id: 'w', pos: pos(3), v: 3 });
      });

      it('keeps the newest of several positions in one call, whatever their order', async () => {
        await store.write([guarded(5, { v: 5 }), guarded(4, { v: 4 }), guarded(6, { v: 6 }), guarded(6, { v: 66 })]);
        expect(await get()).toEqual({ _id: 'w', pos: pos(6), v: 6 });
      });

      it('skips an older position between other writes of one call, and applies those', async () => {
        await store.write([guarded(5, { v: 5 })]);
        await store.write([
          { op: 'put', collection: PLAIN, doc: { _id: 'a', v: 1 } },
          guarded(3, { v: 3 }),
          { op: 'put', collection: PLAIN, doc: { _id: 'b', v: 2 } },
          { op: 'putIfNewer', collection: PLAIN, doc: { _id: 'c', pos: pos(1), v: 1 } },
        ]);
        expect(await store.collection(PLAIN).find({})).toEqual([
          { _id: 'a', v: 1 },
          { _id: 'b', v: 2 },
          { _id: 'c', pos: pos(1), v: 1 },
          { _id: 'w', pos: pos(5), v: 5 },
        ]);
      });
    });

    describe('incIfNewer', () => {
      const inc = (
        p: number,
        incs: Record<string, number>,
        set?: Record<string, string | number | boolean | null>,
      ): Write => ({
        op: 'incIfNewer',
        collection: TALLIES,
        id: 't',
        pos: pos(p),
        inc: incs,
        ...(set ? { set } : {}),
      });
      const get = (): Promise<AnyDoc | null> => store.collection(TALLIES).get('t');

      it('creates a missing document, counting missing fields from 0', async () => {
        await store.write([inc(2, { count: 2, other: 1 }, { day: '2024-01-01' })]);
        expect(await get()).toEqual({ _id: 't', count: 2, other: 1, day: '2024-01-01', pos: pos(2) });
      });

      it('increments for a newer position, and ignores a replayed or older one', async () => {
        await store.write([inc(2, { count: 2 })]);
        await store.write([inc(3, { count: 3, fresh: 1 })]);
        expect(await get()).toEqual({ _id: 't', count: 5, fresh: 1, pos: pos(3) });
        await store.write([inc(3, { count: 3, fresh: 1 })]);
        await store.write([inc(1, { count: 100 })]);
        expect(await get()).toEqual({ _id: 't', count: 5, fresh: 1, pos: pos(3) });
      });

      it('sets fields, null included, along with the increment', async () => {
        await store.write([inc(1, { count: 1 }, { day: 'a', label: 'x' })]);
        await store.write([inc(2, { count: 1 }, { day: 'b', label: null, flag: true })]);
        expect(await get()).toEqual({ _id: 't', count: 2, day: 'b', label: null, flag: true, pos: pos(2) });
      });

      it('applies several increments of one call in order, skipping a replay inside it', async () => {
        await store.write([inc(5, { count: 1 }), inc(6, { count: 1 }), inc(6, { count: 1 }), inc(7, { count: 1 })]);
        expect(await get()).toEqual({ _id: 't', count: 3, pos: pos(7) });
      });

      it('is queryable by its fields like any document', async () => {
        await store.write([inc(1, { count: 4 }, { day: '2024-01-02' })]);
        expect(ids(await store.collection(TALLIES).find({ day: { $gte: '2024-01-01' } }))).toEqual(['t']);
        expect(await store.collection(TALLIES).count({ count: { $gt: 3 } })).toBe(1);
      });
    });

    describe('delete', () => {
      it('removes a document, and deleting a missing one is a no-op', async () => {
        await put(PLAIN, { _id: 'a', v: 1 }, { _id: 'b', v: 2 });
        await store.write([
          { op: 'delete', collection: PLAIN, id: 'a' },
          { op: 'delete', collection: PLAIN, id: 'zz' },
        ]);
        expect(await store.collection(PLAIN).get('a')).toBeNull();
        expect(ids(await store.collection(PLAIN).find({}))).toEqual(['b']);
      });
    });

    describe('write', () => {
      it('applies the writes of one call in order, per document', async () => {
        await store.write([
          { op: 'put', collection: PLAIN, doc: { _id: 'a', v: 1 } },
          { op: 'delete', collection: PLAIN, id: 'a' },
          { op: 'put', collection: PLAIN, doc: { _id: 'a', v: 2 } },
          { op: 'putIfNewer', collection: PLAIN, doc: { _id: 'b', pos: pos(1), v: 1 } },
          { op: 'putIfNewer', collection: PLAIN, doc: { _id: 'b', pos: pos(2), v: 2 } },
          { op: 'delete', collection: PLAIN, id: 'b' },
          { op: 'incIfNewer', collection: TALLIES, id: 'c', pos: pos(1), inc: { n: 1 } },
          { op: 'delete', collection: TALLIES, id: 'c' },
          { op: 'incIfNewer', collection: TALLIES, id: 'c', pos: pos(1), inc: { n: 5 } },
        ]);
        expect(await store.collection(PLAIN).get('a')).toEqual({ _id: 'a', v: 2 });
        expect(await store.collection(PLAIN).get('b')).toBeNull();
        expect(await store.collection(TALLIES).get('c')).toEqual({ _id: 'c', n: 5, pos: pos(1) });
      });

      it('writes to several collections, including one not declared, in one call', async () => {
        await store.write([
          { op: 'put', collection: INDEXED, doc: { _id: 'a', n: 1 } },
          { op: 'put', collection: PLAIN, doc: { _id: 'a', n: 2 } },
          { op: 'put', collection: EXTRA, doc: { _id: 'a', n: 3 } },
        ]);
        expect(await store.collection(INDEXED).get('a')).toEqual({ _id: 'a', n: 1 });
        expect(await store.collection(PLAIN).get('a')).toEqual({ _id: 'a', n: 2 });
        expect(await store.collection(EXTRA).find({ n: 3 })).toEqual([{ _id: 'a', n: 3 }]);
      });

      it('accepts an empty call', async () => {
        await store.write([]);
        expect(await store.collection(PLAIN).count()).toBe(0);
      });
    });

    describe('ensureCollections and drop', () => {
      it('ensureCollections is idempotent and keeps the data', async () => {
        await put(INDEXED, { _id: 'a', n: 1, s: 'x', kind: 'k' });
        await store.ensureCollections(SPECS);
        await store.ensureCollections(SPECS);
        expect(await store.collection(INDEXED).find({ n: { $gte: 1 } }, { sort: [['n', -1]], limit: 5 })).toEqual([
          { _id: 'a', n: 1, s: 'x', kind: 'k' },
        ]);
      });

      it('drop removes every collection, and the store is usable again after ensureCollections', async () => {
        await put(INDEXED, { _id: 'a', n: 1 });
        await put(PLAIN, { _id: 'b' });
        await put(EXTRA, { _id: 'c' });
        await store.drop();
        await store.ensureCollections(SPECS);
        for (const c of [INDEXED, PLAIN, EXTRA]) expect(await store.collection(c).count()).toBe(0);
        await put(INDEXED, { _id: 'a', n: 2 });
        expect(await store.collection(INDEXED).find({ n: 2 })).toEqual([{ _id: 'a', n: 2 }]);
      });
    });
  });
}
