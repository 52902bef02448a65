import type { CollectionSpec, ReadStore } from '@mtc/ports';
import { blocks, dailyTx, head, txs } from './chain/docs.ts';
import { sharedValues } from './shared-values.ts';
import { holdingChanges, type HoldingLog } from './holders/changes.ts';
import { holders, holderStats } from './holders/holders.ts';
import { rankDirs, rankPages } from './holders/ranked.ts';
import { collectionSpec, type AnyModel, type Opened } from './model.ts';
import { collectionHolders, collectionStats, itemOwners } from './nfts/collection-holders.ts';
import { nftHolders, nftHolderStats } from './nfts/holders.ts';
import { nftImages } from './nfts/images.ts';
import { mrc402s, nftCollections, nftItems } from './nfts/records.ts';
import { addressTxs } from './series/address-txs.ts';
import { seriesCounters, seriesRefs } from './series/series.ts';
import { nftActivity, nftLists } from './series/nft-activity.ts';
import { tokenHistory } from './series/token-history.ts';
import { tokenTxs } from './series/token-txs.ts';
import { tokenImages, tokens } from './tokens/tokens.ts';
import { wallets } from './wallets/wallets.ts';
import { marketOrders } from './market/orders.ts';
import { marketStats, marketTrades } from './market/trades.ts';

type ModelList = Readonly<Record<string, AnyModel>>;

/**
 * Every read model, once: `Models`, `openModels`, the collection specs and names all derive from
 * these two lists. The projector creates their collections from them, the API reads them through
 * `openModels`, the canonical dump hashes every projection, and test fixtures seed them by running
 * the projections — so a model added here is wired everywhere, and one left out fails.
 *
 * The projections: written from chain events only, so a replay rebuilds them and the dump hashes
 * them, in this order (it is the dump's).
 */
export const READ_MODELS = {
  head,
  blocks,
  txs,
  sharedValues,
  dailyTx,
  wallets,
  tokens,
  tokenImages,
  holders,
  holderStats,
  holdingChanges,
  rankDirs,
  rankPages,
  seriesCounters,
  seriesRefs,
  addressTxs,
  tokenTxs,
  tokenHistory,
  nftCollections,
  nftItems,
  mrc402s,
  nftHolders,
  nftHolderStats,
  nftActivity,
  nftLists,
  collectionHolders,
  collectionStats,
  itemOwners,
  marketOrders,
  marketTrades,
  marketStats,
} as const satisfies ModelList;

/**
 * Caches of what lies off the chain, written by the API: in the store beside the projections, but
 * no replay rebuilds them and the canonical dump leaves them out.
 */
export const CACHE_MODELS = { nftImages } as const satisfies ModelList;

const ALL_MODELS = { ...READ_MODELS, ...CACHE_MODELS } as const;

/** Every model's collection, caches included, typed by its document: what `openModels` returns. */
export type Models = Opened<typeof ALL_MODELS>;

const specsOf = (models: ModelList): CollectionSpec[] => Object.values(models).map(collectionSpec);

/** Every collection, caches included: what `ensureCollections` creates. */
export const COLLECTION_SPECS: readonly CollectionSpec[] = specsOf(ALL_MODELS);
/** The projections' collections only: what the canonical dump hashes. */
export const PROJECTION_SPECS: readonly CollectionSpec[] = specsOf(READ_MODELS);

const byModel = <T>(f: (model: AnyModel) => T): Record<string, T> =>
  Object.fromEntries(Object.entries(ALL_MODELS).map(([key, model]) => [key, f(model)]));

export function openModels(store: ReadStore): Models {
  return byModel((m) => store.collection(m.name)) as Models;
}

/** Collection names by model key. */
export const COLLECTIONS = byModel((m) => m.name) as { readonly [K in keyof Models]: string };

/** What reads a holder row as of a height: the holding-change log and the shared values it names. */
export function holdingLog(models: Pick<Models, 'holdingChanges' | 'sharedValues'>): HoldingLog {
  return { changes: models.holdingChanges, shared: models.sharedValues };
}
