import { parseNftId } from '@mtc/domain';
import { nftActivity, seriesRows, seriesTotal, type Models, type NftActivityDoc } from '@mtc/read-models';
import { z } from 'zod';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { intParam } from '../../params.ts';
import { defineRoute } from '../../route.ts';
import { CollectionOrMrc402IdParam, NftIdParam } from './nfts.ts';
import { NftHistory, NftTxPage } from './schemas.ts';

const VERBS: Record<string, string> = {
  nftCreate: 'Create',
  nftUpdate: 'Update',
  nftMint: 'Mint',
  nftBurn: 'Burn',
  nftTransfer: 'Transfer',
  nftMelt: 'Melt',
  nftSell: 'Sell',
  nftSellCancel: 'Sell Cancel',
  nftBuy: 'Buy',
  nftAuction: 'Auction',
  nftAuctionCancel: 'Auction Cancel',
  nftBid: 'Bid',
  nftAuctionFinish: 'Auction Finish',
};

const verb = (row: NftActivityDoc): string => VERBS[row.kind] ?? row.kind;
const label = (row: NftActivityDoc): string => `${row.protocol.replace('MRC', 'MRC-')} ${verb(row)}`;

/** The NFT exists (its record is indexed), else a 404. */
async function requireNft(models: Models, id: string): Promise<void> {
  const nft = parseNftId(id);
  const found =
    nft?.protocol === 'MRC400'
      ? await models.nftCollections.get(id)
      : nft?.protocol === 'MRC401'
        ? await models.nftItems.get(id)
        : await models.mrc402s.get(id);
  if (!found) throw notFound(`NFT ${id} not found`);
}

export const NftTxQuery = pagingQuery(MAX_LIST_LIMIT, 'newest first').extend({
  cursor: CursorQuery,
  id: NftIdParam.describe('The NFT.'),
});

export const nftTxRoute = defineRoute({
  path: '/api/nft-tx',
  operationId: 'listNftTransactions',
  tag: 'nfts',
  summary: "An NFT's transactions, newest first",
  description: `A collection's list holds its own entries and its items'; an item's, its history from its minting on; an MRC-402's, its whole lifecycle (mint, transfer, sales, auctions, melts …). Numbered at projection time: page p is the rows of one range of numbers, read by key; total a counter. ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}.`,
  query: NftTxQuery,
  response: NftTxPage,
  errors: [400, 404],
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const [, total] = await Promise.all([
      requireNft(models, query.id),
      seriesTotal(models.seriesCounters, nftActivity, query.id),
    ]);
    const { from, to, next, prev } = cursorPage(query.id, { first: 1, last: total }, query);
    const rows = await seriesRows(models.nftActivity, query.id, { from, to, newestFirst: true });
    return {
      total,
      next,
      prev,
      items: rows.map((r) => ({
        txid: r.txId,
        type: label(r),
        from: r.from,
        to: r.to,
        amount: r.amount,
        timestamp: r.timestamp,
        block: r.height,
        raw: { type: r.jobType, ukey: r.nftId },
      })),
    };
  },
});

/** The most entries /nft-history returns (it has no paging in the spec): the first ones, from creation. */
export const HISTORY_MAX = 1_000;

export const NftHistoryQuery = z.object({
  id: CollectionOrMrc402IdParam,
  limit: intParam(1, HISTORY_MAX).default(HISTORY_MAX).describe(`Entries from creation on, at most ${HISTORY_MAX}.`),
  cursor: CursorQuery,
});

export const nftHistoryRoute = defineRoute({
  path: '/api/nft-history',
  operationId: 'getNftHistory',
  tag: 'nfts',
  summary: "An NFT's history in chronological order from its creation",
  description: `MRC-400: the collection's creation and its items' minting, transfers and sales (itemId, itemName); MRC-402: its whole lifecycle (block). total counts every entry; history holds the first limit of them (at most ${HISTORY_MAX}), oldest first; the next cursor gives the limit entries after them, and so on to the newest (prev: the ones before). A cursor names an entry number, which an entry keeps for good.`,
  query: NftHistoryQuery,
  response: NftHistory,
  errors: [400, 404],
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const [, total] = await Promise.all([
      requireNft(models, query.id),
      seriesTotal(models.seriesCounters, nftActivity, query.id),
    ]);
    const { from, to, next, prev } = cursorPage(
      `history:${query.id}`,
      { first: 1, last: total },
      { page: 1, limit: query.limit, cursor: query.cursor },
      { oldestFirst: true },
    );
    const rows = await seriesRows(models.nftActivity, query.id, { from, to });
    const collection = query.id.startsWith('MRC400_') ? await models.nftCollections.get(query.id) : null;
    return {
      total,
      next,
      prev,
      history: rows.map((r) => ({
        txid: r.txId,
        type: r.kind === 'nftCreate' ? label(r) : verb(r),
        from: r.from,
        to: r.to,
        ...(r.price === '' ? {} : { price: r.price }),
        timestamp: r.timestamp,
        amount: r.amount,
        ...(collection
          ? { itemId: r.nftId === query.id ? '' : r.nftId, itemName: r.nftId === query.id ? '' : collection.name }
          : { block: r.height }),
      })),
    };
  },
});
