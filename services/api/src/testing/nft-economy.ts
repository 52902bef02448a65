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

export function nftEconomy(): Chain {
  const c = tokenEconomy();
  c.block([
    c.createCollection({ id: CATS, owner: OWNER, name: 'Cats', image: 'https://img.example/cats.png' }),
    c.createItems({ collection: CATS, owner: OWNER, items: [CAT_1, CAT_2, CAT_3] }),
  ]);
  c.block([
    c.transferItem({ item: CAT_2, from: OWNER, to: ERIN }),
    c.createMrc402({ id: GOLD_NFT, creator: CAROL, name: 'Gold NFT', totalsupply: '100' }),
  ]);
  c.block([c.transferMrc402({ id: GOLD_NFT, from: CAROL, to: DAVE, amount: '30' })]);
  c.block([c.sellItem({ item: CAT_3, seller: OWNER, price: '500', token: 0 })]);
  return c;
}
