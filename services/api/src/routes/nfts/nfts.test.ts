import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { startTestApi, type TestApi } from '../../testing/harness.ts';
import { CAT_1, CAT_2, CAT_3, CATS, GOLD_NFT, nftEconomy } from '../../testing/nft-economy.ts';
import { blockTime, CAROL, DAVE, ERIN, OWNER } from '../../testing/token-economy.ts';
import { NftDetail, NftHistory, NftHoldersPage, NftItemsPage, NftsPage, NftTxPage } from './schemas.ts';

describe('GET /api/nft/{id}', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftEconomy() });
  });
  afterAll(() => api.close());

  const get = (id: string) => api.get<unknown>(`/api/nft/${id}`);

  it('answers a collection for an MRC400_ id', async () => {
    const { status, body } = await get(CATS);
    expect(status).toBe(200);
    expect(NftDetail.parse(body)).toEqual({
      id: CATS,
      protocol: 'MRC400',
      owner: OWNER,
      creator: OWNER,
      name: 'Cats',
      category: 'art',
      description: '',
      url: 'https://cats.example/',
      image_url: 'https://img.example/cats.png',
      image: 'https://img.example/cats.png',
      item_url: '',
      item_image_url: 'https://img.example/cats.png',
      // The current chaincode writes "0" (any token) when the creator names none.
      allow_token: '0',
      job_type: 'mrc400_create',
      // The story's block 10 is where OWNER created it (the peer's clock is the fixture's block time).
      createdate: blockTime(10),
    });
  });

  it('answers an item for an MRC400_…_… id: its owner as last written, held, its collection as parent', async () => {
    const { status, body } = await get(CAT_2);
    expect(status).toBe(200);
    expect(NftDetail.parse(body)).toMatchObject({
      id: CAT_2,
      protocol: 'MRC401',
      mrc400: CATS,
      owner: ERIN,
      parent: CATS,
      parentName: 'Cats',
      name: 'Cats',
      status: 'held',
      transferable: 'Permanent',
      job_type: 'mrc401_transfer',
    });
    expect(NftDetail.parse((await get(CAT_1)).body)).toMatchObject({ owner: OWNER, job_type: 'mrc401_create' });
  });

  it('answers an MRC-402 for an MRC402_ id, its circulation what its holders hold', async () => {
    const { status, body } = await get(GOLD_NFT);
    expect(status).toBe(200);
    expect(NftDetail.parse(body)).toMatchObject({
      id: GOLD_NFT,
      protocol: 'MRC402',
      creator: CAROL,
      owner: CAROL,
      name: 'Gold NFT',
      totalsupply: '100',
      meltedamount: '0',
      circulation_supply: '100',
      decimal: 0,
      initialreserve: {},
      shareholder: null,
      job_type: 'mrc402_create',
    });
  });

  it('answers 400 for a malformed id and 404 for an unknown one, as JSON', async () => {
    for (const bad of [
      'MRC401_' + 'c'.repeat(32) + '0',
      `MRC400_${'c'.repeat(31)}0`,
      `MRC400_${'g'.repeat(32)}0`,
      `${CATS}_short`,
      '42',
    ]) {
      const res = await get(encodeURIComponent(bad));
      expect(res.status, bad).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
    for (const unknown of [`MRC400_${'0'.repeat(32)}0`, `${CATS}_${'Z'.repeat(40)}`, `MRC402_${'0'.repeat(32)}0`]) {
      const res = await get(unknown);
      expect(res.status, unknown).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
    }
  });
});

describe('GET /api/nft-holders', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftEconomy() });
  });
  afterAll(() => api.close());

  it("lists a collection's holders by items owned, integer amounts, ratios of the items held", async () => {
    const { status, body } = await api.get<unknown>(`/api/nft-holders?id=${CATS}`);
    expect(status).toBe(200);
    // CAT_1 and CAT_3 stay with OWNER (CAT_3 on sale), CAT_2 went to ERIN.
    expect(NftHoldersPage.parse(body)).toEqual({
      nftId: CATS,
      total: 2,
      total_balance: '3',
      page: 1,
      limit: 20,
      holders: [
        { address: OWNER, amount: '1', sellAmount: '1', auctionAmount: '0', total: '2', ratio: '66.6666' },
        { address: ERIN, amount: '1', sellAmount: '0', auctionAmount: '0', total: '1', ratio: '33.3333' },
      ],
      next: null,
      prev: null,
    });
  });

  it("lists an MRC-402's holders with 10-digit decimal amounts and ratios of what all holders hold", async () => {
    const { status, body } = await api.get<unknown>(`/api/nft-holders?id=${GOLD_NFT}`);
    expect(status).toBe(200);
    expect(NftHoldersPage.parse(body)).toEqual({
      total: 2,
      total_balance: '100.0000000000',
      holders: [
        {
          address: CAROL,
          amount: '70.0000000000',
          sellAmount: '0.0000000000',
          auctionAmount: '0.0000000000',
          total: '70.0000000000',
          ratio: '70.0000',
        },
        {
          address: DAVE,
          amount: '30.0000000000',
          sellAmount: '0.0000000000',
          auctionAmount: '0.0000000000',
          total: '30.0000000000',
          ratio: '30.0000',
        },
      ],
      next: null,
      prev: null,
    });
    expect((await api.get<unknown>(`/api/nft-holders?id=${GOLD_NFT}&page=2&limit=1`)).body).toMatchObject({
      total: 2,
      holders: [{ address: DAVE }],
    });
  });

  it('answers 400 for an item id, a malformed id or none, and 404 for an unknown one', async () => {
    for (const q of [`id=${CAT_1}`, 'id=MRC402_short', '', `id=${CATS}&limit=0`]) {
      const res = await api.get<unknown>(`/api/nft-holders?${q}`);
      expect(res.status, q).toBe(400);
    }
    expect((await api.get<unknown>(`/api/nft-holders?id=MRC402_${'0'.repeat(32)}0`)).status).toBe(404);
  });
});

describe('GET /api/nft-tx and /api/nft-history', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftEconomy() });
  });
  afterAll(() => api.close());

  const tx = async (query: string) => NftTxPage.parse((await api.get<unknown>(`/api/nft-tx?${query}`)).body);

  it("pages an item's transactions newest first, from its minting on", async () => {
    const page = await tx(`id=${CAT_2}`);
    expect(page.total).toBe(2);
    expect(page.items.map((i) => [i.type, i.from, i.to, i.amount, i.block, i.raw.type])).toEqual([
      ['MRC-401 Transfer', OWNER, ERIN, '1', 11, 'mrc401_transfer'],
      ['MRC-401 Create', '', OWNER, '1', 10, 'mrc401_create'],
    ]);
  });

  it("gives a collection its own entries and its items', and an MRC-402 its lifecycle", async () => {
    const collection = await tx(`id=${CATS}&limit=2`);
    expect(collection.total).toBe(6);
    expect(collection.items.map((i) => [i.type, i.raw.ukey])).toEqual([
      ['MRC-401 Sell', CAT_3],
      ['MRC-401 Transfer', CAT_2],
    ]);
    // Items created in one transaction are in the node's entry order: reverse key order.
    expect((await tx(`id=${CATS}&limit=2&page=3`)).items.map((i) => [i.type, i.raw.ukey])).toEqual([
      ['MRC-401 Create', CAT_3],
      ['MRC-400 Create', CATS],
    ]);
    expect((await tx(`id=${GOLD_NFT}`)).items.map((i) => [i.type, i.from, i.to, i.amount])).toEqual([
      ['MRC-402 Transfer', CAROL, DAVE, '30'],
      ['MRC-402 Create', '', CAROL, '100'],
    ]);
  });

  it('tells the history oldest first: items by id and name for a collection, blocks for an MRC-402', async () => {
    const cats = NftHistory.parse((await api.get<unknown>(`/api/nft-history?id=${CATS}`)).body);
    expect(cats.total).toBe(6);
    expect(cats.history.map((h) => [h.type, h.itemId, h.itemName, h.to])).toEqual([
      ['MRC-400 Create', '', '', OWNER],
      ['MRC-401 Create', CAT_3, 'Cats', OWNER],
      ['MRC-401 Create', CAT_2, 'Cats', OWNER],
      ['MRC-401 Create', CAT_1, 'Cats', OWNER],
      ['Transfer', CAT_2, 'Cats', ERIN],
      // A sale goes to its order, as MRC-010 sales go to their DEX010 order; an item's order is the item.
      ['Sell', CAT_3, 'Cats', CAT_3],
    ]);
    const gold = NftHistory.parse((await api.get<unknown>(`/api/nft-history?id=${GOLD_NFT}`)).body);
    expect(gold.history.map((h) => [h.type, h.amount, h.block])).toEqual([
      ['MRC-402 Create', '100', 11],
      ['Transfer', '30', 12],
    ]);
  });

  it('answers 400 for malformed ids (and items in /nft-history) and 404 for unknown NFTs', async () => {
    expect((await api.get<unknown>('/api/nft-tx?id=MRC400_x')).status).toBe(400);
    expect((await api.get<unknown>(`/api/nft-history?id=${CAT_1}`)).status).toBe(400);
    expect((await api.get<unknown>(`/api/nft-tx?id=MRC402_${'0'.repeat(32)}0`)).status).toBe(404);
    expect((await api.get<unknown>(`/api/nft-history?id=MRC400_${'0'.repeat(32)}0`)).status).toBe(404);
  });
});

describe('GET /api/nfts and /api/nft-items', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftEconomy() });
  });
  afterAll(() => api.close());

  it('lists collections and MRC-402s newest first, filtered by protocol; an unknown protocol is a 400', async () => {
    const all = NftsPage.parse((await api.get<unknown>('/api/nfts')).body);
    expect(all.total).toBe(2);
    expect(all.items.map((i) => [i.protocol, i.id, i.name, i.owner, i.totalsupply])).toEqual([
      ['MRC402', GOLD_NFT, 'Gold NFT', CAROL, '100.0000000000'],
      // A collection's supply: its items held (created, not melted).
      ['MRC401', CATS, 'Cats', OWNER, '3.0000000000'],
    ]);
    expect(all.items[1]).toMatchObject({
      category: 'art',
      item_image_url: 'https://img.example/cats.png',
      createdate: blockTime(10),
    });
    expect(NftsPage.parse((await api.get<unknown>('/api/nfts?protocol=MRC402')).body).items.map((i) => i.id)).toEqual([
      GOLD_NFT,
    ]);
    expect(NftsPage.parse((await api.get<unknown>('/api/nfts?protocol=MRC401')).body).items.map((i) => i.id)).toEqual([
      CATS,
    ]);
    for (const bad of ['MRC400', 'MRC010', 'mrc402'])
      expect((await api.get<unknown>(`/api/nfts?protocol=${bad}`)).status, bad).toBe(400);
  });

  it("lists a collection's items newest first with their current owners", async () => {
    const page = NftItemsPage.parse((await api.get<unknown>(`/api/nft-items?id=${CATS}`)).body);
    expect(page).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(page.items.map((i) => [i.id, i.owner, i.job_type, i.sellPrice])).toEqual([
      [CAT_1, OWNER, 'mrc401_create', 0],
      [CAT_2, ERIN, 'mrc401_transfer', 0],
      [CAT_3, OWNER, 'mrc401_sell', 500],
    ]);
    expect((await api.get<unknown>(`/api/nft-items?id=${CAT_1}`)).status).toBe(400);
    expect((await api.get<unknown>(`/api/nft-items?id=MRC400_${'0'.repeat(32)}0`)).status).toBe(404);
  });
});
