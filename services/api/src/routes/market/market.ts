import { blockPos } from '@mtc/domain';
import {
  marketTrades,
  payTokenSuffix,
  seriesRowsBetween,
  SeriesList,
  type MarketOrderDoc,
  type MarketProtocol,
  type MarketSide,
  type Models,
} from '@mtc/read-models';
import type { Filter } from '@mtc/ports';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { blockSpan } from '../../activity-filter.ts';
import { CURSOR_DOC, cursorPage, CursorQuery, rankedCursors, rankedSeek } from '../../cursor.ts';
import { keysetKey, keysetPage, type KeysetOrder } from '../../keyset.ts';
import { badRequest, notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { AddressParam, TokenIdParam } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { MarketOrder, MarketOrdersPage, MarketStats, MarketTradesPage } from './schemas.ts';
import { AssetParam, COLLECTION, toOrder, toTrade } from './views.ts';

/**
 * The DEX market (read-models `market/`): open orders by asset, side and owner, one order, an asset's
 * trades and its volume per pay token. Orders and stats are the records as written at the head;
 * trades a numbered series, so their pages and cursors cost what every list's do.
 */
const protocolOf = (asset: string): MarketProtocol =>
  asset.startsWith('MRC402_') ? 'MRC402' : asset.startsWith('MRC400_') ? 'MRC401' : 'MRC010';

/** 404 unless the asset exists at the head. */
async function requireAsset(models: Models, asset: string): Promise<void> {
  const protocol = protocolOf(asset);
  const found =
    protocol === 'MRC010'
      ? await models.tokens.get(asset)
      : protocol === 'MRC402'
        ? await models.mrc402s.get(asset)
        : await models.nftCollections.get(asset);
  if (!found) throw notFound(`asset ${asset} not found`);
}

/** Deeper than this, open-order lists are refused: they page by offset over their index. */
const MAX_ORDER_WINDOW = 10_000;

export const MarketOrdersQuery = pagingQuery(MAX_LIST_LIMIT, 'as `side` orders them').extend({
  cursor: CursorQuery,
  asset: AssetParam.optional(),
  owner: AddressParam.optional().describe('Only orders of this address (the seller, or the buyer of a request).'),
  side: z.enum(['sell', 'buy', 'auction']).optional().describe('Only sales, requests to buy, or auctions.'),
  payToken: TokenIdParam.optional().describe('Only orders priced in this MRC-010 token.'),
});

export const marketOrdersRoute = defineRoute({
  path: '/api/market/orders',
  operationId: 'listMarketOrders',
  tag: 'market',
  summary: 'Open DEX orders of an asset or an address',
  description: `Open sales, requests to buy and auctions (optionally in one payToken): of an asset (MRC-010 token, MRC-402, or a collection's MRC-401 items), of an owner, or both; asset or owner is required (else 400). With asset and side, best first: sales by price per unit ascending, requests by price per unit descending, auctions by expiry ascending, ties by id ascending; otherwise newest first (createdAt, ties by id descending). Paged by page and limit up to ${MAX_ORDER_WINDOW} orders deep (page × limit; beyond: 400), or by cursor at any depth: each answer has next and prev cursors (the pages after and before it in this order); pass one as cursor, with the same filters and any limit. A cursor names an order by its place in the order (price or time, then id), so orders arriving above it do not shift it and a deep page costs what page 1 does; an order that closes or changes price between two pages may move across it. A cursor of other filters is a 400.`,
  query: MarketOrdersQuery,
  response: MarketOrdersPage,
  errors: [400, 404],
  links: linksTo(['getMarketOrder'], { id: '$response.body#/items/0/id' }),
  cache: 'head',
  async handle({ query }, app) {
    const { asset, owner, side, limit } = query;
    if (asset === undefined && owner === undefined) throw badRequest('asset or owner is required');
    if (query.cursor === undefined && query.page * limit > MAX_ORDER_WINDOW)
      throw badRequest(`page × limit is at most ${MAX_ORDER_WINDOW}: deeper, page by cursor`);
    const filter: Filter<MarketOrderDoc> = { open: true };
    if (asset !== undefined) filter.asset = asset;
    if (owner !== undefined) filter.owner = owner;
    if (side !== undefined) filter.side = side;
    if (query.payToken !== undefined) filter.payToken = query.payToken;
    const best = asset !== undefined && owner === undefined && side !== undefined;
    const order: KeysetOrder<MarketOrderDoc> = best ? { field: 'rank', dir: 1 } : { field: 'createdAt', dir: -1 };
    const list = `orders:${createHash('sha256').update(JSON.stringify(filter)).digest('base64url').slice(0, 16)}`;
    const seek = rankedSeek(list, query);
    const [total, { docs, start }] = await Promise.all([
      app.models.marketOrders.count(filter),
      keysetPage(app.models.marketOrders, filter, order, seek, limit),
      asset === undefined ? undefined : requireAsset(app.models, asset),
    ]);
    const keys = docs.map((d) => keysetKey(order, d));
    const { page, next, prev } = rankedCursors(list, { keys, start, size: total }, query);
    return { total, page, limit, items: docs.map(toOrder), next, prev };
  },
});

const ORDER_ID = `(?:DEX(?:010|402)_[0-9a-f]{32}[0-9]|${COLLECTION}_[A-Za-z0-9]{40})`;

export const marketOrderRoute = defineRoute({
  path: '/api/market/order/{id}',
  operationId: 'getMarketOrder',
  tag: 'market',
  summary: 'One DEX order, in any status, or an MRC-401 item while offered',
  params: z.object({
    id: z
      .string()
      .regex(new RegExp(`^${ORDER_ID}$`), 'must be a DEX010_… or DEX402_… order id, or an MRC-401 item id')
      .describe('A DEX010_…/DEX402_… order, or an MRC400_…_… item.'),
  }),
  response: MarketOrder,
  errors: [400, 404],
  cache: 'head',
  async handle({ params }, app) {
    const doc = await app.models.marketOrders.get(params.id);
    if (!doc) throw notFound(`order ${params.id} not found (an item is an order only while offered)`);
    return toOrder(doc);
  },
});

export const MarketTradesQuery = pagingQuery(MAX_LIST_LIMIT, 'newest first').extend({
  cursor: CursorQuery,
  asset: AssetParam,
  payToken: TokenIdParam.optional().describe('Only trades paid in this MRC-010 token.'),
});

export const marketTradesRoute = defineRoute({
  path: '/api/market/trades',
  operationId: 'listMarketTrades',
  tag: 'market',
  summary: "An asset's DEX trades, newest first",
  description: `Each settlement of a sale, a request to buy or an auction (won or bought out), numbered per asset at projection time; payToken picks the trades filed under that pay token, so a filtered page costs what an unfiltered one does. ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}.`,
  query: MarketTradesQuery,
  response: MarketTradesPage,
  errors: [400, 404],
  links: linksTo(['getMarketOrder'], { id: '$response.body#/items/0/orderId' }),
  cache: 'head',
  async handle({ query }, app) {
    const { models } = app;
    const suffix = query.payToken === undefined ? '' : payTokenSuffix(query.payToken);
    const [list] = await Promise.all([
      SeriesList.open(
        { rows: models.marketTrades, refs: models.seriesRefs, counters: models.seriesCounters },
        marketTrades,
        query.asset,
        suffix,
      ),
      requireAsset(models, query.asset),
    ]);
    const { from, to, page, next, prev } = cursorPage(list.key, { first: 1, last: list.total }, query);
    const rows = await list.rows({ from, to, newestFirst: true });
    return {
      total: list.total,
      page,
      limit: query.limit,
      next,
      prev,
      items: rows.map(toTrade),
    };
  },
});

const DAY = 86_400;

/**
 * The trades of `asset` in `payToken` in blocks from `lo` to `hi` but those of blocks `skipped`:
 * how many, and their value.
 */
async function tradedBetween(
  models: Models,
  asset: string,
  payToken: number,
  { lo, hi, skipped }: { lo: number; hi: number; skipped: ReadonlySet<number> },
) {
  const list = await SeriesList.open(
    { rows: models.marketTrades, refs: models.seriesRefs, counters: models.seriesCounters },
    marketTrades,
    asset,
    payTokenSuffix(payToken),
  );
  const window = await list.window({ after: blockPos(lo - 1), upTo: blockPos(hi) });
  let trades = 0;
  let volume = 0n;
  for await (const rows of seriesRowsBetween(list, window, 500))
    for (const r of rows) {
      if (skipped.has(r.height)) continue;
      trades += 1;
      volume += BigInt(r.value);
    }
  return { trades, volume: volume.toString() };
}

export const marketStatsRoute = defineRoute({
  path: '/api/market/stats',
  operationId: 'getMarketStats',
  tag: 'market',
  summary: "An asset's open orders by side, and its trading per pay token: all time and the last 24 hours",
  description:
    'Volume is Σ value (amount × price / unit; an auction: the winning bid) in the pay token. The 24 hours end at `time`, the block time at X-Indexed-Height: trades in blocks whose time is after time − 86,400 (block times are client times and may run backwards: an older block after a newer one is left out).',
  query: z.object({ asset: AssetParam }),
  response: MarketStats,
  errors: [400, 404],
  links: linksTo(['listMarketTrades', 'listMarketOrders'], { asset: '$response.body#/asset' }),
  cache: 'head',
  async handle({ query, head }, app) {
    const { models } = app;
    const { asset } = query;
    const count = (side: MarketSide) => models.marketOrders.count({ asset, open: true, side });
    const [{ height }, stats, sell, buy, auction] = await Promise.all([
      head(),
      models.marketStats.find({ asset }, { sort: [['payToken', 1]] }),
      count('sell'),
      count('buy'),
      count('auction'),
      requireAsset(models, asset),
    ]);
    const block = height > 0 ? await models.blocks.get(String(height)) : null;
    const time = block?.timestamp ?? 0;
    const from = time - DAY + 1;
    const span = height > 0 ? await blockSpan(models, 1, height, { fromTime: from }) : null;
    // Block times are client times and may run backwards: blocks after the first one of the 24 hours
    // may be older than them, and their trades are not of the 24 hours.
    const older = span
      ? await models.blocks.find({ height: { $gte: span.lo, $lte: span.hi }, timestamp: { $lt: from } })
      : [];
    const skipped = new Set(older.map((b) => b.height));
    const payTokens = await Promise.all(
      stats.map(async (s) => {
        const day = span
          ? await tradedBetween(models, asset, s.payToken, { ...span, skipped })
          : { trades: 0, volume: '0' };
        return {
          payToken: s.payToken,
          trades: s.trades,
          volume: s.volume,
          trades24h: day.trades,
          volume24h: day.volume,
          lastPrice: s.lastPrice,
          lastUnit: s.lastUnit,
          lastTime: s.lastTime,
        };
      }),
    );
    return { asset, protocol: protocolOf(asset), time, orders: { sell, buy, auction }, payTokens };
  },
});
