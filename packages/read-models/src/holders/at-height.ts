import type { Collection } from '@mtc/ports';
import { seriesNumberAt, seriesTotal, type SeriesCounterDoc, type SeriesRow } from '../series/series.ts';
import { holdingAt, type HoldingLog } from './changes.ts';

/**
 * Reads as of one chain position `at` (the indexed head when an export starts) while the projector
 * moves on, in pages of bounded size: nothing here holds more than a page (plus the changes made
 * since `at`, which is what an export running at the head sees).
 */

export interface HolderRowsAt<R extends { _id: string; address: string; pos: string }> {
  /** The asset's current holder rows, whose `_id` is `<idPrefix><address>`. */
  rows: Collection<R>;
  /** e.g. `5:` for token 5: the rows of one asset are one `_id` range, in address order. */
  idPrefix: string;
  log: HoldingLog;
  /** The asset's name in the change log (`holdingAsset`). */
  asset: string;
  at: string;
  pageSize: number;
  /** Whether a row is a holding (collection rows stay at count 0 once emptied). */
  holds?: (row: R) => boolean;
}

/**
 * An asset's holders as they stood at `at`, in address order, page by page. Each page of current
 * rows (keyset on `_id`) covers an address range; a row changed at or before `at` is its value then.
 * Addresses of the range changed after `at` — found in the change log, so rows deleted since are
 * seen too — take their last change up to `at` instead (none: they held nothing then).
 */
export async function* holdersAt<R extends { _id: string; address: string; pos: string }>(
  spec: HolderRowsAt<R>,
): AsyncGenerator<R[]> {
  const { idPrefix, at } = spec;
  const holds = spec.holds ?? (() => true);
  // `:` + 1: the end of the prefix's range.
  const end = `${idPrefix.slice(0, -1)}${String.fromCharCode(idPrefix.charCodeAt(idPrefix.length - 1) + 1)}`;
  let after = idPrefix;
  let lo = '';
  for (;;) {
    const rows = await spec.rows.find({ _id: { $gt: after, $lt: end } } as never, {
      sort: [['_id', 1]] as never,
      limit: spec.pageSize,
    });
    const full = rows.length === spec.pageSize;
    const hi = full ? rows.at(-1)!.address : null;
    const moved = await spec.log.changes.find(
      { asset: spec.asset, pos: { $gt: at }, address: hi === null ? { $gt: lo } : { $gt: lo, $lte: hi } },
      { sort: [['pos', 1]] },
    );
    const changed = [...new Set(moved.map((c) => c.address))];
    const out = new Map<string, R>();
    const changedSet = new Set(changed);
    for (const row of rows) if (row.pos <= at && !changedSet.has(row.address) && holds(row)) out.set(row.address, row);
    const then = await Promise.all(changed.map((a) => holdingAt<R>(spec.log, spec.asset, a, at)));
    changed.forEach((address, i) => {
      const row = then[i];
      if (row && holds(row)) out.set(address, row);
    });
    const page = [...out.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    if (page.length > 0) yield page;
    if (hi === null) return;
    after = rows.at(-1)!._id;
    lo = hi;
  }
}

/**
 * What an asset's holders held in all at `at`, from its stats (`sum` as of `statsPos`) less what
 * the changes after `at` that the stats counted added.
 */
export async function assetSumAt<R>(
  log: HoldingLog,
  asset: string,
  stats: { sum: bigint; pos: string } | null,
  at: string,
  amountOf: (row: R | null) => bigint,
): Promise<bigint> {
  if (stats === null) return 0n;
  if (stats.pos <= at) return stats.sum;
  const since = await log.changes.find({ asset, pos: { $gt: at, $lte: stats.pos } }, { sort: [['pos', 1]] });
  let sum = stats.sum;
  for (const address of new Set(since.map((c) => c.address))) {
    const [atStats, atHeight] = await Promise.all([
      holdingAt<R>(log, asset, address, stats.pos),
      holdingAt<R>(log, asset, address, at),
    ]);
    sum -= amountOf(atStats) - amountOf(atHeight);
  }
  return sum;
}

/**
 * How many rows a series key had at `at`: the number of its last row at or before it. Rows are
 * numbered in chain order, so that is a binary search over 1 … the key's count, one read by id a
 * step (about 20 for a million rows).
 */
export async function seriesCountAt(
  rows: Collection<SeriesRow>,
  counters: Collection<SeriesCounterDoc>,
  series: { readonly name: string },
  key: string,
  at: string,
): Promise<number> {
  return seriesNumberAt(rows, key, await seriesTotal(counters, series, key), at);
}
