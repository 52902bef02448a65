import type { Chain } from './chain.ts';
import { CAROL, DAVE, ERIN, OWNER, tokenEconomy } from './token-economy.ts';

/**
 * The token economy followed by a few NFT blocks, for the NFT routes. Every expected figure follows
 * from this story (heights after the token economy's nine blocks):
 *
 *   10  OWNER creates collection CATS; OWNER creates items CAT_1, CAT_2, CAT_3 in it
 *   11  item CAT_2 transferred OWNER → ERIN; CAROL creates MRC-402 GOLD_NFT, supply 100
 *   12  MRC-402 GOLD_NFT: CAROL → DAVE 30
 *   13  OWNER puts CAT_3 on sale for 500 MTC (it stays OWNER's while offered)
 *
 * Holders: CATS — OWNER 2 items (CAT_3 of them on sale), ERIN 1; GOLD_NFT — CAROL 70, DAVE 30 (total 100).
 */
export const CATS = `MRC400_${'c'.repeat(32)}0`;
export const CAT_1 = `${CATS}_${'A1'.repeat(20)}`;
export const CAT_2 = `${CATS}_${'B2'.repeat(20)}`;
export const CAT_3 = `${CATS}_${'C3'.repeat(20)}`;
export const GOLD_NFT = `MRC402_${'d'.repeat(32)}0`;
/** The chaincode wants an MRC-402's image URL. */
export const GOLD_NFT_IMAGE = 'https://img.example/gold.png';

export function nftEconomy(): Chain {
  const c = tokenEconomy();
  c.block([
    c.createCollection({
      id: CATS,
      owner: OWNER,
      name: 'Cats',
      image: 'https://img.example/cats.png',
      url: 'https://cats.example/',
    }),
    c.createItems({ collection: CATS, owner: OWNER, items: [CAT_1, CAT_2, CAT_3] }),
  ]);
  c.block([
    c.transferItem({ item: CAT_2, from: OWNER, to: ERIN }),
    c.createMrc402({ id: GOLD_NFT, creator: CAROL, name: 'Gold NFT', totalsupply: '100', image: GOLD_NFT_IMAGE }),
  ]);
  c.block([c.transferMrc402({ id: GOLD_NFT, from: CAROL, to: DAVE, amount: '30' })]);
  c.block([c.sellItem({ item: CAT_3, seller: OWNER, price: '500', token: 0 })]);
  return c;
}

/** The n-th collection id of `nftImageEconomy` (n from 0 to 15). */
export const imageCollection = (n: number): string => `MRC400_${'e'.repeat(31)}${n.toString(16)}0`;
/** The n-th item id (n from 0 to 9) of a collection. */
export const imageItem = (collection: string, n: number): string => `${collection}_${'I'.repeat(39)}${n}`;
/** The n-th MRC-402 id of `nftImageEconomy` (n from 0 to 15). */
export const imageMrc402 = (n: number): string => `MRC402_${'f'.repeat(31)}${n.toString(16)}0`;

/** An NFT of `nftImageEconomy`: a collection (with items that take its item image template) or an MRC-402. */
export type ImageNft =
  | { collection: string; image: string; itemImage?: string; items?: readonly string[] }
  | { mrc402: string; image: string };

/**
 * The token economy followed by one block of NFTs whose image URLs the test chooses (a collection's
 * `image` is also its item image template unless `itemImage` is given), for the NFT image route: OWNER creates
 * the collections and their items, CAROL the MRC-402s.
 */
export function nftImageEconomy(nfts: readonly ImageNft[]): Chain {
  const c = tokenEconomy();
  c.block(
    nfts.flatMap((nft) =>
      'mrc402' in nft
        ? [c.createMrc402({ id: nft.mrc402, creator: CAROL, name: 'Pictured', totalsupply: '10', image: nft.image })]
        : [
            c.createCollection({
              id: nft.collection,
              owner: OWNER,
              name: 'Pictured',
              image: nft.image,
              ...(nft.itemImage === undefined ? {} : { itemImage: nft.itemImage }),
            }),
            ...(nft.items?.length
              ? [c.createItems({ collection: nft.collection, owner: OWNER, items: nft.items })]
              : []),
          ],
    ),
  );
  return c;
}
