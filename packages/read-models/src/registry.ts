import type { Collection, CollectionSpec, ReadStore } from '@mtc/ports';
import { blocks, dailyTx, head, txs, type BlockDoc, type DailyTxDoc, type HeadDoc, type TxDoc } from './chain/docs.ts';
import { sharedValues, type SharedValueDoc } from './shared-values.ts';
import { holdingChanges, type HoldingChangeDoc, type HoldingLog } from './holders/changes.ts';
import { holders, holderStats, type HolderDoc, type HolderStatsDoc } from './holders/holders.ts';
import { rankDirs, rankPages, type RankDirDoc, type RankPageDoc } from './holders/ranked.ts';
import { collectionSpec } from './model.ts';
import {
  collectionHolders,
  collectionStats,
  itemOwners,
  type CollectionHolderDoc,
  type CollectionStatsDoc,
  type ItemOwnerDoc,
} from './nfts/collection-holders.ts';
import { nftHolders, nftHolderStats, type NftHolderDoc, type NftHolderStatsDoc } from './nfts/holders.ts';
import { nftImages, type NftImageDoc } from './nfts/images.ts';
import {
  mrc402s,
  nftCollections,
  nftItems,
  type Mrc402Doc,
  type NftCollectionDoc,
  type NftItemDoc,
} from './nfts/records.ts';
import { addressTxs, type AddressTxDoc } from './series/address-txs.ts';
import { seriesCounters, type SeriesCounterDoc } from './series/series.ts';
import { nftActivity, nftLists, type NftActivityDoc, type NftListDoc } from './series/nft-activity.ts';
import { tokenHistory, type TokenHistoryDoc } from './series/token-history.ts';
import { tokenTxs, type TokenTxDoc } from './series/token-txs.ts';
import { tokenImages, tokens, type TokenDoc, type TokenImageDoc } from './tokens/tokens.ts';
import { wallets, type WalletDoc } from './wallets/wallets.ts';

/**
 * Every read model, once. The projector creates their collections from this list, the API reads
 * them through `openModels`, the canonical dump hashes every projection, and test fixtures seed them
 * by running the projections — so a model added here is wired everywhere, and one left out fails.
 */
export interface Models {
  head: Collection<HeadDoc>;
  blocks: Collection<BlockDoc>;
  txs: Collection<TxDoc>;
  sharedValues: Collection<SharedValueDoc>;
  dailyTx: Collection<DailyTxDoc>;
  wallets: Collection<WalletDoc>;
  tokens: Collection<TokenDoc>;
  tokenImages: Collection<TokenImageDoc>;
  holders: Collection<HolderDoc>;
  holderStats: Collection<HolderStatsDoc>;
  holdingChanges: Collection<HoldingChangeDoc>;
  rankDirs: Collection<RankDirDoc>;
  rankPages: Collection<RankPageDoc>;
  seriesCounters: Collection<SeriesCounterDoc>;
  addressTxs: Collection<AddressTxDoc>;
  tokenTxs: Collection<TokenTxDoc>;
  tokenHistory: Collection<TokenHistoryDoc>;
  nftCollections: Collection<NftCollectionDoc>;
  nftItems: Collection<NftItemDoc>;
  mrc402s: Collection<Mrc402Doc>;
  nftHolders: Collection<NftHolderDoc>;
  nftHolderStats: Collection<NftHolderStatsDoc>;
  nftActivity: Collection<NftActivityDoc>;
  nftLists: Collection<NftListDoc>;
  collectionHolders: Collection<CollectionHolderDoc>;
  collectionStats: Collection<CollectionStatsDoc>;
  itemOwners: Collection<ItemOwnerDoc>;
  nftImages: Collection<NftImageDoc>;
}

/** The projections: written from chain events only, so a replay rebuilds them and the dump hashes them. */
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
} as const;

/**
 * Caches of what lies off the chain, written by the API: in the store beside the projections, but
 * no replay rebuilds them and the canonical dump leaves them out.
 */
export const CACHE_MODELS = { nftImages } as const;

const ALL_MODELS = { ...READ_MODELS, ...CACHE_MODELS } as const satisfies Record<keyof Models, { name: string }>;

const specsOf = (models: Record<string, unknown>): CollectionSpec[] =>
  Object.values(models).map((m) => collectionSpec(m as never));

/** Every collection, caches included: what `ensureCollections` creates. */
export const COLLECTION_SPECS: readonly CollectionSpec[] = specsOf(ALL_MODELS);
/** The projections' collections only: what the canonical dump hashes. */
export const PROJECTION_SPECS: readonly CollectionSpec[] = specsOf(READ_MODELS);

export function openModels(store: ReadStore): Models {
  const open = <K extends keyof Models>(key: K): Models[K] => store.collection(ALL_MODELS[key].name) as Models[K];
  return {
    head: open('head'),
    blocks: open('blocks'),
    txs: open('txs'),
    sharedValues: open('sharedValues'),
    dailyTx: open('dailyTx'),
    wallets: open('wallets'),
    tokens: open('tokens'),
    tokenImages: open('tokenImages'),
    holders: open('holders'),
    holderStats: open('holderStats'),
    holdingChanges: open('holdingChanges'),
    rankDirs: open('rankDirs'),
    rankPages: open('rankPages'),
    seriesCounters: open('seriesCounters'),
    addressTxs: open('addressTxs'),
    tokenTxs: open('tokenTxs'),
    tokenHistory: open('tokenHistory'),
    nftCollections: open('nftCollections'),
    nftItems: open('nftItems'),
    mrc402s: open('mrc402s'),
    nftHolders: open('nftHolders'),
    nftHolderStats: open('nftHolderStats'),
    nftActivity: open('nftActivity'),
    nftLists: open('nftLists'),
    collectionHolders: open('collectionHolders'),
    collectionStats: open('collectionStats'),
    itemOwners: open('itemOwners'),
    nftImages: open('nftImages'),
  };
}

/** Collection names by model key. */
export const COLLECTIONS = Object.fromEntries(Object.entries(ALL_MODELS).map(([k, m]) => [k, m.name])) as {
  readonly [K in keyof Models]: string;
};

/** What reads a holder row as of a height: the holding-change log and the shared values it names. */
export function holdingLog(models: Pick<Models, 'holdingChanges' | 'sharedValues'>): HoldingLog {
  return { changes: models.holdingChanges, shared: models.sharedValues };
}
