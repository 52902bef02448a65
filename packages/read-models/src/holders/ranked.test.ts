import { createMemoryReadStore } from '@mtc/adapters';
import { amountSortKey } from '@mtc/domain';
import type { ReadStore, Write } from '@mtc/ports';
import { describe, expect, it } from 'vitest';
import { dumpReadModels } from '../dump.ts';
import { COLLECTION_SPECS, openModels } from '../registry.ts';
import {
  projectRanked,
  addressOfKey,
  lockKey,
  rankedFrom,
  rankedEntries,
  rankedRows,
  rankedSlice,
  rankedWindow,
  rankKey,
  rankListsOf,
  rankPagesToRead,
  type RankedSeek,
  type RankedSlice,
  type RankMove,
} from './ranked.ts';

const LIST = 'mrc010:7';
const address = (i: number) => `MT${String(i).padStart(6, '0')}`;
const key = (balance: number, i: number) => rankKey(amountSortKey(BigInt(balance)), address(i));

/** Holdings as a test world: address index → balance; its moves, and the list it must leave. */
class World {
  readonly held = new Map<number, number>();
  private seq = 0;
  set(i: number, balance: number | null): RankMove {
    const before = this.held.get(i);
    if (balance === null) this.held.delete(i);
    else this.held.set(i, balance);
    const pos = String(++this.seq).padStart(8, '0');
    return {
      list: LIST,
      pos,
      from: before === undefined ? null : key(before, i),
      to: balance === null ? null : key(balance, i),
    };
  }
  /** The list as it must read: balance descending, then address — sorted here without rankKey. */
  expected(): string[] {
    return [...this.held]
      .sort(([a, x], [b, y]) => y - x || (address(a) < address(b) ? -1 : 1))
      .map(([i, balance]) => key(balance, i));
  }
}

/** Applies a batch's moves as the projector does: read what they need, then the three phases. */
async function applyBatch(store: ReadStore, moves: RankMove[], crashAfterWrites?: number): Promise<boolean> {
  const m = openModels(store);
  const dirs = await m.rankDirs.getMany(rankListsOf(moves));
  const pages = await m.rankPages.getMany(rankPagesToRead(moves, dirs));
  const out = projectRanked(moves, { dirs, pages });
  const writes: Write[][] = [out.pages, out.dirs, out.retired];
  let budget = crashAfterWrites ?? Infinity;
  for (const phase of writes) {
    if (phase.length > budget) {
      await store.write(phase.slice(0, budget));
      return false;
    }
    await store.write(phase);
    budget -= phase.length;
  }
  return true;
}

async function freshStore(): Promise<ReadStore> {
  const store = createMemoryReadStore();
  await store.ensureCollections(COLLECTION_SPECS);
  return store;
}

async function listOf(store: ReadStore): Promise<string[]> {
  const m = openModels(store);
  const dir = await m.rankDirs.get(LIST);
  return dir ? (await rankedEntries(m.rankPages, dir))! : [];
}

/** A deterministic shuffle of 0..n−1 (no two runs of a test differ). */
function shuffled(n: number, seed: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  let s = seed;
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('ranked lists', () => {
  it('orders entries by rank descending as integers of any size, then address ascending', () => {
    const huge = (digits: number) => rankKey(amountSortKey(10n ** BigInt(digits)), address(1));
    const keys = [key(5, 2), key(10, 3), key(5, 1), key(1_000_000, 9), key(0, 0), huge(45), huge(39), huge(40)];
    expect([...keys].sort()).toEqual([
      huge(45),
      huge(40),
      huge(39),
      key(1_000_000, 9),
      key(10, 3),
      key(5, 1),
      key(5, 2),
      key(0, 0),
    ]);
    expect(keys.map(addressOfKey).slice(0, 5)).toEqual([2, 3, 1, 9, 0].map(address));
    expect(addressOfKey(lockKey(1_700_000_000, address(4)))).toBe(address(4));
  });

  it('keeps a list of 3,000 holders in order across batches of inserts, moves and removals, in pages of at most 512', async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      shuffled(3000, 1).map((i) => world.set(i, (i * 7919) % 1000)),
    );
    for (let round = 0; round < 5; round++) {
      const moves = shuffled(3000, round + 2)
        .slice(0, 400)
        .map((i, k) => world.set(i, k % 5 === 0 ? null : (i * round + k) % 5000));
      await applyBatch(store, moves);
    }
    expect(await listOf(store)).toEqual(world.expected());
    const dir = (await openModels(store).rankDirs.get(LIST))!;
    expect(dir.pages.every((p) => p.n > 0 && p.n <= 512)).toBe(true);
    expect(dir.pages.reduce((n, p) => n + p.n, 0)).toBe(world.held.size);
    // Every page the directory replaced is gone: the pages stored are the ones it names.
    expect((await openModels(store).rankPages.find({})).map((p) => p._id).sort()).toEqual(
      dir.pages.map((p) => p.id).sort(),
    );
  });

  it('takes a first batch of 300,000 holders into an empty list', async () => {
    const moves = Array.from({ length: 300_000 }, (_, i) => ({
      list: LIST,
      pos: String(i + 1).padStart(8, '0'),
      from: null,
      to: key(i % 1000, i),
    }));
    const out = projectRanked(moves, { dirs: [], pages: [] });
    const pages = out.pages.map((w) => (w.op === 'put' ? (w.doc['entries'] as string[]) : []));
    expect(pages.reduce((n, p) => n + p.length, 0)).toBe(300_000);
    expect(pages.every((p) => p.length > 0 && p.length <= 512)).toBe(true);
  });

  it('reads any window, within a page or across pages, as the slice of the whole list', async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      shuffled(1500, 3).map((i) => world.set(i, i % 97)),
    );
    const m = openModels(store);
    const all = world.expected();
    for (const [skip, limit] of [
      [0, 100],
      [250, 100],
      [470, 100],
      [1400, 100],
      [1450, 100],
      [1500, 100],
      [0, 1500],
    ] as const)
      expect(await rankedWindow(m, LIST, { skip, limit }), `${skip}+${limit}`).toEqual(all.slice(skip, skip + limit));
    expect(await rankedWindow(m, 'mrc010:8', { skip: 0, limit: 10 })).toEqual([]);
  });

  it('reads the first entries at or after a key, from the page it falls in on', async () => {
    const store = await freshStore();
    const LOCKS = 'locks:mrc010:7';
    const dates = shuffled(1200, 5).map((i) => ({ i, until: 1_000 + (i % 400) }));
    const moves = dates.map(({ i, until }, k) => ({
      list: LOCKS,
      pos: String(k + 1).padStart(8, '0'),
      from: null,
      to: lockKey(until, address(i)),
    }));
    await applyBatch(store, moves);
    const m = openModels(store);
    const all = dates
      .sort((a, b) => a.until - b.until || (address(a.i) < address(b.i) ? -1 : 1))
      .map(({ i, until }) => lockKey(until, address(i)));
    expect((await m.rankDirs.get(LOCKS))!.pages.length).toBeGreaterThan(2);
    for (const [now, limit] of [
      [0, 10],
      [1_000, 10],
      [1_150, 500],
      [1_398, 100],
      [1_399, 100],
      [1_500, 100],
    ] as const) {
      const expected = all.filter((k) => Number(k.slice(0, k.indexOf(' '))) > now).slice(0, limit);
      expect(await rankedFrom(m, LOCKS, lockKey(now + 1, ''), limit), `${now}`).toEqual(expected);
    }
    // From near the end of each page: the window needs the pages after it.
    let start = 0;
    for (const page of (await m.rankDirs.get(LOCKS))!.pages) {
      start += page.n;
      const from = all[start - 2]!;
      const expected = all.slice(start - 2, start + 298);
      expect(await rankedFrom(m, LOCKS, from, 300), from).toEqual(expected);
    }
  });

  it('pages by key: after and before a key, listed or not, each entry once both ways, at its position', async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      shuffled(1300, 11).map((i) => world.set(i, i % 89)),
    );
    const m = openModels(store);
    const all = world.expected();
    expect((await m.rankDirs.get(LIST))!.pages.length).toBeGreaterThan(3);
    // Down the list by `after`, then back up by `before`: every entry once, positions exact.
    const down: string[] = [];
    let seek: RankedSeek = { skip: 0 };
    for (;;) {
      const page: RankedSlice = (await rankedSlice(m, LIST, seek, 97))!;
      expect(page.size).toBe(all.length);
      expect(page.keys).toEqual(all.slice(page.start, page.start + 97));
      expect(page.start).toBe(down.length);
      down.push(...page.keys);
      if (page.start + page.keys.length >= page.size) break;
      seek = { after: page.keys.at(-1)! };
    }
    expect(down).toEqual(all);
    const up: string[] = [];
    seek = { before: all.at(-1)! + '~' };
    for (;;) {
      const page: RankedSlice = (await rankedSlice(m, LIST, seek, 97))!;
      expect(page.keys).toEqual(all.slice(page.start, page.start + page.keys.length));
      up.unshift(...page.keys);
      if (page.start === 0) break;
      seek = { before: page.keys[0]! };
    }
    expect(up).toEqual(all);
    // A key no longer listed (its holder moved): the page starts just past where it would be.
    const gone = key(1_000_000, 5);
    expect((await rankedSlice(m, LIST, { after: gone }, 3))!.keys).toEqual(all.slice(0, 3));
    const mid = all[700]!;
    const between = `${mid}0`; // sorts after mid, before the next entry
    expect((await rankedSlice(m, LIST, { after: between }, 2))!).toEqual({
      keys: all.slice(701, 703),
      start: 701,
      size: all.length,
    });
    expect((await rankedSlice(m, LIST, { before: between }, 2))!).toEqual({
      keys: all.slice(699, 701),
      start: 699,
      size: all.length,
    });
    // From a floor: the list as if it began there; before the floor nothing is listed.
    const floor = all[650]!;
    expect((await rankedSlice(m, LIST, { skip: 0 }, 4, floor))!).toEqual({
      keys: all.slice(650, 654),
      start: 0,
      size: all.length - 650,
    });
    expect((await rankedSlice(m, LIST, { before: all[652]! }, 10, floor))!).toEqual({
      keys: all.slice(650, 652),
      start: 0,
      size: all.length - 650,
    });
    expect((await rankedSlice(m, LIST, { after: all[10]! }, 1, floor))!.keys).toEqual([floor]);
    expect((await rankedSlice(m, LIST, { after: all.at(-1)! }, 5))!).toEqual({
      keys: [],
      start: all.length,
      size: all.length,
    });
    expect(await rankedSlice(m, 'mrc010:8', { after: mid }, 5)).toEqual({ keys: [], start: 0, size: 0 });
  });

  it('skips the moves its directory has applied: a replayed batch changes nothing', async () => {
    const store = await freshStore();
    const world = new World();
    const first = [1, 2, 3].map((i) => world.set(i, i * 10));
    await applyBatch(store, first);
    const second = [world.set(2, null), world.set(4, 5)];
    await applyBatch(store, second);
    const m = openModels(store);
    const dirs = await m.rankDirs.getMany([LIST]);
    const replay = [...first, ...second];
    const out = projectRanked(replay, { dirs, pages: await m.rankPages.getMany(rankPagesToRead(replay, dirs)) });
    expect(out.pages).toEqual([]);
    expect(out.dirs).toEqual([]);
    expect(await listOf(store)).toEqual(world.expected());
  });

  it('treats entries as a set: removing an absent entry or adding a present one leaves the others', async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      [1, 2, 3].map((i) => world.set(i, i * 10)),
    );
    await applyBatch(store, [
      { list: LIST, pos: '90000001', from: key(15, 9), to: null },
      { list: LIST, pos: '90000002', from: null, to: key(20, 2) },
    ]);
    expect(await listOf(store)).toEqual(world.expected());
  });

  it('never rewrites a page its stored directory names: new pages get new ids', async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      shuffled(600, 4).map((i) => world.set(i, i)),
    );
    const m = openModels(store);
    const named = new Set((await m.rankDirs.get(LIST))!.pages.map((p) => p.id));
    const moves = [world.set(5, 100_000), world.set(599, null)];
    const dirs = await m.rankDirs.getMany([LIST]);
    const out = projectRanked(moves, { dirs, pages: await m.rankPages.getMany(rankPagesToRead(moves, dirs)) });
    const written = out.pages.map((w) => (w.op === 'put' ? w.doc._id : ''));
    expect(written.length).toBeGreaterThan(0);
    for (const id of written) expect(named.has(id), id).toBe(false);
  });

  it('ends as the uninterrupted run after a crash at any write, replayed with other batch boundaries', async () => {
    const world = new World();
    const batches = [0, 1, 2].map((b) =>
      shuffled(700, b + 10)
        .slice(0, 500)
        .map((i) => world.set(i, b === 2 && i % 3 === 0 ? null : (i * (b + 3)) % 811)),
    );
    const expected = world.expected();
    const clean = await freshStore();
    for (const b of batches) await applyBatch(clean, b);
    const cleanDump = await dumpReadModels(clean);
    let crashes = 0;
    for (let crashAt = 0; ; crashAt++) {
      const store = await freshStore();
      await applyBatch(store, batches[0]!);
      await applyBatch(store, batches[1]!);
      if (await applyBatch(store, batches[2]!, crashAt)) break;
      crashes++;
      // The replay starts one batch earlier and cuts the rest elsewhere.
      const rest = [...batches[1]!, ...batches[2]!];
      await applyBatch(store, rest.slice(0, 333));
      await applyBatch(store, rest.slice(333));
      expect(await listOf(store), `crash after ${crashAt} writes`).toEqual(expected);
      expect((await dumpReadModels(store)).sha256, `crash after ${crashAt} writes`).toBe(cleanDump.sha256);
      // No page is left behind that the directory does not name.
      const dir = (await openModels(store).rankDirs.get(LIST))!;
      expect((await openModels(store).rankPages.find({})).map((p) => p._id).sort()).toEqual(
        dir.pages.map((p) => p.id).sort(),
      );
    }
    // Pages, the directory, deletions: each phase was cut somewhere.
    expect(crashes).toBeGreaterThanOrEqual(5);
  });

  it("reads a window's rows by id in list order, and says when the list and the rows disagree", async () => {
    const store = await freshStore();
    const world = new World();
    await applyBatch(
      store,
      [3, 1, 2].map((i) => world.set(i, 10 * i)),
    );
    const m = openModels(store);
    type Row = { _id: string; balance: number; i: number };
    const rowId = (i: number) => `7:${address(i)}`;
    const listed = {
      rows: store.collection<Row>('holders'),
      idOf: (k: string) => `7:${addressOfKey(k)}`,
      keyOf: (r: Row) => key(r.balance, r.i),
    };
    const write = (i: number, balance: number) =>
      store.write([{ op: 'put', collection: 'holders', doc: { _id: rowId(i), balance, i } }]);
    for (const i of [1, 2, 3]) await write(i, 10 * i);
    const page = async () => (await rankedRows(m, LIST, listed, { skip: 0 }, 10))?.rows ?? null;
    expect((await page())?.map((r) => r._id)).toEqual([3, 2, 1].map(rowId));
    // A row whose balance moved past the list (read between a batch's writes): null, read again.
    await write(2, 25);
    expect(await page()).toBeNull();
    await write(2, 20);
    expect(await page()).not.toBeNull();
    // A row the list names but the store lacks: not a short page, null.
    await store.write([{ op: 'delete', collection: 'holders', id: rowId(2) }]);
    expect(await page()).toBeNull();
    const dir = (await m.rankDirs.get(LIST))!;
    await store.write([{ op: 'delete', collection: 'rank_pages', id: dir.pages[0]!.id }]);
    expect(await rankedWindow(m, LIST, { skip: 0, limit: 10 })).toBeNull();
  });
});
