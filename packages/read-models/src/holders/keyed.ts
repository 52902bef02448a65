import type { AnyDoc, Write } from '@mtc/ports';
import { holdingChangeWrite } from './changes.ts';
import type { RankMove } from './ranked.ts';

/**
 * The core every holder model shares (MRC-010 token holders, MRC-402 holders): rows per (asset,
 * address) that a wallet write replaces, and per asset a holder count and total, kept exact from the
 * previous state. A model says what its rows are; this keeps the counts.
 *
 * Why it stays exact under crashes and replays (the block topic is consumed by one projector at a
 * time, in order): an asset's stats carry the position of the last write they counted, so a delta
 * at a position they already passed is skipped. A delta needs the holding before the write: within
 * the batch that is the previous write's (event-carried state), and for an address's first write
 * it is the stored row, which is still the pre-batch row whenever the delta is not skipped —
 * because rows are written only after every stats write of their batch is durable (callers write
 * `stats`, then `rows`, each durable before the next).
 *
 * Every change of a holding also goes to the holding-change log (`changes`, written with the facts,
 * before `stats`): a change is logged under the same guard as its delta, and the stats record the
 * position of every change (not only those that move the count or total), so a replay logs exactly
 * the changes a crashed run may not have logged (see `changes.ts`).
 */
export interface HoldingsSpec<K extends string | number, R extends { _id: string; address: string }> {
  /** For error messages: "token", "MRC-402". */
  what: string;
  assetOf(row: R): K;
  rowId(asset: K, address: string): string;
  /** What a row adds to its asset's total. */
  amountOf(row: R): bigint;
  /** Whether a write left a holding as it was (its row then keeps its position). */
  same(a: R, b: R): boolean;
  compareAssets(a: K, b: K): number;
  statsWrite(stats: AssetStats<K>): Write;
  rowsCollection: string;
  /** The asset's name in the holding-change log, e.g. `mrc010:5`. */
  changeAsset(asset: K): string;
  /** The row's entries in ranked lists, list → key (`ranked.ts`): by rank in its asset's, and so on. */
  listedAs(asset: K, row: R): ReadonlyMap<string, string>;
}

export interface AssetStats<K> {
  asset: K;
  holders: number;
  total: bigint;
  /** The wallet write these stats last counted. */
  pos: string;
}

/** A wallet write of the batch (in chain order) as the holdings it leaves, by asset. */
export interface HoldingsWrite<K, R> {
  pos: string;
  address: string;
  after: Map<K, R>;
  /** The assets `after` speaks for; any other holding stays as it was. Absent: every asset. */
  covers?: ReadonlySet<K>;
}

const NONE: ReadonlyMap<string, string> = new Map();

export function projectHoldings<K extends string | number, R extends { _id: string; address: string }>(
  spec: HoldingsSpec<K, R>,
  writes: readonly HoldingsWrite<K, R>[],
  prior: { rows: readonly R[]; stats: readonly AssetStats<K>[] },
): { stats: Write[]; rows: Write[]; changes: Write[]; moves: RankMove[] } {
  const held = new Map<string, Map<K, R>>();
  for (const row of prior.rows) {
    let m = held.get(row.address);
    if (!m) held.set(row.address, (m = new Map<K, R>()));
    m.set(spec.assetOf(row), row);
  }
  const storedPos = new Map(prior.stats.map((s) => [s.asset, s.pos]));
  const stats = new Map(prior.stats.map((s) => [s.asset, { ...s }]));
  const changedStats = new Set<K>();
  const changes: Write[] = [];
  const moves: RankMove[] = [];
  /** Every (address → assets) pair whose row may have to change: stored or written. */
  const touched = new Map<string, Set<K>>();

  for (const w of writes) {
    const before = held.get(w.address) ?? new Map<K, R>();
    const after = new Map(w.after);
    if (w.covers) for (const [asset, row] of before) if (!w.covers.has(asset)) after.set(asset, row);
    // A holding this write left as it was keeps its row, and the position it last changed at: a
    // wallet write lists every asset, and rewriting all of a large holder's rows for one transfer
    // would multiply the writes by its asset count.
    for (const [asset, n] of after) {
      const o = before.get(asset);
      if (o && spec.same(o, n)) after.set(asset, o);
    }
    let t = touched.get(w.address);
    if (!t) touched.set(w.address, (t = new Set()));
    for (const asset of new Set([...before.keys(), ...after.keys()])) {
      t.add(asset);
      const o = before.get(asset);
      const n = after.get(asset);
      if (o === n) continue;
      // Ranked lists have their own guard (see ranked.ts): their moves are made whatever the stats counted.
      const was = o ? spec.listedAs(asset, o) : NONE;
      const is = n ? spec.listedAs(asset, n) : NONE;
      for (const list of new Set([...was.keys(), ...is.keys()])) {
        const from = was.get(list) ?? null;
        const to = is.get(list) ?? null;
        if (from !== to) moves.push({ list, pos: w.pos, from, to });
      }
      if ((storedPos.get(asset) ?? '') >= w.pos) continue;
      changes.push(holdingChangeWrite(spec.changeAsset(asset), w.address, w.pos, n ?? null));
      const dHolders = (n ? 1 : 0) - (o ? 1 : 0);
      const dTotal = (n ? spec.amountOf(n) : 0n) - (o ? spec.amountOf(o) : 0n);
      const s = stats.get(asset) ?? { asset, holders: 0, total: 0n, pos: '' };
      s.holders += dHolders;
      s.total += dTotal;
      s.pos = w.pos;
      if (s.holders < 0 || s.total < 0n)
        throw new Error(
          `holder stats of ${spec.what} ${asset} went negative at ${w.pos}: the stored state is inconsistent`,
        );
      stats.set(asset, s);
      changedStats.add(asset);
    }
    held.set(w.address, after);
  }

  const statWrites = [...changedStats]
    .sort((a, b) => spec.compareAssets(a, b))
    .map((asset) => spec.statsWrite(stats.get(asset)!));
  const storedRows = new Map(prior.rows.map((r) => [r._id, r]));
  const rowWrites: Write[] = [];
  for (const [address, assets] of touched) {
    const now = held.get(address)!;
    for (const asset of [...assets].sort((a, b) => spec.compareAssets(a, b))) {
      const row = now.get(asset);
      const id = spec.rowId(asset, address);
      const stored = storedRows.get(id);
      // Unchanged since the store's copy (the same object, carried through), or never stored.
      if (row === stored || (!row && !stored)) continue;
      rowWrites.push(
        row
          ? { op: 'put', collection: spec.rowsCollection, doc: row as unknown as AnyDoc }
          : { op: 'delete', collection: spec.rowsCollection, id },
      );
    }
  }
  return { stats: statWrites, rows: rowWrites, changes, moves };
}
