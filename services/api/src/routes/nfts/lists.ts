import { collectionItemsKey, nftLists, seriesRows, seriesTotal, type Models } from '@mtc/read-models';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { mrc402Quantity } from './holders.ts';
import { CollectionIdParam, itemImage } from './nfts.ts';
import { NftItemListEntry, NftItemsPage, NftListEntry, NftsPage } from './schemas.ts';

/** A page of a list key of `nft_lists`, newest first, by page or cursor. */
async function listPage(models: Models, key: string, query: { page: number; limit: number; cursor?: string }) {
  const total = await seriesTotal(models.seriesCounters, nftLists, key);
  const { from, to, page, next, prev } = cursorPage(key, { first: 1, last: total }, query);
  return { total, page, next, prev, rows: await seriesRows(models.nftLists, key, { from, to, newestFirst: true }) };
}

/** A decimal price as the spec's number (0 when none). */
const price = (value: string): number => (value === '' ? 0 : Number(value));

export const NftsQuery = pagingQuery(MAX_LIST_LIMIT, 'newest first').extend({
  cursor: CursorQuery,
  protocol: z
    .enum(['MRC402', 'MRC401', ''])
    .default('')
    .describe('MRC402, MRC401 (MRC-400 collections, whose items are the MRC-401s), or empty for both.'),
});

export const listNftsRoute = defineRoute({
  path: '/api/nfts',
  operationId: 'listNfts',
  tag: 'nfts',
  summary: 'NFTs — MRC-400 collections and MRC-402s — newest first',
  description: `Numbered by creation at projection time: page p is the rows of one range of numbers, read by key; total a counter. An unknown protocol is a 400. ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}.`,
  query: NftsQuery,
  response: NftsPage,
  errors: [400],
  // Every entry is a collection or an MRC-402: ids each of these takes.
  links: linksTo(['getNft', 'listNftHolders', 'getNftHistory', 'listNftTransactions', 'getNftImage'], {
    id: '$response.body#/items/0/id',
  }),
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const { total, page, next, prev, rows } = await listPage(
      models,
      query.protocol === '' ? 'all' : query.protocol,
      query,
    );
    const ids = (protocol: string) => rows.filter((r) => r.protocol === protocol).map((r) => r.nftId);
    const [collections, tokens, stats] = await Promise.all([
      models.nftCollections.getMany(ids('MRC400')),
      models.mrc402s.getMany(ids('MRC402')),
      models.collectionStats.getMany(ids('MRC400')),
    ]);
    const byId = <T extends { _id: string }>(docs: T[]) => new Map(docs.map((d) => [d._id, d]));
    const c = byId(collections);
    const t = byId(tokens);
    const s = byId(stats);
    return {
      total,
      page,
      limit: query.limit,
      next,
      prev,
      items: rows.flatMap((r): z.infer<typeof NftListEntry>[] => {
        const collection = c.get(r.nftId);
        if (collection)
          return [
            {
              protocol: 'MRC401' as const,
              id: collection.id,
              name: collection.name,
              image: collection.image_url,
              item_image_url: collection.item_image_url,
              creator: r.creator,
              owner: collection.owner,
              totalsupply: mrc402Quantity(String(s.get(r.nftId)?.items ?? 0)),
              createdate: collection.createdate,
              category: collection.category,
              url: collection.url,
            },
          ];
        const token = t.get(r.nftId);
        if (token)
          return [
            {
              protocol: 'MRC402' as const,
              id: token.id,
              name: token.name,
              image: token.image,
              item_image_url: '',
              creator: token.creator,
              owner: token.creator,
              totalsupply: mrc402Quantity(token.totalsupply),
              createdate: r.timestamp,
              category: '',
              url: token.url,
            },
          ];
        // Numbered by the block topic but not yet put by the state topic (the two are consumed apart).
        return [];
      }),
    };
  },
});

export const NftItemsQuery = pagingQuery(MAX_LIST_LIMIT, 'newest first').extend({
  cursor: CursorQuery,
  id: CollectionIdParam,
});

export const listNftItemsRoute = defineRoute({
  path: '/api/nft-items',
  operationId: 'listNftItems',
  tag: 'nfts',
  summary: "A collection's MRC-401 items, newest first",
  description: `Numbered by creation at projection time (melted items keep their place, owner MELTED). Prices are numbers, 0 when not offered. ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}.`,
  query: NftItemsQuery,
  response: NftItemsPage,
  errors: [400, 404],
  links: linksTo(['getNft', 'listNftTransactions', 'getNftImage'], { id: '$response.body#/items/0/id' }),
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const collection = await models.nftCollections.get(query.id);
    if (!collection) throw notFound(`collection ${query.id} not found`);
    const { total, page, next, prev, rows } = await listPage(models, collectionItemsKey(query.id), query);
    const items = new Map((await models.nftItems.getMany(rows.map((r) => r.nftId))).map((i) => [i._id, i]));
    return {
      total,
      page,
      limit: query.limit,
      next,
      prev,
      items: rows.flatMap((r): z.infer<typeof NftItemListEntry>[] => {
        const item = items.get(r.nftId);
        if (!item) return [];
        return [
          {
            id: item.id,
            name: collection.name,
            image: itemImage(item, collection),
            owner: item.owner,
            createdate: item.createdate,
            job_type: item.jobType,
            transferable: item.transferable,
            sellPrice: item.sell_date > 0 ? price(item.sell_price) : 0,
            sellToken: item.sell_token,
            auctionStartPrice: item.auction_date > 0 ? price(item.auction_start_price) : 0,
            auctionCurrentPrice: item.auction_date > 0 ? price(item.auction_current_price) : 0,
          },
        ];
      }),
    };
  },
});
