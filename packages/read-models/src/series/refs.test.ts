import { createMemoryReadStore } from '@mtc/adapters';
import type { ReadStore, Write } from '@mtc/ports';
import { describe, expect, it } from 'vitest';
import { collectionSpec } from '../model.ts';
import { filterSuffix, filterSuffixes } from './filters.ts';
import { SeriesList, seriesRowsBetween } from './refs.ts';
import {
  counterId,
  parseFiled,
  defineSeries,
  projectSeries,
  REFS_PER_DOC,
  seriesCounters,
  seriesRefs,
  type Appended,
  type FiledKeys,
  type SeriesCounterDoc,
  type SeriesRow,
} from './series.ts';

type Row = SeriesRow & { token: number; kind: string };
const rows = defineSeries<Row>('test_rows');
const filed: FiledKeys<Row> = (_key, row) => filterSuffixes({ token: [row.token], direction: [], kind: [row.kind] });
const KINDS = ['transfer', 'sell', 'buy'];

/** Key A's rows 1 … count, one per position (pos = its index, zero-padded), tokens and kinds mixed. */
function items(count: number): Appended<Row>[] {
  return Array.from({ length: count }, (_, i) => ({
    key: 'A',
    pos: String(i + 1).padStart(6, '0'),
    // Token 1 on every third row, so its lists cross chunk boundaries at other rows than A's.
    row: { token: i % 3 === 0 ? 1 : 0, kind: KINDS[(i * 7) % 5 === 0 ? 1 : i % 2 === 0 ? 0 : 2]! },
  }));
}

async function store(): Promise<ReadStore> {
  const s = createMemoryReadStore();
  await s.ensureCollections([collectionSpec(rows), collectionSpec(seriesRefs), collectionSpec(seriesCounters)]);
  return s;
}

/** A batch's writes, in the projector's phase order: rows and references, then counters. */
async function phases(s: ReadStore, batch: readonly Appended<Row>[]): Promise<Write[][]> {
  const ids = [...new Set(batch.map((i) => counterId(rows.name, i.key)))];
  const stored = new Map(
    (await s.collection<SeriesCounterDoc>(seriesCounters.name).getMany(ids)).map((c) => [c._id, c]),
  );
  const { rows: written, counters } = projectSeries(rows, batch, stored, filed);
  return [written, counters];
}

/** Projects `batches` in turn; with `crashAfter`, the last one stops after that many writes. */
async function project(s: ReadStore, batches: readonly (readonly Appended<Row>[])[], crashAfter?: number) {
  for (const [b, batch] of batches.entries()) {
    const batchPhases = await phases(s, batch);
    if (b === batches.length - 1 && crashAfter !== undefined) await s.write(batchPhases.flat().slice(0, crashAfter));
    else for (const phase of batchPhases) await s.write(phase);
  }
  return s;
}

const dump = async (s: ReadStore) =>
  Object.fromEntries(
    await Promise.all(
      [rows, seriesRefs, seriesCounters].map(async (m) => [m.name, await s.collection(m.name).find({})] as const),
    ),
  );

const open = (s: ReadStore, suffix: string) =>
  SeriesList.open(
    {
      rows: s.collection<Row>(rows.name),
      refs: s.collection(seriesRefs.name),
      counters: s.collection(seriesCounters.name),
    },
    rows,
    'A',
    suffix,
  );

const FILTERS = [{ token: 1 }, { kind: 'sell' }, { token: 0, kind: 'buy' }, { token: 1, kind: 'transfer' }];

describe('rows filed by reference', () => {
  const all = items(3 * REFS_PER_DOC + 17);
  /** `all` in batches of these sizes, and the rest. */
  const split = (sizes: number[]) => {
    const out: Appended<Row>[][] = [];
    let at = 0;
    for (const n of sizes) out.push(all.slice(at, (at += n)));
    return [...out, all.slice(at)];
  };

  it('pages, counts and windows each filtered list as the rows it filters, across chunk boundaries', async () => {
    const s = await store();
    await project(s, split([1, 63, 1, 70, 5]));
    for (const filter of FILTERS) {
      const key = filterSuffix(filter);
      const want = all
        .map((item, i) => ({ ...item.row, n: i + 1, pos: item.pos }))
        .filter((r) => Object.entries(filter).every(([f, v]) => r[f as keyof typeof r] === v));
      expect(want.length, key).toBeGreaterThan(REFS_PER_DOC / 4);
      const list = await open(s, key);
      expect(list.total, key).toBe(want.length);
      // Every page of 10 newest first, and one read of the whole list in pages of 7 oldest first.
      for (let to = want.length; to > 0; to -= 10) {
        const page = await list.rows({ from: to - 9, to, newestFirst: true });
        expect(
          page.map((r) => r.n),
          `${key} ${to}`,
        ).toEqual(
          want
            .slice(Math.max(0, to - 10), to)
            .map((r) => r.n)
            .reverse(),
        );
      }
      const read: number[] = [];
      for await (const page of seriesRowsBetween(list, { first: 1, last: list.total }, 7))
        read.push(...page.map((r) => r.n));
      expect(read).toEqual(want.map((r) => r.n));
      // Windows by position: every bound at, between and beyond the rows.
      for (const [after, upTo] of [
        [undefined, '000064'],
        ['000064', undefined],
        ['000010', '000150'],
        ['000150', '000151'],
        ['000300', undefined],
        [undefined, '000000'],
      ] as const) {
        const inside = want.filter(
          (r) => (after === undefined || r.pos > after) && (upTo === undefined || r.pos <= upTo),
        );
        const w = await list.window({ after, upTo });
        const got = inside.length === 0 ? [] : (await list.rows({ from: w.first, to: w.last })).map((r) => r.n);
        expect({ size: Math.max(0, w.last - w.first + 1), got }, `${key} (${after}, ${upTo}]`).toEqual({
          size: inside.length,
          got: inside.map((r) => r.n),
        });
      }
    }
  });

  it('writes each chunk of references once, when full, and keeps the partly filled one in the counter', async () => {
    const s = await store();
    const refs: Write[] = [];
    for (let at = 0; at < all.length; at += 10) {
      const batch = await phases(s, all.slice(at, at + 10));
      refs.push(...batch.flat().filter((w) => w.collection === seriesRefs.name));
      for (const phase of batch) await s.write(phase);
    }
    // A's rows are filed under 3 lists each; a list of n rows has ⌊n / 32⌋ full chunks.
    const perKey = new Map<string, number>();
    for (const i of all) for (const key of filed('A', i.row)) perKey.set(key, (perKey.get(key) ?? 0) + 1);
    const full = [...perKey.values()].reduce((sum, n) => sum + Math.floor(n / REFS_PER_DOC), 0);
    expect(full).toBeGreaterThan(2);
    expect(refs.map((w) => (w as { doc: { _id: string } }).doc._id)).toHaveLength(full);
    expect(new Set(refs.map((w) => (w as { doc: { _id: string } }).doc._id)).size).toBe(full);
    const counter = await s.collection<SeriesCounterDoc>(seriesCounters.name).get(counterId(rows.name, 'A'));
    const lists = parseFiled(counter?.filed);
    expect(new Map([...lists].map(([k, l]) => [k, l.n]))).toEqual(perKey);
    // The partly filled chunks' references: each list's newest n mod 32 rows, as A's row numbers.
    for (const [key, l] of lists) {
      const rowsOf = all.flatMap((item, i) => (filed('A', item.row).includes(key) ? [i + 1] : []));
      expect(l.tail, key).toEqual(rowsOf.slice(rowsOf.length - (rowsOf.length % REFS_PER_DOC)));
    }
  });

  it('ends as one run would after a crash at any write, replayed in other batch boundaries', async () => {
    const once = await dump(await project(await store(), [all]));
    const before = [all.slice(0, 60)];
    const crashed = all.slice(60, 140);
    const writes = (await phases(await project(await store(), before), crashed)).flat().length;
    for (let k = 0; k <= writes; k++) {
      const s = await store();
      await project(s, [...before, crashed], k);
      await project(s, [all.slice(60, 100), all.slice(100, 130), all.slice(130)]);
      expect(await dump(s), `crash after write ${k} of ${writes}`).toEqual(once);
    }
  });
});
