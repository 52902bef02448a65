import { parseNftId } from '@mtc/domain';
import { collectionHoldersPage, nftHoldersPage, type CollectionHolderDoc, type NftHolderDoc } from '@mtc/read-models';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { defineRoute } from '../../route.ts';
import { CollectionOrMrc402IdParam } from './nfts.ts';
import { NftHoldersPage, type NftHolder } from './schemas.ts';

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

/** An MRC-402 holder row as /nft-holders and the holder export give it; `whole` is what all holders hold. */
export function toMrc402Holder(r: NftHolderDoc, whole: bigint): NftHolder {
  return {
    address: r.address,
    amount: mrc402Quantity(r.balance),
    sellAmount: mrc402Quantity(r.saleamount),
    auctionAmount: mrc402Quantity(r.auctionamount),
    total: mrc402Quantity(r.total),
    ratio: percent(BigInt(r.total), whole),
  };
}

/** A collection holder row as /nft-holders and the holder export give it; `whole` is the items held. */
export function toCollectionHolder(r: CollectionHolderDoc, whole: bigint): NftHolder {
  // Rows projected before offers were counted have no sale/auction: read as none.
  return {
    address: r.address,
    amount: String(r.count - (r.sale ?? 0) - (r.auction ?? 0)),
    sellAmount: String(r.sale ?? 0),
    auctionAmount: String(r.auction ?? 0),
    total: String(r.count),
    ratio: percent(BigInt(r.count), whole),
  };
}

export const NftHoldersQuery = pagingQuery(MAX_LIST_LIMIT, 'largest holding first').extend({
  id: CollectionOrMrc402IdParam,
});

export const nftHoldersRoute = defineRoute({
  path: '/api/nft-holders',
  operationId: 'listNftHolders',
  tag: 'nfts',
  summary: "An MRC-400 collection's or an MRC-402's holders, largest holding first",
  description: `Counts and totals are maintained at projection time. MRC-400: one row per address owning items of the collection (amounts are item counts; melted items are held by nobody); MRC-402: one row per wallet holding it (balance, sale and auction escrow, 10 fractional digits). ratio = total over what all holders hold, as a percentage with 4 decimals. Page p skips (p−1)·limit holders; limit is at most ${MAX_LIST_LIMIT}.`,
  query: NftHoldersQuery,
  response: NftHoldersPage,
  errors: [400, 404],
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const nft = parseNftId(query.id);
    const skip = (query.page - 1) * query.limit;
    if (nft?.protocol === 'MRC402') {
      const [token, stats, rows] = await Promise.all([
        models.mrc402s.get(query.id),
        models.nftHolderStats.get(query.id),
        nftHoldersPage(models.nftHolders, query.id, { skip, limit: query.limit }),
      ]);
      if (!token) throw notFound(`MRC-402 ${query.id} not found`);
      const whole = BigInt(stats?.total ?? '0');
      return {
        total: stats?.holders ?? 0,
        total_balance: mrc402Quantity(stats?.total ?? '0'),
        holders: rows.map((r) => toMrc402Holder(r, whole)),
      };
    }
    const [collection, stats, rows] = await Promise.all([
      models.nftCollections.get(query.id),
      models.collectionStats.get(query.id),
      collectionHoldersPage(models.collectionHolders, query.id, { skip, limit: query.limit }),
    ]);
    if (!collection) throw notFound(`collection ${query.id} not found`);
    const whole = BigInt(stats?.items ?? 0);
    return {
      nftId: query.id,
      total: stats?.holders ?? 0,
      total_balance: String(stats?.items ?? 0),
      page: query.page,
      limit: query.limit,
      holders: rows.map((r) => toCollectionHolder(r, whole)),
    };
  },
});
