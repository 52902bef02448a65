import { createMemoryReadStore } from '@mtc/adapters';
import { describe, expect, it } from 'vitest';
import { canonicalJson, dumpReadModels } from './dump.ts';
import { CACHE_MODELS, COLLECTIONS, PROJECTION_SPECS, READ_MODELS } from './registry.ts';

/** Hashed through their directories (see dump.ts), not on their own. */
const LAID_OUT = [COLLECTIONS.rankPages];

describe('dumpReadModels', () => {
  it('hashes equal read models equally, whatever order they were written in', async () => {
    const a = createMemoryReadStore();
    const b = createMemoryReadStore();
    const docs = [
      { _id: '2', height: 2, hash: 'y' },
      { _id: '1', hash: 'x', height: 1 },
    ];
    await a.write(docs.map((doc) => ({ op: 'put', collection: COLLECTIONS.blocks, doc })));
    await b.write([...docs].reverse().map((doc) => ({ op: 'put', collection: COLLECTIONS.blocks, doc })));
    expect(await dumpReadModels(a)).toEqual(await dumpReadModels(b));
    expect((await dumpReadModels(a)).counts[COLLECTIONS.blocks]).toBe(2);
  });

  it('tells read models apart that differ in one field', async () => {
    const a = createMemoryReadStore();
    const b = createMemoryReadStore();
    await a.write([{ op: 'put', collection: COLLECTIONS.txs, doc: { _id: 't', seq: 0 } }]);
    await b.write([{ op: 'put', collection: COLLECTIONS.txs, doc: { _id: 't', seq: 1 } }]);
    expect((await dumpReadModels(a)).sha256).not.toBe((await dumpReadModels(b)).sha256);
  });

  it('counts every projection of the registry: a document in any of them changes the hash', async () => {
    const empty = await dumpReadModels(createMemoryReadStore());
    expect(Object.keys(empty.counts).sort()).toEqual(
      Object.values(READ_MODELS)
        .map((m) => m.name)
        .filter((name) => !LAID_OUT.includes(name))
        .sort(),
    );
    for (const { name } of PROJECTION_SPECS.filter((s) => !LAID_OUT.includes(s.name))) {
      const store = createMemoryReadStore();
      await store.write([{ op: 'put', collection: name, doc: { _id: 'x' } }]);
      const dump = await dumpReadModels(store);
      expect(dump.sha256, name).not.toBe(empty.sha256);
      expect(dump.counts[name], name).toBe(1);
    }
  });

  it('hashes a ranked list by its entries in order, however they fall into pages', async () => {
    const laidOut = async (pages: string[][], pos = 'p') => {
      const store = createMemoryReadStore();
      const refs = pages.map((entries, i) => ({ id: `l#${i}`, first: entries[0]!, n: entries.length }));
      await store.write([
        ...pages.map((entries, i) => ({
          op: 'put' as const,
          collection: COLLECTIONS.rankPages,
          doc: { _id: `l#${i}`, entries },
        })),
        {
          op: 'put',
          collection: COLLECTIONS.rankDirs,
          doc: { _id: 'l', pos, next: pages.length, pages: refs, retired: [] },
        },
        // A page no directory names (left by a crash before its deletion) is not part of the list.
        { op: 'put', collection: COLLECTIONS.rankPages, doc: { _id: 'l#99', entries: ['z'] } },
      ]);
      return (await dumpReadModels(store)).sha256;
    };
    const one = await laidOut([['a', 'b', 'c']]);
    expect(await laidOut([['a'], ['b', 'c']])).toBe(one);
    expect(await laidOut([['a'], ['c']])).not.toBe(one);
    expect(await laidOut([['a', 'c', 'b']])).not.toBe(one);
    expect(await laidOut([['a', 'b', 'c']], 'q')).not.toBe(one);
  });

  it('leaves the caches out (the NFT image cache): they depend on the requests served, not on the chain', async () => {
    const store = createMemoryReadStore();
    const before = await dumpReadModels(store);
    await store.write([
      {
        op: 'put',
        collection: COLLECTIONS.nftImages,
        doc: { _id: 'x', url: 'https://img.example/a.png', contentType: 'image/png', bytes: 'iVBORw==', fetchedAt: 1 },
      },
    ]);
    expect(await dumpReadModels(store)).toEqual(before);
    for (const { name } of Object.values(CACHE_MODELS)) expect(before.counts, name).not.toHaveProperty(name);
  });

  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });
});
