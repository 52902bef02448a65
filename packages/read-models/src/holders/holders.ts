import { amountSortKey, formatAmount, parseAmount, type BalanceEntry } from '@mtc/domain';
import type { Collection, Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * MRC-010 holders: one row per (token, address) that holds the token, and per token its holder
 * count and `totalBalance`, maintained at projection time (never counted or summed per request).
 *
 * An address holds a token while its wallet has an entry of it with a non-zero balance, sale or
 * auction amount (escrow can even be negative: `mrc010unauction` lowers saleamount, a chaincode
 * quirk the index reproduces rather than corrects): for tokens other than 0 that is exactly "has an entry" (the chaincode drops
 * all-zero entries); token 0 keeps its zero entry in every wallet, which does not make a holder.
 * `balance` is the sum of the token's entries, locked ones included; sale and auction escrow are
 * apart. Locks depend on the reader's clock (an entry is locked while its unlock date is ahead), so
 * rows keep every dated entry and readers filter by now.
 *
 * Projected from the block topic, whose order is total, because the aggregates need the previous
 * state: see `projectHolders` for why replays and crashes leave them exact.
 */
export type HolderLock = { amount: string; unlockdate: number };

export type HolderDoc = {
  /** `<token>:<address>`. */
  _id: string;
  token: number;
  address: string;
  balance: string;
  saleamount: string;
  auctionamount: string;
  /** `balance` zero-padded to 40 digits: string order is numeric order. */
  rank: string;
  /** The entries with an unlock date, in wallet order (expired ones included). */
  locks: HolderLock[];
  /** The latest unlock date among `locks`, 0 when none: the row has an active lock while it is ahead. */
  lockUntil: number;
  /** The wallet write that last changed this holding. */
  pos: string;
};

export type HolderStatsDoc = {
  /** The token id in decimal. */
  _id: string;
  token: number;
  holders: number;
  totalBalance: string;
  pos: string;
};

export const holders = defineModel<HolderDoc>('holders', [
  {
    fields: [
      ['token', 1],
      ['rank', -1],
      ['address', 1],
    ],
  },
  { fields: [['address', 1]] },
  {
    fields: [
      ['token', 1],
      ['lockUntil', 1],
    ],
  },
]);
export const holderStats = defineModel<HolderStatsDoc>('holder_stats');

export const holderId = (token: number, address: string): string => `${token}:${address}`;

/** Sale and auction escrow as written: an integer string, possibly negative; "" is 0. */
function signedAmount(value: string): bigint {
  return value.startsWith('-') ? -parseAmount(value.slice(1)) : parseAmount(value);
}

/** What a wallet holds, by token, after a write at `pos`. */
export function holdingsOf(address: string, balances: readonly BalanceEntry[], pos: string): Map<number, HolderDoc> {
  const sums = new Map<number, { balance: bigint; sale: bigint; auction: bigint; locks: HolderLock[] }>();
  for (const e of balances) {
    let s = sums.get(e.token);
    if (!s) sums.set(e.token, (s = { balance: 0n, sale: 0n, auction: 0n, locks: [] }));
    const balance = parseAmount(e.balance);
    s.balance += balance;
    s.sale += signedAmount(e.saleamount);
    s.auction += signedAmount(e.auctionamount);
    if (e.unlockdate > 0 && balance > 0n) s.locks.push({ amount: e.balance, unlockdate: e.unlockdate });
  }
  const out = new Map<number, HolderDoc>();
  for (const [token, s] of sums) {
    if (s.balance === 0n && s.sale === 0n && s.auction === 0n) continue;
    out.set(token, {
      _id: holderId(token, address),
      token,
      address,
      balance: formatAmount(s.balance),
      saleamount: s.sale.toString(),
      auctionamount: s.auction.toString(),
      rank: amountSortKey(s.balance),
      locks: s.locks,
      lockUntil: s.locks.reduce((m, l) => Math.max(m, l.unlockdate), 0),
      pos,
    });
  }
  return out;
}

function sameHolding(a: HolderDoc, b: HolderDoc): boolean {
  return (
    a.balance === b.balance &&
    a.saleamount === b.saleamount &&
    a.auctionamount === b.auctionamount &&
    a.locks.length === b.locks.length &&
    a.locks.every((l, i) => l.amount === b.locks[i]!.amount && l.unlockdate === b.locks[i]!.unlockdate)
  );
}

/** A wallet write of the batch, in chain order. */
export interface WalletWrite {
  pos: string;
  address: string;
  balances: readonly BalanceEntry[];
}

export interface HolderPrior {
  /** Stored rows of every address the batch writes. */
  rows: readonly HolderDoc[];
  /** Stored stats of every token those rows and writes name (missing = none yet). */
  stats: readonly HolderStatsDoc[];
}

/**
 * The holder writes of a batch: `stats` first, then `rows`, each durable before the next.
 *
 * Why this stays exact under crashes and replays (the block topic is consumed by one projector at a
 * time, in order): a token's stats carry the position of the last write they counted, so a delta
 * at a position they already passed is skipped. A delta needs the holding before the write: within
 * the batch that is the previous write's (event-carried state), and for an address's first write
 * it is the stored row, which is still the pre-batch row whenever the delta is not skipped —
 * because rows are written only after every stats write of their batch is durable.
 */
export function projectHolders(writes: readonly WalletWrite[], prior: HolderPrior): { stats: Write[]; rows: Write[] } {
  const held = new Map<string, Map<number, HolderDoc>>();
  for (const row of prior.rows) {
    let m = held.get(row.address);
    if (!m) held.set(row.address, (m = new Map<number, HolderDoc>()));
    m.set(row.token, row);
  }
  const storedPos = new Map(prior.stats.map((s) => [s.token, s.pos]));
  const stats = new Map(
    prior.stats.map((s) => [s.token, { holders: s.holders, total: parseAmount(s.totalBalance), pos: s.pos }]),
  );
  const changedStats = new Set<number>();
  /** Every (address → tokens) pair whose row may have to change: stored or written. */
  const touched = new Map<string, Set<number>>();

  for (const w of writes) {
    const before = held.get(w.address) ?? new Map<number, HolderDoc>();
    const after = holdingsOf(w.address, w.balances, w.pos);
    // A holding this write left as it was keeps its row, and the position it last changed at: a
    // wallet write lists every token, and rewriting all of a large holder's rows for one transfer
    // would multiply the writes by its token count.
    for (const [token, n] of after) {
      const o = before.get(token);
      if (o && sameHolding(o, n)) after.set(token, o);
    }
    const tokens = new Set([...before.keys(), ...after.keys()]);
    let t = touched.get(w.address);
    if (!t) touched.set(w.address, (t = new Set()));
    for (const token of tokens) {
      t.add(token);
      if ((storedPos.get(token) ?? '') >= w.pos) continue;
      const o = before.get(token);
      const n = after.get(token);
      const dHolders = (n ? 1 : 0) - (o ? 1 : 0);
      const dTotal = parseAmount(n?.balance) - parseAmount(o?.balance);
      if (dHolders === 0 && dTotal === 0n) continue;
      const s = stats.get(token) ?? { holders: 0, total: 0n, pos: '' };
      s.holders += dHolders;
      s.total += dTotal;
      s.pos = w.pos;
      if (s.holders < 0 || s.total < 0n)
        throw new Error(`holder stats of token ${token} went negative at ${w.pos}: the stored state is inconsistent`);
      stats.set(token, s);
      changedStats.add(token);
    }
    held.set(w.address, after);
  }

  const statWrites: Write[] = [...changedStats]
    .sort((a, b) => a - b)
    .map((token) => {
      const s = stats.get(token)!;
      const doc: HolderStatsDoc = {
        _id: String(token),
        token,
        holders: s.holders,
        totalBalance: formatAmount(s.total),
        pos: s.pos,
      };
      return { op: 'putIfNewer', collection: holderStats.name, doc };
    });
  const storedRows = new Map(prior.rows.map((r) => [r._id, r]));
  const rowWrites: Write[] = [];
  for (const [address, tokens] of touched) {
    const now = held.get(address)!;
    for (const token of [...tokens].sort((a, b) => a - b)) {
      const row = now.get(token);
      const stored = storedRows.get(holderId(token, address));
      // Unchanged since the store's copy (the same object, carried through), or never stored.
      if (row === stored || (!row && !stored)) continue;
      rowWrites.push(
        row
          ? { op: 'put', collection: holders.name, doc: row }
          : { op: 'delete', collection: holders.name, id: holderId(token, address) },
      );
    }
  }
  return { stats: statWrites, rows: rowWrites };
}

// ---------------------------------------------------------------- queries

/** A page of a token's holders, by balance descending (as integers), then address. */
export function holdersPage(
  c: Collection<HolderDoc>,
  token: number,
  page: { skip: number; limit: number },
): Promise<HolderDoc[]> {
  return c.find(
    { token },
    {
      sort: [
        ['rank', -1],
        ['address', 1],
      ],
      skip: page.skip,
      limit: page.limit,
    },
  );
}

/** An address's holdings, every token. */
export function holdingsOfAddress(c: Collection<HolderDoc>, address: string): Promise<HolderDoc[]> {
  return c.find({ address }, { sort: [['token', 1]] });
}

/** Rows of a token with a lock still ahead of `now`, at most `max`. */
export function lockedHolders(c: Collection<HolderDoc>, token: number, now: number, max: number): Promise<HolderDoc[]> {
  return c.find(
    { token, lockUntil: { $gt: now } },
    {
      sort: [
        ['lockUntil', 1],
        ['address', 1],
      ],
      limit: max,
    },
  );
}

/** The locks of a row that are still ahead of `now`. */
export function activeLocks(row: Pick<HolderDoc, 'locks'>, now: number): HolderLock[] {
  return row.locks.filter((l) => l.unlockdate > now);
}
