import { formatAmount, parseAmount } from '@mtc/domain';
import type { CollectionHolderDoc } from '../nfts/collection-holders.ts';
import type { NftHolderDoc } from '../nfts/holders.ts';
import { activeLocks, type HolderDoc, type HolderLock } from './holders.ts';

/**
 * Holder rows as readers see them (the spec's "Token holder" and "NFT holder"): one mapping shared
 * by the API's pages and the snapshot files, so both show a holding the same way.
 */
export type TokenHolderView = {
  address: string;
  balance: string;
  token: number;
  lock_balance: string;
  unlockdate: number;
  locks: HolderLock[];
};

export type NftHolderView = {
  address: string;
  amount: string;
  sellAmount: string;
  auctionAmount: string;
  total: string;
  ratio: string;
};

/** The part of a holder row still locked at `now` (unix seconds): an entry is locked while its unlock date is ahead. */
export function lockedPart(
  row: Pick<HolderDoc, 'locks'>,
  now: number,
): { lock_balance: string; unlockdate: number; locks: HolderLock[] } {
  const locks = activeLocks(row, now);
  return {
    lock_balance: formatAmount(locks.reduce((sum, l) => sum + parseAmount(l.amount), 0n)),
    unlockdate: locks.reduce((latest, l) => Math.max(latest, l.unlockdate), 0),
    locks: locks.map((l) => ({ amount: l.amount, unlockdate: l.unlockdate })),
  };
}

/** A token holder at `now`: what is locked depends on the reader's clock. */
export function tokenHolderView(row: HolderDoc, now: number): TokenHolderView {
  return { address: row.address, balance: row.balance, token: row.token, ...lockedPart(row, now) };
}

/** MRC-402 quantities as the spec shows them: decimal strings with 10 fractional digits. */
export function mrc402Quantity(integer: string): string {
  return `${integer}.0000000000`;
}

/** `part` as a percentage of `whole` with 4 decimals, rounded down, in integer arithmetic ("0.0000" for 0/0). */
export function percent(part: bigint, whole: bigint): string {
  if (whole <= 0n || part <= 0n) return '0.0000';
  const scaled = (part * 1_000_000n) / whole;
  const text = scaled.toString().padStart(5, '0');
  return `${text.slice(0, -4)}.${text.slice(-4)}`;
}

/** An MRC-402 holder; `whole` = what all its holders hold (the stats' total). */
export function mrc402HolderView(row: NftHolderDoc, whole: bigint): NftHolderView {
  return {
    address: row.address,
    amount: mrc402Quantity(row.balance),
    sellAmount: mrc402Quantity(row.saleamount),
    auctionAmount: mrc402Quantity(row.auctionamount),
    total: mrc402Quantity(row.total),
    ratio: percent(BigInt(row.total), whole),
  };
}

/** An MRC-400 collection holder (item counts); `whole` = the collection's items held. */
export function collectionHolderView(row: CollectionHolderDoc, whole: bigint): NftHolderView {
  // Rows projected before offers were counted have no sale/auction: read as none.
  const sale = row.sale ?? 0;
  const auction = row.auction ?? 0;
  return {
    address: row.address,
    amount: String(row.count - sale - auction),
    sellAmount: String(sale),
    auctionAmount: String(auction),
    total: String(row.count),
    ratio: percent(BigInt(row.count), whole),
  };
}
