import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { startTestApi, type TestApi } from '../../testing/harness.ts';
import { CAT_1, CAT_2, CATS, GOLD_NFT, nftEconomy } from '../../testing/nft-economy.ts';
import { blockTime, CAROL, ERIN, OWNER } from '../../testing/token-economy.ts';
import { NftDetail } from './schemas.ts';

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
      url: '',
      image_url: 'https://img.example/cats.png',
      image: 'https://img.example/cats.png',
      item_url: '',
      item_image_url: 'https://img.example/cats.png',
      allow_token: '',
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
