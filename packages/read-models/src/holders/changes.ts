import type { Collection, Doc, Write } from '@mtc/ports';
import { defineModel } from '../model.ts';
import { readShared, type BatchValues, type SharedValueDoc } from '../shared-values.ts';

/**
 * The holding-change log: an append-only record of every change of a holder row (MRC-010 token
 * holders, MRC-402 holders, MRC-400 collection holders), one document per (asset, address, pos)
 * holding the row as the write at `pos` left it, or null when the address stopped holding.
 *
 * Holder rows are last-write-wins, so they only say what is held now; this log says what was held
 * at any height, which is what an export consistent as of one height needs while the rows move on
 * (`holdersAt`). Documents are immutable facts, `put` in a batch's first phase: a replay writes the
 * same documents again. Which writes change a holding is decided against the previous state, so a
 * replay after a crash (whose holder rows may be ahead of the batch) logs only the writes its
 * asset's stats have not counted yet — the stats follow the same log in phase 2 and record every
 * change, so whatever they counted was already logged.
 *
 * `_id` is `<asset>:<address>:<pos>`: its order is (asset, address, pos), so "an address's last
 * change at or before a position" is one range read on the primary key. The (asset, pos) index
 * serves "the changes of an asset since a position".
 */
export type HoldingChangeDoc = {
  _id: string;
  /** `mrc010:<token>`, `mrc402:<id>` or `mrc400:<collection>`. */
  asset: string;
  address: string;
  pos: string;
  /**
   * The holder row after the write; null once the address holds none. A large `locks` list is a
   * shared value (`shared-values.ts`) named by `locksRef`: a whale's lock-ups are the same list in
   * most of its changes, and inline they made each change grow with them.
   */
  row: Record<string, unknown> | null;
};

export const holdingChanges = defineModel<HoldingChangeDoc>('holding_changes', [
  {
    fields: [
      ['asset', 1],
      ['pos', 1],
    ],
  },
]);

export type HoldingKind = 'mrc010' | 'mrc402' | 'mrc400';

export const holdingAsset = (kind: HoldingKind, asset: string | number): string => `${kind}:${asset}`;

export function holdingChangeWrite(asset: string, address: string, pos: string, row: Doc | null): Write {
  const doc: HoldingChangeDoc = {
    _id: `${asset}:${address}:${pos}`,
    asset,
    address,
    pos,
    row: row === null ? null : { ...(row as Record<string, unknown>) },
  };
  return { op: 'put', collection: holdingChanges.name, doc };
}

/** The change-log writes with their rows' large `locks` lists replaced by shared values. */
export function shareLocks(changes: readonly Write[], shared: BatchValues): Write[] {
  return changes.map((w) => {
    const row = w.op === 'put' ? (w.doc as HoldingChangeDoc).row : null;
    const locks = row?.['locks'];
    if (w.op !== 'put' || !row || !Array.isArray(locks)) return w;
    const id = shared.share(locks);
    if (id === null) return w;
    const { locks: _shared, ...rest } = row;
    return { ...w, doc: { ...w.doc, row: { ...rest, locksRef: id } } };
  });
}

/** The change log and the shared values its rows name: what reads a holder row at a height. */
export interface HoldingLog {
  changes: Collection<HoldingChangeDoc>;
  shared: Collection<SharedValueDoc>;
}

/** The address's holder row as it stood at `at` (a chain position): its last change up to then, or null. */
export async function holdingAt<R>(log: HoldingLog, asset: string, address: string, at: string): Promise<R | null> {
  const prefix = `${asset}:${address}:`;
  const [last] = await log.changes.find(
    { _id: { $gte: prefix, $lte: `${prefix}${at}` } },
    { sort: [['_id', -1]], limit: 1 },
  );
  const row = last?.row ?? null;
  const ref = row?.['locksRef'];
  if (row === null || typeof ref !== 'string') return row as R | null;
  const locks = await readShared(log.shared, [ref], `the lock-ups of holding change ${last!._id}`);
  const { locksRef: _ref, ...rest } = row;
  return { ...rest, locks: locks.get(ref) } as R;
}
