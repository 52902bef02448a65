import { amountSortKey, formatAmount, parseAmount, type BalanceEntry } from '@mtc/domain';
import type { Collection, Write } from '@mtc/ports';
import { defineModel } from '../model.ts';
import { holdingAsset } from './changes.ts';
import { projectHoldings, type HoldingsSpec } from './keyed.ts';
import {
  addressOfKey,
  lockKey,
  rankedRows,
  rankKey,
  type ListedRows,
  type RankedLists,
  type RankedRows,
  type RankedSeek,
  type RankMove,
} from './ranked.ts';

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
]);
export const holderStats = defineModel<HolderStatsDoc>('holder_stats');

export const holderId = (token: number, address: string): string => `${token}:${address}`;

/** Sale and auction escrow as written: an integer string, possibly negative; "" is 0. */
export function signedAmount(value: string): bigint {
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
  /** Every entry of the tokens it covers. */
  balances: readonly BalanceEntry[];
  /** The tokens whose holdings `balances` gives; absent: every token (the whole wallet). */
  covers?: { tokens: ReadonlySet<number> };
}

export interface HolderPrior {
  /**
   * Stored rows of every token the batch's writes cover, for every address they write (see
   * `resolveWallets`).
   */
  rows: readonly HolderDoc[];
  /** Stored stats of every token those rows and writes name (missing = none yet). */
  stats: readonly HolderStatsDoc[];
}

const MRC010_HOLDINGS: HoldingsSpec<number, HolderDoc> = {
  what: 'token',
  assetOf: (row) => row.token,
  rowId: holderId,
  amountOf: (row) => parseAmount(row.balance),
  same: sameHolding,
  compareAssets: (a, b) => a - b,
  statsWrite: (s) => {
    const doc: HolderStatsDoc = {
      _id: String(s.asset),
      token: s.asset,
      holders: s.holders,
      totalBalance: formatAmount(s.total),
      pos: s.pos,
    };
    return { op: 'putIfNewer', collection: holderStats.name, doc };
  },
  rowsCollection: holders.name,
  changeAsset: (token) => holdingAsset('mrc010', token),
  listedAs: (token, row) => {
    const lists = new Map([[holdingAsset('mrc010', token), rankKeyOf(row)]]);
    if (row.lockUntil > 0) lists.set(locksList(token), lockKeyOf(row));
    return lists;
  },
};

/**
 * The holder writes of a batch: `stats` first, then `rows`, each durable before the next (see
 * `projectHoldings` for why that keeps counts and totals exact under crashes and replays).
 */
export function projectHolders(
  writes: readonly WalletWrite[],
  prior: HolderPrior,
): { stats: Write[]; rows: Write[]; changes: Write[]; moves: RankMove[] } {
  return projectHoldings(
    MRC010_HOLDINGS,
    writes.map((w) => ({
      pos: w.pos,
      address: w.address,
      after: holdingsOf(w.address, w.balances, w.pos),
      covers: w.covers?.tokens,
    })),
    {
      rows: prior.rows,
      stats: prior.stats.map((s) => ({
        asset: s.token,
        holders: s.holders,
        total: parseAmount(s.totalBalance),
        pos: s.pos,
      })),
    },
  );
}

// ---------------------------------------------------------------- queries

/**
 * A page of a token's holders, by balance descending (as integers), then address, read through its
 * ranked list; null when read while a batch was written over it (see `rankedRows`).
 */
export function holdersPage(
  models: RankedLists & { holders: Collection<HolderDoc> },
  token: number,
  seek: RankedSeek,
  limit: number,
): Promise<RankedRows<HolderDoc> | null> {
  return rankedRows(models, holdingAsset('mrc010', token), tokenHolders(models, token, rankKeyOf), seek, limit);
}

const rankKeyOf = (row: HolderDoc): string => rankKey(row.rank, row.address);
const lockKeyOf = (row: HolderDoc): string => lockKey(row.lockUntil, row.address);

function tokenHolders(
  models: { holders: Collection<HolderDoc> },
  token: number,
  keyOf: (row: HolderDoc) => string,
): ListedRows<HolderDoc> {
  return { rows: models.holders, idOf: (k) => holderId(token, addressOfKey(k)), keyOf };
}

/** A token's holders with a dated entry, by their latest unlock date (expired ones stay listed). */
export const locksList = (token: number): string => `locks:mrc010:${token}`;

/**
 * A page of the rows of a token with a lock still ahead of `now`, soonest latest-unlock first, then
 * address, at most `max`, read through its list of locks (the list as if it began at `now`); null
 * as for `holdersPage`.
 */
export function lockedHolders(
  models: RankedLists & { holders: Collection<HolderDoc> },
  token: number,
  now: number,
  max: number,
  seek: RankedSeek = { skip: 0 },
): Promise<RankedRows<HolderDoc> | null> {
  return rankedRows(models, locksList(token), tokenHolders(models, token, lockKeyOf), seek, max, lockKey(now + 1, ''));
}

/** The locks of a row that are still ahead of `now`. */
export function activeLocks(row: Pick<HolderDoc, 'locks'>, now: number): HolderLock[] {
  return row.locks.filter((l) => l.unlockdate > now);
}
