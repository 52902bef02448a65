import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { address, badChecksum, createChain, GENESIS_TS, startTestApi, type TestApi } from '../../testing/harness.ts';
import { CAT_1, CAT_2, CAT_3, CATS, GOLD_NFT, GOLD_NFT_IMAGE, nftEconomy } from '../../testing/nft-economy.ts';
import {
  CAROL,
  DAVE,
  ERIN,
  LOCK_FAR,
  LOCK_NEAR,
  LOCK_PAST,
  NOW,
  OWNER,
  tokenEconomy,
  blockTime,
} from '../../testing/token-economy.ts';
import { Address, AddressTxsPage, type AddressActivity, type AddressBalance } from './schemas.ts';

const chain = tokenEconomy();
const MTC = { tokenId: 0, tokenName: 'Metacoin', tokenSymbol: 'MTC', decimal: 8, image: '' };
const GLD = { tokenId: 1, tokenName: 'Gold', tokenSymbol: 'GLD', decimal: 2, image: '/api/v1/token/1/image' };
const SLV = { tokenId: 2, tokenName: 'Silver', tokenSymbol: 'SLV', decimal: 0, image: '' };
const none = { saleamount: '0', auctionamount: '0', lockBalance: '0', locks: [] };
/** An address with a valid checksum that no transaction ever wrote. */
const STRANGER = address('stranger');
/**
 * Of the address form (the OpenAPI pattern accepts them) with a CRC-32 that fails: CAROL's with one
 * checksum character changed, and the one schemathesis sent.
 */
const NO_SUCH = [badChecksum(CAROL), `MT${'0'.repeat(38)}`];
/** Not of the address form: short, lower case, long, digits, and an upper-case checksum. */
const MALFORMED = ['MTshort', CAROL.toLowerCase(), `${CAROL}0`, '12345', `${CAROL.slice(0, -8)}${'A'.repeat(8)}`];

/** A 404 or 400 in the API's one error shape, as JSON, its message naming the parameter. */
function expectError(
  res: { status: number; headers: Headers; body: unknown },
  status: 400 | 404,
  says: string,
  what: string,
): void {
  expect(res.status, what).toBe(status);
  expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
  const { error } = ErrorBody.parse(res.body);
  expect(error.code, what).toBe(status === 404 ? 'not_found' : 'bad_request');
  expect(error.message, what).toContain(says);
}

describe('GET /api/address/{id}', () => {
  let now = NOW * 1000;
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain, now: () => now });
  });
  afterAll(() => api.close());

  it('serves the wallet with one balance per token, locks being the entries still ahead of now', async () => {
    now = NOW * 1000;
    const { status, body, headers } = await api.get<Address>(`/api/address/${CAROL}`);
    expect(status).toBe(200);
    expect(Address.parse(body)).toEqual(body);
    const expected: Address = {
      address: CAROL,
      regdate: GENESIS_TS + 60,
      addinfo: 'carol memo',
      balances: [
        { ...MTC, ...none, balance: '0' },
        {
          ...GLD,
          balance: '3250',
          saleamount: '0',
          auctionamount: '0',
          lockBalance: '3250',
          locks: [
            { amount: '3000', unlockdate: LOCK_FAR },
            { amount: '250', unlockdate: LOCK_NEAR },
          ],
        },
        // Silver's image is "" in this economy.
        { ...SLV, balance: '450', saleamount: '0', auctionamount: '50', lockBalance: '0', locks: [] },
      ],
      nfts: [],
    };
    expect(body).toEqual(expected);
    expect(headers.get('cache-control')).toBe('public, max-age=2');
  });

  it('counts an expired lock in balance but not in lockBalance', async () => {
    now = NOW * 1000;
    const { body } = await api.get<Address>(`/api/address/${DAVE}`);
    const expected: AddressBalance[] = [
      { ...MTC, ...none, balance: '100' },
      { ...GLD, ...none, balance: '1010' },
    ];
    expect(body.balances).toEqual(expected);
    expect(LOCK_PAST).toBeLessThan(NOW);
  });

  it('moves a lock out of lockBalance once the clock passes its unlock date', async () => {
    now = (LOCK_NEAR + 1) * 1000;
    const { body } = await api.get<Address>(`/api/address/${CAROL}`);
    expect(body.balances[1]).toMatchObject({
      balance: '3250',
      lockBalance: '3000',
      locks: [{ amount: '3000', unlockdate: LOCK_FAR }],
    });
    now = LOCK_FAR * 1000;
    expect((await api.get<Address>(`/api/address/${CAROL}`)).body.balances[1]).toMatchObject({
      balance: '3250',
      lockBalance: '0',
      locks: [],
    });
  });

  it('counts a lock through the last second before its unlock date and not at the date itself', async () => {
    const carolGold = async (unixMs: number) => {
      now = unixMs;
      return (await api.get<Address>(`/api/address/${CAROL}`)).body.balances[1];
    };
    const farOnly = { balance: '3250', lockBalance: '3000', locks: [{ amount: '3000', unlockdate: LOCK_FAR }] };
    const unlocked = { balance: '3250', lockBalance: '0', locks: [] };
    expect(await carolGold((LOCK_FAR - 1) * 1000)).toMatchObject(farOnly);
    // The clock is read in milliseconds: 999 ms before the date is still the second before it.
    expect(await carolGold(LOCK_FAR * 1000 - 1)).toMatchObject(farOnly);
    expect(await carolGold(LOCK_FAR * 1000)).toMatchObject(unlocked);
    // LOCK_NEAR the same way, with LOCK_FAR still ahead.
    expect(await carolGold((LOCK_NEAR - 1) * 1000)).toMatchObject({ lockBalance: '3250' });
    expect(await carolGold(LOCK_NEAR * 1000)).toMatchObject(farOnly);
  });

  it('leaves an empty entry out of locks and lockBalance while its unlock date is ahead', async () => {
    // A dated entry can stand at 0 (the chaincode never removes a token-0 entry), and locks are the
    // non-empty dated entries whatever the clock says. Here the wallet came with such an entry from
    // before the fixture, then put all its MTC on sale.
    const holder = address('emptylock');
    const c = createChain();
    c.openWallet(holder, [
      { token: 0, balance: '0' },
      { token: 0, balance: '0', unlockdate: LOCK_FAR },
    ]);
    c.block([
      c.registerToken({
        token: 0,
        name: 'Metacoin',
        symbol: 'MTC',
        owner: holder,
        totalsupply: '100',
        reserve: [{ address: holder, value: '100' }],
      }),
    ]);
    c.block([c.registerToken({ token: 1, name: 'Gold', symbol: 'GLD', owner: holder, totalsupply: '1' })]);
    c.block([c.sell({ seller: holder, token: 0, amount: '100', price: '1', payToken: 1 })]);
    const emptyApi = await startTestApi({ fixture: c, now: () => NOW * 1000 });
    try {
      const { status, body } = await emptyApi.get<Address>(`/api/address/${holder}`);
      expect(status).toBe(200);
      expect(NOW).toBeLessThan(LOCK_FAR);
      expect(body.balances).toEqual([{ ...MTC, ...none, balance: '0', saleamount: '100' }]);
    } finally {
      await emptyApi.close();
    }
  });

  it('shows sale escrow apart from balance', async () => {
    now = NOW * 1000;
    const { body } = await api.get<Address>(`/api/address/${OWNER}`);
    expect(body.balances).toEqual([
      { ...MTC, ...none, balance: '999900' },
      { ...GLD, ...none, balance: '5720', saleamount: '300' },
    ]);
  });

  it('sums escrow as written, negative after an auction is cancelled the chaincode way', async () => {
    // The chaincode's mrc010unauction gives the 40 back but takes them from saleamount (§7.4).
    const seller = address('seller');
    const quirk = createChain();
    quirk.block([quirk.newWallet(seller)]);
    quirk.block([
      quirk.registerToken({
        token: 0,
        name: 'Metacoin',
        symbol: 'MTC',
        owner: seller,
        totalsupply: '100',
        reserve: [{ address: seller, value: '100' }],
      }),
    ]);
    quirk.block([quirk.auction({ seller, token: 0, amount: '40', startPrice: '1' })]);
    quirk.block([quirk.unauction({ seller, token: 0 })]);
    const quirkApi = await startTestApi({ fixture: quirk });
    try {
      const { status, body } = await quirkApi.get<Address>(`/api/address/${seller}`);
      expect(status).toBe(200);
      expect(Address.parse(body)).toEqual(body);
      expect(body.balances).toEqual([{ ...MTC, ...none, balance: '100', saleamount: '-40', auctionamount: '40' }]);
    } finally {
      await quirkApi.close();
    }
  });

  it('reads the tokens of all balances with one getMany', async () => {
    api.calls.length = 0;
    await api.get(`/api/address/${CAROL}`);
    expect(api.calls.filter((c) => c.collection === 'tokens')).toEqual([
      { collection: 'tokens', method: 'getMany', args: [['0', '1', '2']] },
    ]);
  });

  it('answers 404 for a valid address with no wallet', async () => {
    const res = await api.get(`/api/address/${STRANGER}`);
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
  });

  it('answers 404 "no such address" for an id of the address form whose checksum fails', async () => {
    for (const id of NO_SUCH) expectError(await api.get(`/api/address/${id}`), 404, 'path.id: no such address', id);
  });

  it('answers 400 for an id that is not of the address form', async () => {
    for (const id of MALFORMED) expectError(await api.get(`/api/address/${id}`), 400, 'path.id', id);
  });
});

describe('GET /api/address/{id}/txs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain, now: () => NOW * 1000 });
  });
  afterAll(() => api.close());

  const tx = (h: number, i = 0): string => chain.events[h - 1]!.txs[i]!.id;
  const row = (over: Partial<AddressActivity>): AddressActivity => ({
    job_type: '',
    jobdate: 0,
    tx_id: '',
    db_sn: '',
    summary: '',
    from: '',
    to: '',
    amount: '0',
    tokenName: '',
    tokenSymbol: '',
    parentName: '',
    tokenId: null,
    kind: '',
    ...over,
  });

  /**
   * CAROL's wallet was written 5 times: created (block 1), reserved 3000 GLD (block 3), reserved
   * 500 SLV as its owner (block 4), received 250 GLD (block 5), auctioned 50 SLV (block 8).
   */
  it('lists the writes of the wallet newest first with the spec types', async () => {
    const { status, body } = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?limit=2`);
    expect(status).toBe(200);
    expect(AddressTxsPage.parse(body)).toEqual(body);
    expect(body).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(body.data.map((r) => r.job_type)).toEqual(['mrc010auction', 'receive']);
    expect(body.data[0]).toMatchObject({
      tx_id: tx(8, 1),
      db_sn: '8',
      jobdate: blockTime(8),
      from: CAROL,
      amount: '50',
      tokenName: 'Silver',
      tokenSymbol: 'SLV',
      parentName: '',
    });
    expect(body.data[1]).toEqual(
      row({
        job_type: 'receive',
        jobdate: blockTime(5),
        tx_id: tx(5, 0),
        db_sn: '5',
        summary: 'Receive',
        from: OWNER,
        to: CAROL,
        amount: '250',
        tokenName: 'Gold',
        tokenSymbol: 'GLD',
        tokenId: 1,
        kind: 'transfer',
      }),
    );
    expect(body.data[1]).not.toHaveProperty('nftId');
  });

  it('filters by token, direction and kind, each and combined, with exact totals', async () => {
    // CAROL's rows, newest first: auction SLV (out), receive GLD (in), reserve SLV to itself (in
    // and out), reserve GLD (in), new wallet (in, no token).
    const kinds = async (query: string) => {
      const { status, body } = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?${query}`);
      expect(status, query).toBe(200);
      return [body.total, body.data.map((r) => `${r.db_sn}:${r.job_type}`)];
    };
    expect(await kinds('direction=in')).toEqual([
      4,
      ['5:receive', '4:token_reserve', '3:token_reserve', '1:NewWallet'],
    ]);
    expect(await kinds('direction=out')).toEqual([2, ['8:mrc010auction', '4:token_reserve']]);
    expect(await kinds('token=1')).toEqual([2, ['5:receive', '3:token_reserve']]);
    expect(await kinds('token=0')).toEqual([0, []]);
    expect(await kinds('token=2&direction=out')).toEqual([2, ['8:mrc010auction', '4:token_reserve']]);
    expect(await kinds('kind=tokenCreate')).toEqual([2, ['4:token_reserve', '3:token_reserve']]);
    expect(await kinds('kind=tokenCreate&direction=in&token=1')).toEqual([1, ['3:token_reserve']]);
    expect(await kinds('kind=walletCreate&direction=out')).toEqual([0, []]);
    expect(await kinds('direction=in&limit=3&page=2')).toEqual([4, ['1:NewWallet']]);
    expect(await kinds('direction=in&fromHeight=2&toHeight=4')).toEqual([2, ['4:token_reserve', '3:token_reserve']]);
    for (const query of ['token=-1', 'token=01', 'direction=sideways', 'kind=Transfer', 'toHeight=0']) {
      const res = await api.get(`/api/address/${CAROL}/txs?${query}`);
      expect(res.status, query).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });

  it('pages back to the creation of the wallet', async () => {
    const page2 = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?limit=2&page=2`);
    expect(page2.body.data).toEqual([
      row({
        job_type: 'token_reserve',
        jobdate: blockTime(4),
        tx_id: tx(4),
        db_sn: '4',
        summary: 'Token reserve',
        from: CAROL,
        to: CAROL,
        amount: '500',
        tokenName: 'Silver',
        tokenSymbol: 'SLV',
        tokenId: 2,
        kind: 'tokenCreate',
      }),
      row({
        job_type: 'token_reserve',
        jobdate: blockTime(3),
        tx_id: tx(3),
        db_sn: '3',
        summary: 'Token reserve',
        from: OWNER,
        to: CAROL,
        amount: '3000',
        tokenName: 'Gold',
        tokenSymbol: 'GLD',
        tokenId: 1,
        kind: 'tokenCreate',
      }),
    ]);
    const page3 = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?limit=2&page=3`);
    expect(page3.body).toEqual({
      total: 5,
      page: 3,
      limit: 2,
      next: null,
      prev: expect.any(String) as string,
      data: [
        row({
          job_type: 'NewWallet',
          jobdate: blockTime(1),
          tx_id: tx(1, 1),
          db_sn: '1',
          summary: 'New wallet',
          to: CAROL,
          kind: 'walletCreate',
        }),
      ],
    });
    const past = await api.get<AddressTxsPage>(`/api/address/${CAROL}/txs?limit=2&page=4`);
    expect(past.body).toEqual({ total: 5, page: 4, limit: 2, data: [], next: null, prev: null });
  });

  it("reads the total from the counter and the page's rows by their ids (key and number)", async () => {
    api.calls.length = 0;
    await api.get(`/api/address/${CAROL}/txs?limit=2&page=2`);
    expect(api.calls.filter((c) => c.collection === 'series_counters')).toEqual([
      { collection: 'series_counters', method: 'get', args: [`address_txs:${CAROL}`] },
    ]);
    expect(api.calls.filter((c) => c.collection === 'address_txs')).toEqual([
      { collection: 'address_txs', method: 'getMany', args: [[`${CAROL}:2`, `${CAROL}:3`]] },
    ]);
    expect(api.calls.some((c) => c.method === 'count')).toBe(false);
  });

  it('answers 404 for a valid address with no wallet and 400 for a malformed one', async () => {
    const missing = await api.get(`/api/address/${STRANGER}/txs`);
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    expect((await api.get('/api/address/MTnope/txs')).status).toBe(400);
  });

  it('answers 404 "no such address" for an id of the address form whose checksum fails, 400 for one of another form', async () => {
    for (const id of NO_SUCH) expectError(await api.get(`/api/address/${id}/txs`), 404, 'path.id: no such address', id);
    for (const id of MALFORMED) expectError(await api.get(`/api/address/${id}/txs`), 400, 'path.id', id);
  });

  it('answers 400, not 404, when a query parameter is malformed too', async () => {
    const res = await api.get(`/api/address/${NO_SUCH[0]!}/txs?limit=101`);
    expectError(res, 400, 'query.limit', 'limit=101');
    expect(ErrorBody.parse(res.body).error.message).not.toContain('path.id');
  });

  it('accepts limit 100 and answers 400 for limit 101, page 0 and non-numbers', async () => {
    expect((await api.get(`/api/address/${CAROL}/txs?limit=100`)).status).toBe(200);
    for (const q of ['limit=101', 'limit=0', 'page=0', 'page=-1', 'limit=ten', 'page=1.5']) {
      const res = await api.get(`/api/address/${CAROL}/txs?${q}`);
      expect(res.status, q).toBe(400);
      expect(ErrorBody.parse(res.body).error.message, q).toContain(`query.${q.split('=')[0]}`);
    }
  });
});

describe('NFTs in /api/address/{id} and /api/address/{id}/txs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftEconomy() });
  });
  afterAll(() => api.close());

  const nftsOf = async (addr: string) => Address.parse((await api.get<Address>(`/api/address/${addr}`)).body).nfts;
  const cats = { name: 'Cats', image: 'https://img.example/cats.png', parent: CATS, parentName: 'Cats' };
  const held = { balance: '1', saleamount: '0', auctionamount: '0' };

  it('lists the items an address owns, an offered one in saleamount, by collection and item id', async () => {
    // The story: OWNER keeps CAT_1 and CAT_3 (on sale since block 13), ERIN got CAT_2.
    expect(await nftsOf(OWNER)).toEqual([
      { id: CAT_1, ...cats, ...held },
      { id: CAT_3, ...cats, balance: '0', saleamount: '1', auctionamount: '0' },
    ]);
    expect(await nftsOf(ERIN)).toEqual([{ id: CAT_2, ...cats, ...held }]);
  });

  it('lists MRC-402 holdings as the wallet holds them, with no parent', async () => {
    const gold = {
      id: GOLD_NFT,
      name: 'Gold NFT',
      image: GOLD_NFT_IMAGE,
      saleamount: '0',
      auctionamount: '0',
      parent: '',
      parentName: '',
    };
    expect(await nftsOf(CAROL)).toEqual([{ ...gold, balance: '70' }]);
    expect(await nftsOf(DAVE)).toEqual([{ ...gold, balance: '30' }]);
  });

  it('names the NFT and its collection in NFT activity (items received without a wallet write included), and leaves nftId out of fungible activity', async () => {
    const page = AddressTxsPage.parse((await api.get(`/api/address/${OWNER}/txs?limit=4`)).body);
    expect(page.data.map((r) => [r.job_type, r.nftId, r.parentName])).toEqual([
      ['mrc401sell', CAT_3, 'Cats'],
      ['mrc401transfer', CAT_2, 'Cats'],
      ['mrc401create', CATS, 'Cats'],
      ['mrc400create', CATS, 'Cats'],
    ]);
    // ERIN's wallet was not written when CAT_2 reached it: the item's write is its activity.
    const erin = AddressTxsPage.parse((await api.get(`/api/address/${ERIN}/txs?limit=1`)).body).data;
    expect(erin.map((r) => [r.job_type, r.from, r.to, r.nftId, r.parentName])).toEqual([
      ['mrc401_transfer', OWNER, ERIN, CAT_2, 'Cats'],
    ]);
    const dave = AddressTxsPage.parse((await api.get(`/api/address/${DAVE}/txs?limit=2`)).body).data;
    expect(dave[0]).toMatchObject({ job_type: 'receive_mrc402', nftId: GOLD_NFT, parentName: '' });
    expect(dave[1]).not.toHaveProperty('nftId');
  });
});
