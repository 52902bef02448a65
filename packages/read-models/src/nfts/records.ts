import type { Mrc402State, NftCollectionState, NftItemState } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * NFT records as the chain last wrote them (event-carried state from the state topic), last write
 * wins by chain position: MRC-400 collections, MRC-401 items (ownership lives in the item: an
 * address, or `MELTED`), MRC-402s. Each keeps the job type of the write that produced it; the
 * ordered projections (holders, histories, numbering) come from the block topic.
 */
type Versioned = {
  _id: string;
  pos: string;
  /** The job type of the write that produced this version (`mrc401_transfer` …). */
  jobType: string;
};

export type NftCollectionDoc = Versioned & NftCollectionState & { nameKey: string };
export type NftItemDoc = Versioned & NftItemState;
export type Mrc402Doc = Versioned & Mrc402State & { nameKey: string };

export const nftCollections = defineModel<NftCollectionDoc>('nft_collections', [{ fields: [['nameKey', 1]] }]);
export const nftItems = defineModel<NftItemDoc>('nft_items', [
  {
    fields: [
      ['mrc400', 1],
      ['owner', 1],
    ],
  },
]);
export const mrc402s = defineModel<Mrc402Doc>('mrc402s', [{ fields: [['nameKey', 1]] }]);

export function nftCollectionWrite(pos: string, jobType: string, c: NftCollectionState): Write {
  const doc: NftCollectionDoc = { ...c, _id: c.id, pos, jobType, nameKey: c.name.toLowerCase() };
  return { op: 'putIfNewer', collection: nftCollections.name, doc };
}

export function nftItemWrite(pos: string, jobType: string, item: NftItemState): Write {
  const doc: NftItemDoc = { ...item, _id: item.id, pos, jobType };
  return { op: 'putIfNewer', collection: nftItems.name, doc };
}

export function mrc402Write(pos: string, jobType: string, t: Mrc402State): Write {
  const doc: Mrc402Doc = { ...t, _id: t.id, pos, jobType, nameKey: t.name.toLowerCase() };
  return { op: 'putIfNewer', collection: mrc402s.name, doc };
}
