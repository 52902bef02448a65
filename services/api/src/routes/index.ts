import { createOpenApiRoute } from '../openapi.ts';
import type { ApiRoute } from '../route.ts';
import { addressRoute, addressTxsRoute } from './addresses/addresses.ts';
import { blockRoute, listBlocksRoute, rawBlockRoute } from './blocks/blocks.ts';
import { chainRoute } from './chain/chain.ts';
import { EXPORT_ROUTES } from './exports/exports.ts';
import { createDocsRoutes } from './docs/docs.ts';
import { healthzRoute, readyzRoute } from './health/health.ts';
import { nftHistoryRoute, nftTxRoute } from './nfts/activity.ts';
import { nftHoldersRoute } from './nfts/holders.ts';
import { nftImageRoute } from './nfts/image.ts';
import { listNftItemsRoute, listNftsRoute } from './nfts/lists.ts';
import { nftRoute } from './nfts/nfts.ts';
import { marketOrderRoute, marketOrdersRoute, marketStatsRoute, marketTradesRoute } from './market/market.ts';
import { searchRoute } from './search/search.ts';
import { streamRoute } from './stream/stream.ts';
import { txStatsRoute } from './stats/stats.ts';
import { txTemplatesRoute } from './templates/templates.ts';
import { tokenHistoryRoute, tokenTxsRoute } from './tokens/activity.ts';
import { tokenHoldersRoute, tokenLocksRoute } from './tokens/holders.ts';
import { tokenImageRoute } from './tokens/image.ts';
import { listTokensRoute, mtcStatsRoute, tokenRoute } from './tokens/tokens.ts';
import { listTransactionsRoute, rawTxRoute, txRoute } from './txs/txs.ts';

/** Every route of the service, in the order the OpenAPI document lists them. */
export const FEATURE_ROUTES: readonly ApiRoute[] = [
  chainRoute,
  txStatsRoute,
  listBlocksRoute,
  blockRoute,
  rawBlockRoute,
  listTransactionsRoute,
  txRoute,
  rawTxRoute,
  txTemplatesRoute,
  addressRoute,
  addressTxsRoute,
  listTokensRoute,
  tokenRoute,
  tokenHoldersRoute,
  tokenTxsRoute,
  tokenHistoryRoute,
  tokenLocksRoute,
  tokenImageRoute,
  mtcStatsRoute,
  nftRoute,
  listNftItemsRoute,
  nftHoldersRoute,
  nftHistoryRoute,
  nftTxRoute,
  nftImageRoute,
  listNftsRoute,
  marketOrdersRoute,
  marketOrderRoute,
  marketTradesRoute,
  marketStatsRoute,
  searchRoute,
  ...EXPORT_ROUTES,
  streamRoute,
  healthzRoute,
  readyzRoute,
];

/**
 * The feature routes, /api/docs (whose renderer's files are found here, at start-up) and
 * /api/openapi.json, which documents all of them and itself.
 */
export function allRoutes(): ApiRoute[] {
  const documented = [...FEATURE_ROUTES, ...createDocsRoutes()];
  return [...documented, createOpenApiRoute(documented)];
}
