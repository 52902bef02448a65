import { parseNftId } from '@mtc/domain';
import {
  collectionHolderView,
  collectionHoldersPage,
  mrc402HolderView,
  mrc402Quantity,
  nftHoldersPage,
  percent,
} from '@mtc/read-models';
import { whole } from '../../consistent.ts';
import { CursorQuery, RANKED_CURSOR_DOC, rankedCursors, rankedSeek } from '../../cursor.ts';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { defineRoute } from '../../route.ts';
import { CollectionOrMrc402IdParam } from './nfts.ts';
import { NftHoldersPage } from './schemas.ts';

/** Shared with the snapshot files (read-models `holders/views.ts`). */
export { mrc402Quantity, percent };

export const NftHoldersQuery = pagingQuery(MAX_LIST_LIMIT, 'largest holding first').extend({
  id: CollectionOrMrc402IdParam,
  cursor: CursorQuery,
});

export const nftHoldersRoute = defineRoute({
  path: '/api/nft-holders',
  operationId: 'listNftHolders',
  tag: 'nfts',
  summary: "An MRC-400 collection's or an MRC-402's holders, largest holding first",
  description: `Counts and totals are maintained at projection time. MRC-400: one row per address owning items of the collection (amounts are item counts; melted items are held by nobody); MRC-402: one row per wallet holding it (balance, sale and auction escrow, 10 fractional digits). ratio = total over what all holders hold, as a percentage with 4 decimals. Page p skips (p−1)·limit holders; limit is at most ${MAX_LIST_LIMIT}. ${RANKED_CURSOR_DOC}`,
  query: NftHoldersQuery,
  response: NftHoldersPage,
  errors: [400, 404],
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const nft = parseNftId(query.id);
    const list = `nft-holders:${query.id}`;
    const seek = rankedSeek(list, query);
    if (nft?.protocol === 'MRC402') {
      const [token, stats, rows] = await Promise.all([
        models.mrc402s.get(query.id),
        models.nftHolderStats.get(query.id),
        nftHoldersPage(models, query.id, seek, query.limit),
      ]);
      if (!token) throw notFound(`MRC-402 ${query.id} not found`);
      const all = BigInt(stats?.total ?? '0');
      const page = whole(rows, 'the holder list');
      const { next, prev } = rankedCursors(list, page, query);
      return {
        total: stats?.holders ?? 0,
        total_balance: mrc402Quantity(stats?.total ?? '0'),
        holders: page.rows.map((r) => mrc402HolderView(r, all)),
        next,
        prev,
      };
    }
    const [collection, stats, rows] = await Promise.all([
      models.nftCollections.get(query.id),
      models.collectionStats.get(query.id),
      collectionHoldersPage(models, query.id, seek, query.limit),
    ]);
    if (!collection) throw notFound(`collection ${query.id} not found`);
    const all = BigInt(stats?.items ?? 0);
    const listed = whole(rows, 'the holder list');
    const { page, next, prev } = rankedCursors(list, listed, query);
    return {
      nftId: query.id,
      total: stats?.holders ?? 0,
      total_balance: String(stats?.items ?? 0),
      page,
      limit: query.limit,
      holders: listed.rows.map((r) => collectionHolderView(r, all)),
      next,
      prev,
    };
  },
});
