import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, BOB, buildChain, startTestApi, type TestApi } from '../../testing/harness.ts';
import { blockTime, CAROL, NOW, OWNER, PNG_DATA_URI, tokenEconomy } from '../../testing/token-economy.ts';
import { MtcStats, TokenDetail, TokensPage, type TokenListEntry } from './schemas.ts';

const chain = tokenEconomy();

const listed: Record<0 | 1 | 2, TokenListEntry> = {
  0: {
    id: '0',
    token: 0,
    name: 'Metacoin',
    symbol: 'MTC',
    owner: OWNER,
    totalsupply: '1000000',
    type: '010',
    decimal: 8,
    createdate: blockTime(2),
    has_image: false,
    image_url: '/api/v1/token/0/image',
    burnningamount: '0',
  },
  1: {
    id: '1',
    token: 1,
    name: 'Gold',
    symbol: 'GLD',
    owner: OWNER,
    // 10 000 registered + 500 minted; the 200 burnt stay in totalsupply.
    totalsupply: '10500',
    type: '010',
    decimal: 2,
    createdate: blockTime(3),
    has_image: true,
    image_url: '/api/v1/token/1/image',
    burnningamount: '200',
  },
  2: {
    id: '2',
    token: 2,
    name: 'Silver',
    symbol: 'SLV',
    owner: CAROL,
    totalsupply: '500',
    type: '010',
    decimal: 0,
    createdate: blockTime(4),
    has_image: false,
    image_url: '/api/v1/token/2/image',
    burnningamount: '0',
  },
};

describe('GET /api/tokens', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain });
  });
  afterAll(() => api.close());

  it('lists every token from id 0 with the spec types', async () => {
    const { status, body, headers } = await api.get<TokensPage>('/api/tokens');
    expect(status).toBe(200);
    expect(TokensPage.parse(body)).toEqual(body);
    expect(body).toEqual({
      total: 3,
      page: 1,
      limit: 20,
      items: [listed[0], listed[1], listed[2]],
      next: null,
      prev: null,
    });
    expect(headers.get('cache-control')).toBe('public, max-age=2');
  });

  it("pages by token id range, reading the range's ids, never images", async () => {
    api.calls.length = 0;
    expect((await api.get<TokensPage>('/api/tokens?limit=2')).body.items).toEqual([listed[0], listed[1]]);
    expect((await api.get<TokensPage>('/api/tokens?limit=2&page=2')).body).toMatchObject({
      total: 3,
      page: 2,
      limit: 2,
      items: [listed[2]],
      next: null,
      prev: /^[A-Za-z0-9_-]+$/,
    });
    expect((await api.get<TokensPage>('/api/tokens?limit=2&page=3')).body).toEqual({
      total: 3,
      page: 3,
      limit: 2,
      items: [],
      next: null,
      prev: null,
    });
    const reads = api.calls.filter((c) => c.collection === 'tokens' && c.method === 'getMany');
    // Page 2 reads up to the last id; page 3 is past it: nothing to read.
    expect(reads.map((c) => c.args[0])).toEqual([['0', '1'], ['2']]);
    expect(api.calls.some((c) => c.collection === 'token_images')).toBe(false);
  });

  it('accepts limit 100 and answers 400 for limit 101, page 0 and non-numbers', async () => {
    expect((await api.get('/api/tokens?limit=100')).status).toBe(200);
    for (const q of ['limit=101', 'limit=0', 'page=0', 'page=x', 'limit=-5']) {
      const res = await api.get(`/api/tokens?${q}`);
      expect(res.status, q).toBe(400);
      expect(ErrorBody.parse(res.body).error.message, q).toContain(`query.${q.split('=')[0]}`);
    }
  });

  it('answers an empty list before any token is indexed', async () => {
    const empty = await startTestApi({ fixture: buildChain(2) });
    try {
      expect((await empty.get('/api/tokens')).body).toEqual({
        total: 0,
        page: 1,
        limit: 20,
        items: [],
        next: null,
        prev: null,
      });
    } finally {
      await empty.close();
    }
  });
});

describe('GET /api/token/{id}', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain, now: () => NOW * 1000 });
  });
  afterAll(() => api.close());

  it('serves the token with its image data URI and circulation supply', async () => {
    const { status, body } = await api.get<TokenDetail>('/api/token/1');
    expect(status).toBe(200);
    expect(TokenDetail.parse(body)).toEqual(body);
    const { has_image: _h, image_url: _u, ...common } = listed[1];
    expect(body).toEqual({
      ...common,
      // 10 500 − OWNER's 5720 (its 300 in sale is not subtracted).
      circulation_supply: '4780',
      // All 10 000 registered were reserved.
      remainamount: '0',
      hardcap: '0',
      softcap: '0',
      url: 'https://gold.example',
      information: 'shiny',
      image: PNG_DATA_URI,
      status: 'normal',
      // Its last write was the burn.
      job_type: 'tokenBurning',
    } satisfies TokenDetail);
  });

  it('subtracts the owner’s balance but not its auction escrow', async () => {
    // CAROL owns Silver: 500 − 450 (50 are in auction).
    const { body } = await api.get<TokenDetail>('/api/token/2');
    expect(body).toMatchObject({ circulation_supply: '50', image: '', url: 'https://silver.example' });
    expect((await api.get<TokenDetail>('/api/token/0')).body).toMatchObject({
      circulation_supply: '100',
      job_type: 'tokenRegister',
    });
  });

  it('reports the job type of the token record’s last write', async () => {
    expect((await api.get<TokenDetail>('/api/token/1')).body.job_type).toBe('tokenBurning');
    expect((await api.get<TokenDetail>('/api/token/2')).body.job_type).toBe('tokenUpdate');
  });

  it('never answers a circulation supply below 0', async () => {
    const odd = buildChain(1);
    odd.block([
      odd.registerToken({
        token: 0,
        name: 'Odd',
        symbol: 'ODD',
        owner: ALICE,
        totalsupply: '100',
        // The chaincode holds each reserve to the supply, not their sum: the owner ends up with 150.
        reserve: [
          { address: ALICE, value: '80' },
          { address: BOB, value: '70' },
        ],
      }),
    ]);
    odd.block([odd.transfer({ from: BOB, to: ALICE, amount: '70', token: 0 })]);
    const oddApi = await startTestApi({ fixture: odd });
    try {
      expect((await oddApi.get<TokenDetail>('/api/token/0')).body.circulation_supply).toBe('0');
    } finally {
      await oddApi.close();
    }
  });

  it('answers 404 for an unknown token and 400 for an id that is not a whole number in digits', async () => {
    const missing = await api.get('/api/token/3');
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    for (const id of ['abc', '-1', '1.5', '01', '1e3', '99999999999999999']) {
      const res = await api.get(`/api/token/${id}`);
      expect(res.status, id).toBe(400);
      expect(ErrorBody.parse(res.body).error.message, id).toContain('path.id');
    }
  });
});

describe('GET /api/mtc-stats', () => {
  it('serves token 0’s supply figures with the spec types', async () => {
    const api = await startTestApi({ fixture: chain });
    try {
      const { status, body } = await api.get<MtcStats>('/api/mtc-stats');
      expect(status).toBe(200);
      expect(MtcStats.parse(body)).toEqual(body);
      expect(body).toEqual({
        token: 0,
        name: 'Metacoin',
        symbol: 'MTC',
        decimal: 8,
        totalsupply: '1000000',
        // OWNER holds 999 900 of it after giving DAVE 100.
        circulation_supply: '100',
        remainamount: '0',
        burnningamount: '0',
        softcap: '0',
        hardcap: '0',
        status: 'normal',
        createdate: blockTime(2),
      } satisfies MtcStats);
    } finally {
      await api.close();
    }
  });

  it('answers 404 until token 0 is indexed', async () => {
    const api = await startTestApi({ fixture: buildChain(3) });
    try {
      const res = await api.get('/api/mtc-stats');
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
    } finally {
      await api.close();
    }
  });
});
