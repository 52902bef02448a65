import { amountSortKey, formatAmount, parseAmount, type WalletState } from '@mtc/domain';
import type { Collection, Write } from '@mtc/ports';
import { signedAmount } from '../holders/holders.ts';
import { holdingAsset } from '../holders/changes.ts';
import { projectHoldings, type HoldingsSpec } from '../holders/keyed.ts';
import { defineModel } from '../model.ts';
import {
  addressOfKey,
  rankedRows,
  rankKey,
  type RankedLists,
  type RankedRows,
  type RankedSeek,
  type RankMove,
} from '../holders/ranked.ts';

/**
 * MRC-402 holders: one row per (MRC-402, address) whose wallet lists it with a non-zero balance,
 * sale or auction amount (the wallet's `mrc402` map, as the chain wrote it), and per MRC-402 its
 * holder count and `total` (Σ balance + sale + auction: what its holders hold, escrow included),
 * maintained at projection time from the block topic (see `projectHoldings`).
 */
export type NftHolderDoc = {
  /** `<MRC402 id>:<address>`. */
  _id: string;
  nftId: string;
  address: string;
  balance: string;
  saleamount: string;
  auctionamount: string;
  /** balance + saleamount + auctionamount. */
  total: string;
  /** `total` zero-padded: string order is numeric order. */
  rank: string;
  /** The wallet write that last changed this holding. */
  pos: string;
};

export type NftHolderStatsDoc = {
  /** The MRC-402 id. */
  _id: string;
  nftId: string;
  holders: number;
  total: string;
  pos: string;
};

export const nftHolders = defineModel<NftHolderDoc>('nft_holders', [
  {
    fields: [
      ['nftId', 1],
      ['rank', -1],
      ['address', 1],
    ],
  },
  {
    fields: [
      ['address', 1],
      ['nftId', 1],
    ],
  },
]);
export const nftHolderStats = defineModel<NftHolderStatsDoc>('nft_holder_stats');

export const nftHolderId = (nftId: string, address: string): string => `${nftId}:${address}`;

/** What a wallet holds of each MRC-402 after a write at `pos`. */
export function mrc402HoldingsOf(
  address: string,
  mrc402: WalletState['mrc402'],
  pos: string,
): Map<string, NftHolderDoc> {
  const out = new Map<string, NftHolderDoc>();
  for (const [nftId, h] of Object.entries(mrc402 ?? {})) {
    const total = parseAmount(h.balance) + signedAmount(h.saleamount) + signedAmount(h.auctionamount);
    if (h.balance === '0' && h.saleamount === '0' && h.auctionamount === '0') continue;
    out.set(nftId, {
      _id: nftHolderId(nftId, address),
      nftId,
      address,
      balance: h.balance,
      saleamount: h.saleamount,
      auctionamount: h.auctionamount,
      total: total.toString(),
      rank: amountSortKey(total > 0n ? total : 0n),
      pos,
    });
  }
  return out;
}

const MRC402_HOLDINGS: HoldingsSpec<string, NftHolderDoc> = {
  what: 'MRC-402',
  assetOf: (row) => row.nftId,
  rowId: nftHolderId,
  amountOf: (row) => signedAmount(row.total),
  same: (a, b) => a.balance === b.balance && a.saleamount === b.saleamount && a.auctionamount === b.auctionamount,
  compareAssets: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  statsWrite: (s) => {
    const doc: NftHolderStatsDoc = {
      _id: s.asset,
      nftId: s.asset,
      holders: s.holders,
      total: formatAmount(s.total),
      pos: s.pos,
    };
    return { op: 'putIfNewer', collection: nftHolderStats.name, doc };
  },
  rowsCollection: nftHolders.name,
  changeAsset: (id) => holdingAsset('mrc402', id),
  listedAs: (id, row) => new Map([[holdingAsset('mrc402', id), rankKey(row.rank, row.address)]]),
};

/** A wallet write of the batch as its MRC-402 holdings, in chain order. */
export interface Mrc402WalletWrite {
  pos: string;
  address: string;
  /** The holdings of the MRC-402s it covers. */
  mrc402: WalletState['mrc402'];
  /** The MRC-402 ids whose holdings `mrc402` gives; absent: every id (the whole wallet). */
  covers?: { nfts: ReadonlySet<string> };
}

/** The MRC-402 holder writes of a batch: `stats`, then `rows` (each durable before the next). */
export function projectNftHolders(
  writes: readonly Mrc402WalletWrite[],
  prior: { rows: readonly NftHolderDoc[]; stats: readonly NftHolderStatsDoc[] },
): { stats: Write[]; rows: Write[]; changes: Write[]; moves: RankMove[] } {
  return projectHoldings(
    MRC402_HOLDINGS,
    writes.map((w) => ({
      pos: w.pos,
      address: w.address,
      after: mrc402HoldingsOf(w.address, w.mrc402, w.pos),
      covers: w.covers?.nfts,
    })),
    {
      rows: prior.rows,
      stats: prior.stats.map((s) => ({ asset: s.nftId, holders: s.holders, total: parseAmount(s.total), pos: s.pos })),
    },
  );
}

/** A page of an MRC-402's holders, by total descending, then address (see `holdersPage`). */
export function nftHoldersPage(
  models: RankedLists & { nftHolders: Collection<NftHolderDoc> },
  nftId: string,
  seek: RankedSeek,
  limit: number,
): Promise<RankedRows<NftHolderDoc> | null> {
  return rankedRows(
    models,
    holdingAsset('mrc402', nftId),
    {
      rows: models.nftHolders,
      idOf: (k) => nftHolderId(nftId, addressOfKey(k)),
      keyOf: (row) => rankKey(row.rank, row.address),
    },
    seek,
    limit,
  );
}
