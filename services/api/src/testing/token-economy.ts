import { address, createChain, GENESIS_TS, type Chain } from './chain.ts';

/**
 * A small MRC-010 economy for the address and token routes. Block h is at GENESIS_TS + 60·h and
 * its transactions 10, 20 … s later. Every expected figure in the tests follows from this story:
 *
 *   1  wallets OWNER, CAROL ('carol memo'), DAVE, ERIN (each starts with a zero token-0 entry)
 *   2  token 0 Metacoin/MTC (8 decimals, no image), totalsupply 1 000 000, all reserved to OWNER
 *   3  token 1 Gold/GLD (2 decimals, a PNG image), totalsupply 10 000, owner OWNER, reserves:
 *      OWNER 6000, CAROL 3000 locked until LOCK_FAR, DAVE 1000 locked until LOCK_PAST
 *   4  token 2 Silver/SLV (0 decimals, the image given, none by default), totalsupply 500, owner
 *      CAROL, reserve CAROL 500
 *   5  transfer OWNER → CAROL 250 of token 1 locked until LOCK_NEAR, memo 'vesting';
 *      transfer OWNER → DAVE 100 of token 0
 *   6  mint 500 of token 1 (memo 'more': totalsupply 10 500); burn 200 of token 1 (memo 'less':
 *      burnningamount 200, totalsupply unchanged)
 *   7  multi_transfer from OWNER of token 1: DAVE 10, ERIN 20
 *   8  OWNER sells 300 of token 1 (sale escrow); CAROL auctions 50 of token 2 (auction escrow)
 *   9  token 2 updated: url and information
 *
 * Resulting token 1 wallets (balance entries):
 *   OWNER  5720 spendable, 300 in sale                    (6000 − 250 + 500 − 200 − 30 − 300)
 *   CAROL  3000 until LOCK_FAR, 250 until LOCK_NEAR
 *   DAVE   1000 until LOCK_PAST (expired at NOW), 10
 *   ERIN   20
 * Holders of token 1: 4, total balance 10 000 (+ 300 in sale + 200 burnt = 10 500 supply).
 */
export const OWNER = address('owner');
export const CAROL = address('carol');
export const DAVE = address('dave');
export const ERIN = address('erin');

/** The clock the tests pin (unix seconds): after LOCK_PAST, before LOCK_NEAR. */
export const NOW = GENESIS_TS + 100_000;
export const LOCK_PAST = GENESIS_TS + 10_000;
export const LOCK_NEAR = GENESIS_TS + 200_000;
export const LOCK_FAR = GENESIS_TS + 1_000_000;

/** A 3×2 PNG. */
export const PNG_DATA_URI =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWP4f4LhPwwzIHMA2sYQpQjwy64AAAAASUVORK5CYII=';

/** Block h's time, and the time of its transaction i. */
export const blockTime = (h: number): number => GENESIS_TS + 60 * h;
export const txTime = (h: number, i = 0): number => blockTime(h) + 10 * (i + 1);

export function tokenEconomy(images: { silver: string } = { silver: '' }): Chain {
  const c = createChain();
  c.block([c.newWallet(OWNER), c.newWallet(CAROL, 'carol memo'), c.newWallet(DAVE), c.newWallet(ERIN)]);
  c.block([
    c.registerToken({
      token: 0,
      name: 'Metacoin',
      symbol: 'MTC',
      owner: OWNER,
      decimal: 8,
      totalsupply: '1000000',
      reserve: [{ address: OWNER, value: '1000000' }],
    }),
  ]);
  c.block([
    c.registerToken({
      token: 1,
      name: 'Gold',
      symbol: 'GLD',
      owner: OWNER,
      decimal: 2,
      totalsupply: '10000',
      image: PNG_DATA_URI,
      url: 'https://gold.example',
      information: 'shiny',
      reserve: [
        { address: OWNER, value: '6000' },
        { address: CAROL, value: '3000', unlockdate: LOCK_FAR },
        { address: DAVE, value: '1000', unlockdate: LOCK_PAST },
      ],
    }),
  ]);
  c.block([
    c.registerToken({
      token: 2,
      name: 'Silver',
      symbol: 'SLV',
      owner: CAROL,
      decimal: 0,
      totalsupply: '500',
      image: images.silver,
      reserve: [{ address: CAROL, value: '500' }],
    }),
  ]);
  c.block([
    c.transfer({ from: OWNER, to: CAROL, amount: '250', token: 1, unlockdate: LOCK_NEAR, memo: 'vesting' }),
    c.transfer({ from: OWNER, to: DAVE, amount: '100', token: 0 }),
  ]);
  c.block([c.mint({ token: 1, amount: '500', memo: 'more' }), c.burn({ token: 1, amount: '200', memo: 'less' })]);
  c.block([
    c.multiTransfer({
      from: OWNER,
      token: 1,
      to: [
        { address: DAVE, amount: '10' },
        { address: ERIN, amount: '20' },
      ],
    }),
  ]);
  c.block([
    c.sell({ seller: OWNER, token: 1, amount: '300', price: '5' }),
    c.auction({ seller: CAROL, token: 2, amount: '50', startPrice: '7' }),
  ]);
  c.block([c.updateToken({ token: 2, url: 'https://silver.example', information: 'bright' })]);
  return c;
}
