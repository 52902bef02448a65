import {
  BLOCKS_SCHEMA_VERSION,
  type BalanceEntry,
  type BlockEvent,
  type BlockEventV2,
  type BlockWrite,
  type Mrc402Holding,
  type Mrc402Item,
  type Splice,
  type StateWrite,
  type WalletChangeWrite,
  type WalletState,
} from './events.ts';

/*
 * A wallet write as a change to the wallet's previous write, for `mtc.blocks.v3`.
 *
 * The chain writes a wallet whole: one balance entry per token and lock-up date, and every MRC-402
 * it holds. A whale's record grows with its history (hundreds of entries, ~100 KB of JSON) while a
 * transfer changes one or two of them, so carrying the record whole on every write made the cost of
 * a block grow with what its wallets had accumulated. A change carries what the write changed:
 *
 * - `tokens` / `nfts`: the assets whose entries differ from the base write's, and, for those,
 *   every entry after the write (`balances`, in wallet order) and every holding still held
 *   (`mrc402`). That is all a holder projection needs, without the base.
 * - `edits`: splices that turn the base's lists into this write's, exactly and in order, for a
 *   consumer that keeps the records as written.
 */
/** A wallet write at `pos`, whole: what a change is taken from and applied to. */
export interface WalletVersion {
  pos: string;
  regdate: number;
  addinfo: string;
  balances: readonly BalanceEntry[];
  mrc402: WalletState['mrc402'];
}

/**
 * Splices that turn `old` into `next`, and the items of `old` they remove. Any two lists give a
 * correct answer; `sameKey` (the same slot, e.g. token and unlock date) only keeps it small when an
 * item changes in place, one is inserted or a few are removed.
 */
export function diffList<T>(
  old: readonly T[],
  next: readonly T[],
  same: (a: T, b: T) => boolean,
  sameKey: (a: T, b: T) => boolean,
): { splices: Splice<T>[]; removed: T[] } {
  const splices: Splice<T>[] = [];
  const removed: T[] = [];
  let open: Splice<T> | undefined;
  // Invariant: the list as edited so far is next[0, j) followed by old[i, end).
  const edit = (at: number, from: number, remove: number, insert: readonly T[]): void => {
    for (let k = from; k < from + remove; k++) removed.push(old[k]!);
    if (open && open.at + open.insert.length === at) {
      open.remove += remove;
      for (const item of insert) open.insert.push(item);
    } else splices.push((open = { at, remove, insert: [...insert] }));
  };
  let i = 0;
  let j = 0;
  while (i < old.length && j < next.length) {
    const o = old[i]!;
    const n = next[j]!;
    if (same(o, n)) {
      i++;
      j++;
      open = undefined;
      continue;
    }
    if (sameKey(o, n)) {
      edit(j, i, 1, [n]);
      i++;
      j++;
      continue;
    }
    const ahead = lookAhead(old, i, n, sameKey);
    if (ahead > 0) {
      edit(j, i, ahead, []);
      i += ahead;
    } else {
      edit(j, i, 0, [n]);
      j++;
    }
  }
  if (i < old.length) edit(j, i, old.length - i, []);
  if (j < next.length) edit(j, old.length, 0, next.slice(j));
  return { splices, removed };
}

/** How many items of `old` from `i` to skip to reach one in `n`'s slot (0: none within reach). */
function lookAhead<T>(old: readonly T[], i: number, n: T, sameKey: (a: T, b: T) => boolean): number {
  for (let k = i + 1; k < Math.min(old.length, i + 9); k++) if (sameKey(old[k]!, n)) return k - i;
  return 0;
}

/** `list` with the splices applied in order (a new array); throws when one does not fit it. */
export function applySplices<T>(list: readonly T[], splices: readonly Splice<T>[], what: string): T[] {
  const out = [...list];
  for (const s of splices) {
    if (s.at + s.remove > out.length)
      throw new Error(`${what}: a splice at ${s.at} removing ${s.remove} does not fit a list of ${out.length}`);
    out.splice(s.at, s.remove, ...s.insert);
  }
  return out;
}

const sameEntry = (a: BalanceEntry, b: BalanceEntry): boolean =>
  a.token === b.token &&
  a.unlockdate === b.unlockdate &&
  a.balance === b.balance &&
  a.saleamount === b.saleamount &&
  a.auctionamount === b.auctionamount;
const sameSlot = (a: BalanceEntry, b: BalanceEntry): boolean => a.token === b.token && a.unlockdate === b.unlockdate;
const sameHolding = (a: Mrc402Item, b: Mrc402Item): boolean =>
  a[0] === b[0] &&
  a[1].balance === b[1].balance &&
  a[1].saleamount === b[1].saleamount &&
  a[1].auctionamount === b[1].auctionamount;
const sameId = (a: Mrc402Item, b: Mrc402Item): boolean => a[0] === b[0];

const itemsOf = (mrc402: WalletState['mrc402']): Mrc402Item[] => Object.entries(mrc402 ?? {});

/** The write `next` at `pos` as a change to `base` (the wallet's previous write). */
export function walletChange(
  key: string,
  pos: string,
  jobType: string,
  base: WalletVersion,
  next: Omit<WalletVersion, 'pos'> & { pos?: string },
): WalletChangeWrite {
  const balances = diffList(base.balances, next.balances, sameEntry, sameSlot);
  const tokens = new Set<number>();
  for (const e of balances.removed) tokens.add(e.token);
  for (const s of balances.splices) for (const e of s.insert) tokens.add(e.token);
  const holdings = diffList(itemsOf(base.mrc402), itemsOf(next.mrc402), sameHolding, sameId);
  const nfts = new Set<string>();
  for (const [id] of holdings.removed) nfts.add(id);
  for (const s of holdings.splices) for (const [id] of s.insert) nfts.add(id);
  const mrc402: Record<string, Mrc402Holding> = {};
  for (const id of [...nfts].sort()) {
    const held = next.mrc402?.[id];
    if (held) mrc402[id] = held;
  }
  return {
    kind: 'walletChange',
    key,
    pos,
    jobType,
    base: base.pos,
    regdate: next.regdate,
    addinfo: next.addinfo,
    tokens: [...tokens].sort((a, b) => a - b),
    balances: next.balances.filter((e) => tokens.has(e.token)),
    nfts: [...nfts].sort(),
    mrc402,
    edits: { balances: balances.splices, mrc402: next.mrc402 === null ? null : holdings.splices },
  };
}

/** The wallet as `change` wrote it, from its base (whose `pos` must be `change.base`). */
export function applyWalletChange(base: WalletVersion, change: WalletChangeWrite): WalletVersion {
  if (base.pos !== change.base)
    throw new Error(
      `wallet ${change.key}: the change at ${change.pos} is relative to the write at ${change.base}, ` +
        `but the record at hand is the one written at ${base.pos || 'no position (none yet)'}`,
    );
  const what = `wallet ${change.key} at ${change.pos}`;
  return {
    pos: change.pos,
    regdate: change.regdate,
    addinfo: change.addinfo,
    balances: applySplices(base.balances, change.edits.balances, what),
    mrc402:
      change.edits.mrc402 === null
        ? null
        : Object.fromEntries(applySplices(itemsOf(base.mrc402), change.edits.mrc402, what)),
  };
}

/**
 * The wallets a follower has published, as their newest writes: what the next write of each is a
 * change to. A write of a wallet not in it goes whole (after a start, or once forgotten), which
 * also anchors every chain of changes in the log to a whole write. A follower keeps one for a run:
 * a failed publish ends the run, so no write it holds was left unpublished. Bounded: past
 * `capacity`, the least recently written wallets are forgotten (their next write goes whole).
 */
export class PublishedWallets {
  readonly #newest = new Map<string, WalletVersion>();
  readonly #capacity: number;

  constructor(capacity = 200_000) {
    this.#capacity = capacity;
  }

  /** The v3 message of a block: a wallet written before as a change to that write. */
  toBlockEventV3(v2: BlockEventV2): BlockEvent {
    return {
      ...v2,
      schemaVersion: BLOCKS_SCHEMA_VERSION,
      txs: v2.txs.map((tx) => ({ ...tx, writes: tx.writes.map((w) => this.#write(w)) })),
    };
  }

  #write(w: StateWrite): BlockWrite {
    if (w.kind !== 'wallet') return w;
    const next: WalletVersion = {
      pos: w.pos,
      regdate: w.wallet.regdate,
      addinfo: w.wallet.addinfo,
      balances: w.wallet.balances,
      mrc402: w.wallet.mrc402,
    };
    const base = this.#newest.get(w.key);
    // Deleted and set again: the map's order is least recently written first.
    this.#newest.delete(w.key);
    this.#newest.set(w.key, next);
    if (this.#newest.size > this.#capacity) this.#newest.delete(this.#newest.keys().next().value!);
    return base ? walletChange(w.key, w.pos, w.jobType, base, next) : w;
  }
}
