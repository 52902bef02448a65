import { isKnownActivity } from '@mtc/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { startTestApi, type TestApi } from '../../testing/harness.ts';
import { blockTime, CAROL, DAVE, ERIN, OWNER, tokenEconomy, txTime } from '../../testing/token-economy.ts';
import { TokenHistory, TokenTxsPage, type TokenLifecycleEvent, type TokenTransfer } from './schemas.ts';

const chain = tokenEconomy();
const tx = (h: number, i = 0): string => chain.events[h - 1]!.txs[i]!.id;
/** The DEX order id of OWNER's sell order (block 8). */
const sellOrder = (() => {
  const a = chain.events[7]!.txs[0]!.activity[0]!;
  return isKnownActivity(a) && a.kind === 'sell' ? a.dexId : '';
})();

const entry = (h: number, i: number, over: Partial<TokenTransfer>): TokenTransfer => ({
  type: '',
  from: '',
  to: '',
  amount: '0',
  token: '1',
  timestamp: txTime(h, i),
  tx_id: tx(h, i),
  block_sn: h,
  recipients: [],
  memo: '',
  kind: '',
  ...over,
});

/** Token 1's activity, newest first: 9 rows. */
const GOLD_TXS: TokenTransfer[] = [
  entry(8, 0, { type: 'mrc010_sell', kind: 'sell', from: OWNER, to: sellOrder, amount: '300' }),
  entry(7, 0, {
    type: 'multi_transfer',
    kind: 'transfer',
    from: OWNER,
    to: ERIN,
    amount: '30',
    recipients: [
      { to: ERIN, amount: '20' },
      { to: DAVE, amount: '10' },
    ],
  }),
  entry(6, 1, { type: 'tokenBurning', kind: 'tokenBurn', from: OWNER, amount: '200', memo: 'less' }),
  entry(6, 0, { type: 'tokenIncrease', kind: 'tokenMint', to: OWNER, amount: '500', memo: 'more' }),
  entry(5, 0, { type: 'transfer', kind: 'transfer', from: OWNER, to: CAROL, amount: '250', memo: 'vesting' }),
  entry(3, 0, { type: 'token_reserve', kind: 'tokenReserve', from: OWNER, to: CAROL, amount: '3000' }),
  entry(3, 0, { type: 'token_reserve', kind: 'tokenReserve', from: OWNER, to: DAVE, amount: '1000' }),
  entry(3, 0, { type: 'token_reserve', kind: 'tokenReserve', from: OWNER, to: OWNER, amount: '6000' }),
  entry(3, 0, { type: 'tokenRegister', kind: 'tokenCreate', from: OWNER, amount: '10000' }),
];

describe('GET /api/token/{id}/txs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain });
  });
  afterAll(() => api.close());

  it("lists the token's activity newest first with the spec types, a multi_transfer as one entry", async () => {
    const { status, body, headers } = await api.get<TokenTxsPage>('/api/token/1/txs?limit=4');
    expect(status).toBe(200);
    expect(TokenTxsPage.parse(body)).toEqual(body);
    expect(body).toEqual({
      owner: OWNER,
      total: 9,
      page: 1,
      limit: 4,
      data: GOLD_TXS.slice(0, 4),
      next: expect.any(String) as string,
      prev: null,
    });
    expect(headers.get('cache-control')).toBe('public, max-age=2');
  });

  it("pages back to the registration, reading the stored total and the page's rows by their ids", async () => {
    api.calls.length = 0;
    expect((await api.get<TokenTxsPage>('/api/token/1/txs?limit=4&page=2')).body.data).toEqual(GOLD_TXS.slice(4, 8));
    expect(api.calls.filter((c) => c.collection === 'token_txs')).toEqual([
      { collection: 'token_txs', method: 'getMany', args: [['1:2', '1:3', '1:4', '1:5']] },
    ]);
    expect(api.calls.filter((c) => c.collection === 'series_counters')).toEqual([
      { collection: 'series_counters', method: 'get', args: ['token_txs:1'] },
    ]);
    expect((await api.get<TokenTxsPage>('/api/token/1/txs?limit=4&page=3')).body.data).toEqual(GOLD_TXS.slice(8));
    expect((await api.get<TokenTxsPage>('/api/token/1/txs?limit=4&page=4')).body).toMatchObject({ total: 9, data: [] });
  });

  it('filters by kind and by a height or time range, with exact totals and pages of the filtered rows', async () => {
    const page = async (query: string) => (await api.get<TokenTxsPage>(`/api/token/1/txs?${query}`)).body;
    expect(await page('kind=tokenReserve')).toMatchObject({ total: 3, data: GOLD_TXS.slice(5, 8) });
    expect(await page('kind=tokenReserve&limit=2&page=2')).toMatchObject({ total: 3, data: GOLD_TXS.slice(7, 8) });
    expect(await page('kind=transfer')).toMatchObject({ total: 2, data: [GOLD_TXS[1], GOLD_TXS[4]] });
    expect(await page('kind=bid')).toMatchObject({ total: 0, data: [] });
    expect(await page('fromHeight=5&toHeight=7')).toMatchObject({ total: 4, data: GOLD_TXS.slice(1, 5) });
    expect(await page('fromHeight=5&toHeight=7&limit=3&page=2')).toMatchObject({
      total: 4,
      data: GOLD_TXS.slice(4, 5),
    });
    expect(await page('toHeight=3')).toMatchObject({ total: 4, data: GOLD_TXS.slice(5) });
    expect(await page('fromHeight=8')).toMatchObject({ total: 1, data: GOLD_TXS.slice(0, 1) });
    expect(await page('fromHeight=100')).toMatchObject({ total: 0, data: [] });
    // By block time (the fixture's blocks are blockTime(h)).
    expect(await page(`fromTime=${blockTime(5)}&toTime=${blockTime(7)}`)).toMatchObject({
      total: 4,
      data: GOLD_TXS.slice(1, 5),
    });
    // Strictly between blocks 5 and 7: block 6 only.
    expect(await page(`fromTime=${blockTime(5) + 1}&toTime=${blockTime(7) - 1}`)).toMatchObject({
      total: 2,
      data: GOLD_TXS.slice(2, 4),
    });
    expect(await page('kind=transfer&toHeight=6')).toMatchObject({ total: 1, data: [GOLD_TXS[4]] });
    // A range that holds no block is an empty list, as in /api/export/txs.
    expect(await page('fromHeight=7&toHeight=5')).toMatchObject({ total: 0, data: [] });
    expect(await page(`fromTime=${blockTime(9) + 1}&toTime=${blockTime(9) + 2}`)).toMatchObject({ total: 0, data: [] });
  });

  it("reads a filtered page by the references its counter holds, then the token's rows by id, as deep as page 1", async () => {
    api.calls.length = 0;
    expect((await api.get<TokenTxsPage>('/api/token/1/txs?kind=tokenReserve&limit=1&page=3')).body.data).toEqual([
      GOLD_TXS[7],
    ]);
    expect(api.calls.filter((c) => c.collection === 'token_txs' || c.collection === 'series_refs')).toEqual([
      // Fewer than 64 rows: the list's only chunk is the partly filled one, kept in the counter.
      { collection: 'token_txs', method: 'getMany', args: [['1:2']] },
    ]);
  });

  it('answers 400 for an unknown kind or a malformed range', async () => {
    for (const query of [
      'kind=teleport',
      'kind=',
      'fromHeight=0',
      'toHeight=x',
      'fromTime=-1',
      'fromTime=1.5',
      'toHeight=1e3',
    ]) {
      const res = await api.get(`/api/token/1/txs?${query}`);
      expect(res.status, query).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });

  it("names the token's owner and keeps each token's activity apart", async () => {
    const { body } = await api.get<TokenTxsPage>('/api/token/2/txs');
    expect(body.owner).toBe(CAROL);
    expect(body.total).toBe(4);
    expect(body.data.map((d) => [d.type, d.block_sn, d.token])).toEqual([
      ['tokenUpdate', 9, '2'],
      ['mrc010_auction', 8, '2'],
      ['token_reserve', 4, '2'],
      ['tokenRegister', 4, '2'],
    ]);
  });

  it('answers 404 for an unknown token and 400 for a bad id or paging', async () => {
    const missing = await api.get('/api/token/3/txs');
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    expect((await api.get('/api/token/1/txs?limit=100')).status).toBe(200);
    for (const path of ['/api/token/1x/txs', '/api/token/1/txs?limit=101', '/api/token/1/txs?page=-2']) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('GET /api/token/{id}/history', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain });
  });
  afterAll(() => api.close());

  const event = (h: number, i: number, over: Partial<TokenLifecycleEvent>): TokenLifecycleEvent => ({
    tx_id: tx(h, i),
    tx_type: '',
    from_addr: OWNER,
    to_addr: '-',
    amount: '0',
    block_sn: h,
    timestamp: txTime(h, i),
    memo: '',
    ...over,
  });

  it('lists creation, reserves, mints and burns oldest first with readable labels', async () => {
    const { status, body } = await api.get<TokenHistory>('/api/token/1/history');
    expect(status).toBe(200);
    expect(TokenHistory.parse(body)).toEqual(body);
    expect(body).toEqual({
      token_id: 1,
      total: 6,
      next: null,
      prev: null,
      events: [
        event(3, 0, { tx_type: 'Token create', amount: '10000' }),
        event(3, 0, { tx_type: 'Token reserve', to_addr: OWNER, amount: '6000' }),
        event(3, 0, { tx_type: 'Token reserve', to_addr: DAVE, amount: '1000' }),
        event(3, 0, { tx_type: 'Token reserve', to_addr: CAROL, amount: '3000' }),
        event(6, 0, { tx_type: 'Token mint', to_addr: OWNER, amount: '500', memo: 'more' }),
        event(6, 1, { tx_type: 'Token burn', amount: '200', memo: 'less' }),
      ],
    });
  });

  it('leaves transfers, updates and DEX orders out, and reads rows up to the stored total', async () => {
    api.calls.length = 0;
    const { body } = await api.get<TokenHistory>('/api/token/2/history');
    expect(body.events.map((e) => e.tx_type)).toEqual(['Token create', 'Token reserve']);
    expect(api.calls.filter((c) => c.collection === 'token_history')).toEqual([
      { collection: 'token_history', method: 'getMany', args: [['2:1', '2:2']] },
    ]);
  });

  it('answers 404 for an unknown token and 400 for a malformed id', async () => {
    const missing = await api.get('/api/token/12/history');
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    expect((await api.get('/api/token/%201/history')).status).toBe(400);
  });
});
