import { parseNftId } from '@mtc/domain';
import { MELTED, seriesRowId, type Models, type NftCollectionDoc, type NftItemDoc } from '@mtc/read-models';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import { defineRoute } from '../../route.ts';
import { NftDetail } from './schemas.ts';

/** The id forms (metacoin-chain.md §5): generated ids are a 6-letter prefix, "_", 32 hex and a digit. */
const COLLECTION = 'MRC400_[0-9a-f]{32}[0-9]';
const ITEM = `${COLLECTION}_[A-Za-z0-9]{40}`;
const MRC402 = 'MRC402_[0-9a-f]{32}[0-9]';

/**
 * An NFT id in any of its three forms (prefix, length and characters checked; the pattern is
 * `parseNftId`'s, so the handler's parse never fails).
 */
export const NftIdParam = z
  .string()
  .regex(
    new RegExp(`^(?:${ITEM}|${COLLECTION}|${MRC402})$`),
    'must be an NFT id: MRC400_<32 hex><digit>, MRC400_<32 hex><digit>_<40 letters or digits>, or MRC402_<32 hex><digit>',
  )
  .describe('NFT id: MRC400_… (a collection), MRC400_…_… (an item) or MRC402_…');

/** A collection or an MRC-402 (the NFTs with holders and a history of their own). */
export const CollectionOrMrc402IdParam = z
  .string()
  .regex(new RegExp(`^(?:${COLLECTION}|${MRC402})$`), 'must be an MRC-400 or MRC-402 id')
  .describe('MRC400_… (a collection) or MRC402_…');

export const CollectionIdParam = z
  .string()
  .regex(new RegExp(`^${COLLECTION}$`), 'must be an MRC-400 id: MRC400_<32 hex><digit>')
  .describe('The collection.');

/** The NFT an id names, by its form (the id passed NftIdParam). */
function nftOf(id: string) {
  const nft = parseNftId(id);
  if (!nft) throw new Error(`NftIdParam let ${id} through`);
  return nft;
}

export const NftIdParams = z.object({ id: NftIdParam });

/** An item's image: its own URL, else its collection's item image URL with `{id}` filled in (metacoin-chain.md §6). */
export function itemImage(item: NftItemDoc, collection: NftCollectionDoc | null): string {
  if (item.item_image_url !== '') return item.item_image_url;
  const template = collection?.item_image_url ?? '';
  const hex = Buffer.from(item.id.slice(41), 'utf8').toString('hex');
  return template.replaceAll('{id}', hex);
}

/**
 * The image URL of the NFT an id names, by the rules of the detail's `image` field: a collection's
 * `image_url`, an item's `itemImage`, an MRC-402's `image` ("" when the record has none); null when
 * there is no such NFT.
 */
export async function nftImageUrl(models: Models, id: string): Promise<string | null> {
  const nft = nftOf(id);
  switch (nft.protocol) {
    case 'MRC400':
      return (await models.nftCollections.get(nft.id))?.image_url ?? null;
    case 'MRC401': {
      const item = await models.nftItems.get(nft.id);
      return item ? itemImage(item, await models.nftCollections.get(item.mrc400)) : null;
    }
    case 'MRC402':
      return (await models.mrc402s.get(nft.id))?.image ?? null;
  }
}

export function itemStatus(item: NftItemDoc): 'held' | 'sale' | 'auction' | 'melted' {
  if (item.owner === MELTED) return 'melted';
  if (item.sell_date > 0) return 'sale';
  if (item.auction_date > 0) return 'auction';
  return 'held';
}

/** The collection's creator: the owner its creation gave it (the first row of its activity). */
async function collectionCreator(models: Models, id: string, fallback: string): Promise<string> {
  const first = await models.nftActivity.get(seriesRowId(id, 1));
  return first?.to || fallback;
}

export const nftRoute = defineRoute({
  path: '/api/nft/{id}',
  operationId: 'getNft',
  tag: 'nfts',
  summary: 'An NFT: an MRC-400 collection, an MRC-401 item or an MRC-402, by the form of its id',
  description:
    'MRC400_<hash> gives the collection, MRC400_<hash>_<item> the item, MRC402_<hash> the MRC-402. A malformed id is a 400, an unknown one a 404. job_type is the job type of the record’s last write.',
  params: NftIdParams,
  response: NftDetail,
  errors: [400, 404],
  cache: 'head',
  async handle({ params }, app) {
    const { models } = app;
    const nft = nftOf(params.id);
    switch (nft.protocol) {
      case 'MRC400': {
        const c = await models.nftCollections.get(nft.id);
        if (!c) throw notFound(`collection ${nft.id} not found`);
        return {
          id: c.id,
          protocol: 'MRC400' as const,
          owner: c.owner,
          creator: await collectionCreator(models, c.id, c.owner),
          name: c.name,
          category: c.category,
          description: c.description,
          url: c.url,
          image_url: c.image_url,
          image: c.image_url,
          item_url: c.item_url,
          item_image_url: c.item_image_url,
          allow_token: c.allow_token,
          job_type: c.jobType,
          createdate: c.createdate,
        };
      }
      case 'MRC401': {
        const item = await models.nftItems.get(nft.id);
        if (!item) throw notFound(`item ${nft.id} not found`);
        const parent = await models.nftCollections.get(item.mrc400);
        return {
          id: item.id,
          protocol: 'MRC401' as const,
          mrc400: item.mrc400,
          owner: item.owner,
          creator: item.creator,
          name: parent?.name ?? '',
          image: itemImage(item, parent),
          item_image_url: item.item_image_url,
          parent: item.mrc400,
          parentName: parent?.name ?? '',
          parentImage: parent?.image_url ?? '',
          groupid: item.groupid,
          createdate: item.createdate,
          transferable: item.transferable,
          status: itemStatus(item),
          sell_price: item.sell_price,
          sell_token: item.sell_token,
          auction_start_price: item.auction_start_price,
          job_type: item.jobType,
        };
      }
      case 'MRC402': {
        const [t, stats] = await Promise.all([models.mrc402s.get(nft.id), models.nftHolderStats.get(nft.id)]);
        if (!t) throw notFound(`MRC-402 ${nft.id} not found`);
        return {
          id: t.id,
          protocol: 'MRC402' as const,
          creator: t.creator,
          owner: t.creator,
          name: t.name,
          totalsupply: t.totalsupply,
          meltedamount: t.meltedamount,
          circulation_supply: stats?.total ?? '0',
          decimal: t.decimal,
          creatorcommission: t.creatorcommission,
          image: t.image,
          url: t.url,
          info: t.info,
          expiredate: t.expiredate,
          initialreserve: t.initialreserve ?? {},
          shareholder: t.shareholder,
          job_type: t.jobType,
        };
      }
    }
  },
});
