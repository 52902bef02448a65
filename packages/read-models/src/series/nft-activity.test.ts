import { createMemoryReadStore } from '@mtc/adapters';
import type { KnownActivity } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import { openModels } from '../registry.ts';
import { chainBuilder, projectInto } from '../testing/events.ts';
import { nftActivity, nftLists, collectionItemsKey } from './nft-activity.ts';
import { seriesPage, seriesTotal } from './series.ts';

const A = 'MTaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa00000001';
const B = 'MTbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb00000002';
const CATS = `MRC400_${'c'.repeat(32)}0`;
const CAT = `${CATS}_${'A1'.repeat(20)}`;
const GOLD = `MRC402_${'d'.repeat(32)}0`;

const create = (
  protocol: 'MRC400' | 'MRC401' | 'MRC402',
  nftId: string,
  amount: string,
  parent = '',
): KnownActivity => ({
  kind: 'nftCreate',
  jobType: `${protocol.toLowerCase()}_create`,
  protocol,
  nftId,
  owner: A,
  creator: A,
  amount,
  name: nftId.slice(0, 10),
  parent,
});

function history() {
  const chain = chainBuilder();
  return [
    chain.block([{ activity: [create('MRC400', CATS, '0')] }, { activity: [create('MRC401', CAT, '1', CATS)] }]),
    chain.block([
      { activity: [create('MRC402', GOLD, '100')] },
      {
        activity: [
          {
            kind: 'nftTransfer',
            jobType: 'mrc401_transfer',
            protocol: 'MRC401',
            nftId: CAT,
            from: A,
            to: B,
            amount: '1',
          },
        ],
      },
      {
        activity: [
          {
            kind: 'nftBuy',
            jobType: 'mrc402_buy',
            protocol: 'MRC402',
            nftId: GOLD,
            dexId: `DEX402_${'e'.repeat(32)}0`,
            seller: A,
            buyer: B,
            amount: '5',
            payToken: 0,
            payments: [
              { from: B, to: `DEX402_${'e'.repeat(32)}0`, amount: '50', token: 0, type: 'mrc402_buy' },
              { from: `DEX402_${'e'.repeat(32)}0`, to: A, amount: '45', token: 0, type: 'mrc402_recv_sell' },
            ],
          },
        ],
      },
      { valid: false, activity: [create('MRC402', `MRC402_${'f'.repeat(32)}0`, '1')] },
    ]),
  ];
}

describe('NFT activity and lists', () => {
  it("numbers each NFT's activity in chain order, an item's under its collection too, with the buyer's payment as price", async () => {
    const store = createMemoryReadStore();
    await projectInto(store, [history()]);
    const m = openModels(store);
    const page = async (key: string) => {
      const total = await seriesTotal(m.seriesCounters, nftActivity, key);
      return (await seriesPage(m.nftActivity, key, total, 1, 10)).map((r) => [
        r.nftId,
        r.kind,
        r.from,
        r.to,
        r.amount,
        r.price,
      ]);
    };
    expect(await page(CAT)).toEqual([
      [CAT, 'nftTransfer', A, B, '1', ''],
      [CAT, 'nftCreate', '', A, '1', ''],
    ]);
    expect(await page(CATS)).toEqual([
      [CAT, 'nftTransfer', A, B, '1', ''],
      [CAT, 'nftCreate', '', A, '1', ''],
      [CATS, 'nftCreate', '', A, '0', ''],
    ]);
    expect(await page(GOLD)).toEqual([
      [GOLD, 'nftBuy', A, B, '5', '50'],
      [GOLD, 'nftCreate', '', A, '100', ''],
    ]);
  });

  it('lists collections and MRC-402s by creation (not items, nor invalid transactions), and items per collection', async () => {
    const store = createMemoryReadStore();
    await projectInto(store, [history()]);
    const m = openModels(store);
    const ids = async (key: string) => {
      const total = await seriesTotal(m.seriesCounters, nftLists, key);
      return (await seriesPage(m.nftLists, key, total, 1, 10)).map((r) => r.nftId);
    };
    expect(await ids('all')).toEqual([GOLD, CATS]);
    expect(await ids('MRC402')).toEqual([GOLD]);
    expect(await ids('MRC401')).toEqual([CATS]);
    expect(await ids(collectionItemsKey(CATS))).toEqual([CAT]);
  });
});
