import { createMemoryReadStore } from '@mtc/adapters';
import { dumpReadModels, nftHoldersPage, openModels, READ_MODELS } from '@mtc/read-models';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, projectChain } from './harness.ts';
import { CAT_2, CAT_3, CATS, GOLD_NFT, nftEconomy } from './nft-economy.ts';
import { CAROL, DAVE, ERIN } from './token-economy.ts';
import { tokenEconomy } from './token-economy.ts';

describe('projectChain', () => {
  it('fills every read model of the registry from events, so no API test reads a model no projection writes', async () => {
    const store = createMemoryReadStore();
    const chain = nftEconomy();
    // A wallet holding enough MRC-402s that its writes' holdings maps are shared values.
    chain.block(
      Array.from({ length: 8 }, (_, i) =>
        chain.createMrc402({
          id: `MRC402_${'9'.repeat(31)}${i}0`,
          creator: CAROL,
          name: `Many ${i}`,
          totalsupply: '5',
        }),
      ),
    );
    // Enough payments from one wallet that its filtered lists fill a chunk of references (32 rows).
    chain.openWallet(ALICE, [{ token: 0, balance: '1000' }]);
    chain.block([chain.newWallet(BOB)]);
    chain.block(Array.from({ length: 40 }, () => chain.transfer({ from: ALICE, to: BOB, amount: '1', token: 0 })));
    // A trade, for the market's trades and stats.
    chain.block([chain.buyItem({ item: CAT_3, buyer: ALICE })]);
    await projectChain(store, chain);
    const counts = await Promise.all(Object.values(READ_MODELS).map((m) => store.collection(m.name).count()));
    const empty = Object.values(READ_MODELS)
      .map((m) => m.name)
      .filter((_, i) => counts[i] === 0);
    expect(empty).toEqual([]);
  });

  it('projects the NFT story: items owned as last written, MRC-402 holders with their count and total', async () => {
    const store = createMemoryReadStore();
    await projectChain(store, nftEconomy());
    const m = openModels(store);
    expect(await m.nftItems.get(CAT_2)).toMatchObject({ owner: ERIN, mrc400: CATS, jobType: 'mrc401_transfer' });
    expect(await m.nftCollections.get(CATS)).toMatchObject({ name: 'Cats', nameKey: 'cats' });
    expect(await m.mrc402s.get(GOLD_NFT)).toMatchObject({ creator: CAROL, totalsupply: '100', meltedamount: '0' });
    expect(await m.nftHolderStats.get(GOLD_NFT)).toMatchObject({ holders: 2, total: '100' });
    const page = (await nftHoldersPage(m, GOLD_NFT, { skip: 0 }, 10))!.rows;
    expect(page.map((h) => [h.address, h.total])).toEqual([
      [CAROL, '70'],
      [DAVE, '30'],
    ]);
  });

  it('changes nothing when the same chain is projected again, and adds what was appended', async () => {
    const chain = tokenEconomy();
    const store = createMemoryReadStore();
    await projectChain(store, chain);
    const once = await dumpReadModels(store);
    await projectChain(store, chain);
    expect(await dumpReadModels(store)).toEqual(once);

    chain.openWallet(ALICE, [{ token: 0, balance: '5' }]);
    chain.openWallet(BOB, [{ token: 0, balance: '0' }]);
    chain.block([chain.transfer({ from: ALICE, to: BOB, amount: '5', token: 0 })]);
    await projectChain(store, chain);
    const after = await dumpReadModels(store);
    expect(after.counts['blocks']).toBe(once.counts['blocks']! + 1);
    expect(after.counts['holders']).toBe(once.counts['holders']! + 1);
  });

  it('leaves the head below blocks projected without their head write', async () => {
    const store = createMemoryReadStore();
    await projectChain(store, tokenEconomy(), { headAt: 4 });
    expect(await store.collection('head').get('indexed')).toMatchObject({ height: 4 });
    expect(await store.collection('blocks').count()).toBe(9);
  });
});
