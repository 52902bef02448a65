import { DETAIL_VALUE_FIELDS } from '@mtc/domain';
import { openModels } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, buildChain, fakeChain, hash, startTestApi, type TestApi, type TxView } from '../../testing/harness.ts';
import { RawTxResponse, TransactionsPage, TxDetailList, type TxListEntry } from './schemas.ts';

/**
 * 60 blocks with h % 3 transfers each (seq 0 … 59, moving tokens 0, 1, 2 in turn), then block 61
 * registering tokens 0 (MTC, 8 decimals) and 1 (GLD, 2 decimals): seq 60 and 61.
 */
const fixture = buildChain(60);
fixture.block([
  fixture.registerToken({ token: 0, name: 'Metacoin', symbol: 'MTC', decimal: 8, owner: ALICE, totalsupply: '1' }),
  fixture.registerToken({ token: 1, name: 'Gold', symbol: 'GLD', decimal: 2, owner: ALICE, totalsupply: '1' }),
]);
const T = fixture.txCount;
const bySeq = (seq: number): TxView => fixture.txs[seq]!;

describe('GET /api/transactions', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture });
  });
  afterAll(() => api.close());

  it('lists the newest transactions by seq with the spec types', async () => {
    expect(T).toBe(62);
    const { status, body } = await api.get<TransactionsPage>('/api/transactions?limit=5');
    expect(status).toBe(200);
    expect(TransactionsPage.parse(body)).toEqual(body);
    expect(body.transactions.map((t) => t.id)).toEqual([61, 60, 59, 58, 57].map((s) => bySeq(s).id));
    expect(body).toMatchObject({ currentBlock: 61, page: 1, totalPages: 13 });
  });

  it('joins the token and uses the block timestamp as blockTs', async () => {
    // Seq 58, 57, 56: transfers of tokens 1 (GLD), 0 (MTC) and 2 (not indexed).
    const { body } = await api.get<TransactionsPage>('/api/transactions?page=2&limit=3');
    const tx = bySeq(56);
    const block = fixture.blocks[tx.height - 1]!;
    expect(tx.timestamp).not.toBe(block.timestamp);
    const expected: TxListEntry = {
      id: tx.id,
      type: 'transfer',
      from: ALICE,
      to: tx.summary.to,
      amount: '1000',
      token: '2',
      blockNum: tx.height,
      blockTs: block.timestamp,
      tokenSymbol: '',
      tokenName: '',
      tokenDecimal: 0,
    };
    expect(body.transactions[2]).toEqual(expected);
    expect(body.transactions[0]).toMatchObject({ token: '1', tokenSymbol: 'GLD', tokenName: 'Gold', tokenDecimal: 2 });
    expect(body.transactions[1]).toMatchObject({
      token: '0',
      tokenSymbol: 'MTC',
      tokenName: 'Metacoin',
      tokenDecimal: 8,
    });
  });

  it("reads tokens with one getMany per page and the page's transactions by key, never by a seq query", async () => {
    api.calls.length = 0;
    await api.get('/api/transactions?page=2&limit=50');
    expect(api.calls.filter((c) => c.collection === 'tokens')).toEqual([
      { collection: 'tokens', method: 'getMany', args: [expect.arrayContaining(['0', '1', '2'])] },
    ]);
    const txReads = api.calls.filter((c) => c.collection === 'txs');
    expect(txReads.map((c) => c.method)).toEqual(['getMany']);
    expect(txReads[0]!.args[0]).toHaveLength(12);
  });

  it('returns seq range [T − p·limit, T − (p−1)·limit) on page p', async () => {
    const { body } = await api.get<TransactionsPage>('/api/transactions?page=2&limit=25');
    expect(body.transactions.map((t) => t.id)).toEqual(Array.from({ length: 25 }, (_, i) => bySeq(36 - i).id));
    const last = await api.get<TransactionsPage>('/api/transactions?page=3&limit=25');
    expect(last.body.transactions.map((t) => t.id)).toEqual(Array.from({ length: 12 }, (_, i) => bySeq(11 - i).id));
  });

  it('answers 200 with an empty list when the page is past the end', async () => {
    const { status, body } = await api.get('/api/transactions?page=4&limit=25');
    expect(status).toBe(200);
    expect(body).toEqual({
      transactions: [],
      currentBlock: 61,
      page: 4,
      totalPages: 3,
      next: null,
      prev: null,
    });
  });

  it('answers 400 for limit 51, page 0 and non-numeric paging', async () => {
    for (const q of ['limit=51', 'page=0', 'page=two', 'limit=1e1']) {
      const res = await api.get(`/api/transactions?${q}`);
      expect(res.status, q).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('the stored transaction', () => {
  it('keeps of each written value only what the detail shows (the state lives in its own models)', async () => {
    const api = await startTestApi({ fixture });
    try {
      const tx = bySeq(5);
      const written = fixture.rawTx(tx.id)!;
      expect(written.some((e) => e.values && 'balance' in e.values)).toBe(true);
      const stored = await openModels(api.store).txs.get(tx.id);
      expect(stored!.entries).toEqual(
        written.map((e) => ({
          ...e,
          values: Object.fromEntries(DETAIL_VALUE_FIELDS.filter((f) => f in e.values!).map((f) => [f, e.values![f]])),
        })),
      );
    } finally {
      await api.close();
    }
  });
});

describe('GET /api/tx/{id}', () => {
  /** A token registration as the node serves it: parameters is the token object, not an array. */
  const registerId = hash('tx:register');
  const register = {
    parameters: { token: 7, name: 'Seven', totalsupply: '100' },
    token: 7,
    type: 'tokenRegister',
    values: { balance: 7, jobdate: '1700000499', mrc402: { MRC402_x: { balance: '1' } } },
    datakey: 'TOKEN_DATA_7',
  };
  /** The lifecycle entry has only the first seven fields. */
  const lifecycle = { parameters: [1, { a: 'b' }, 'c'], token: '', type: 'Chaincode Install or Update' };
  /** 20 blocks of transfers, then block 21 with the odd transaction above. */
  const detail = buildChain(20);
  detail.block([{ ...detail.raw([register, lifecycle]), id: registerId }]);
  /**
   * Block 22: entries recording holdings maps, two large ones (one of them twice) and a small one;
   * block 23 records the first large one again.
   */
  const holdings = (n: number, balance: string) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `MRC402_${String(i).padStart(33, '0')}`,
        { balance, saleamount: '0', auctionamount: '' },
      ]),
    );
  const big = holdings(12, '5');
  const other = holdings(9, '70');
  const small = holdings(1, '3');
  const mapsEntry = (mrc402: object, at: string) => ({
    parameters: [at],
    token: '',
    type: 'receive_mrc402',
    values: { job_type: 'receive_mrc402', jobdate: 1_700_000_900, mrc402: mrc402, balance: [] },
    datakey: `MAPS_${at}`,
  });
  const mapsTx = hash('tx:maps');
  const againTx = hash('tx:maps-again');
  detail.block([
    {
      ...detail.raw([mapsEntry(big, 'a'), mapsEntry(other, 'b'), mapsEntry(big, 'c'), mapsEntry(small, 'd')]),
      id: mapsTx,
    },
  ]);
  detail.block([{ ...detail.raw([mapsEntry(big, 'e')]), id: againTx }]);
  const tx = detail.txs[10]!;
  const blockHash = detail.blocks[tx.height - 1]!.hash;

  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: detail });
  });
  afterAll(() => api.close());

  it('serves one detail per entry with the spec types', async () => {
    const { status, body, headers } = await api.get<TxDetailList>(`/api/tx/${tx.id}`);
    expect(status).toBe(200);
    expect(TxDetailList.parse(body)).toEqual(body);
    expect(body).toHaveLength(2);
    const sender = tx.entries[1]!;
    expect(body[1]).toEqual({
      id: tx.id,
      type: 'transfer',
      db_id: blockHash,
      db_sn: String(tx.height),
      token: '',
      // jobdate is the peers' clock, the block's time (the transaction's is its client's).
      values: { tx_id: tx.id, job_type: 'transfer', jobdate: detail.blocks[tx.height - 1]!.timestamp, mrc402: null },
      address: ALICE,
      datakey: ALICE,
      timestamp: sender.timestamp,
      parameters: sender.parameters,
      validationCode: 0,
    });
    expect(headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('fills what an entry lacks: block, strings, jobdate, mrc402 and parameters as strings', async () => {
    const { body } = await api.get<TxDetailList>(`/api/tx/${registerId}`);
    const block21 = detail.blocks[20]!;
    const timestamp = block21.txs[0]!.timestamp;
    expect(body[0]).toEqual({
      id: registerId,
      type: 'tokenRegister',
      db_id: block21.hash,
      db_sn: '21',
      token: '7',
      values: {
        tx_id: registerId,
        job_type: 'tokenRegister',
        jobdate: 1_700_000_499,
        mrc402: { MRC402_x: { balance: '1' } },
      },
      address: '',
      datakey: 'TOKEN_DATA_7',
      timestamp,
      parameters: [JSON.stringify({ token: 7, name: 'Seven', totalsupply: '100' })],
      validationCode: 0,
    });
    expect(body[1]).toMatchObject({
      type: 'Chaincode Install or Update',
      values: { tx_id: registerId, job_type: 'Chaincode Install or Update', jobdate: timestamp, mrc402: null },
      parameters: ['1', '{"a":"b"}', 'c'],
      address: '',
      datakey: '',
      validationCode: 0,
    });
  });

  it('serves the holdings maps each entry recorded, the large ones stored once apart', async () => {
    const { body } = await api.get<TxDetailList>(`/api/tx/${mapsTx}`);
    expect(body.map((d) => d.values.mrc402)).toEqual([big, other, big, small]);
    expect(JSON.stringify(body[0]!.values.mrc402)).toBe(JSON.stringify(big)); // the order as written too
    const again = await api.get<TxDetailList>(`/api/tx/${againTx}`);
    expect(again.body.map((d) => d.values.mrc402)).toEqual([big]);

    const models = openModels(api.store);
    const stored = await models.txs.get(mapsTx);
    expect(stored!.entries.map((e) => 'mrc402' in e.values!)).toEqual([false, false, false, true]);
    expect(stored!.maps!.map((m) => m.entry)).toEqual([0, 1, 2]);
    expect(stored!.maps![0]!.id).toBe(stored!.maps![2]!.id);
    expect((await models.txs.get(againTx))!.maps).toEqual([{ entry: 0, id: stored!.maps![0]!.id }]);
    expect((await models.sharedValues.find({})).map((d) => d.value)).toEqual(expect.arrayContaining([big, other]));
    expect(await models.sharedValues.count()).toBe(2);
  });

  it('answers 404 for an unknown hash and 400 for a malformed one', async () => {
    const missing = await api.get(`/api/tx/${hash('missing')}`);
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    for (const id of ['123', 'z'.repeat(64), `${tx.id}0`]) {
      const res = await api.get(`/api/tx/${id}`);
      expect(res.status, id).toBe(400);
    }
  });
});

describe('GET /api/rawtx/{id}', () => {
  const tx = bySeq(3);

  it('serves the node transaction as is', async () => {
    const api = await startTestApi({ fixture });
    try {
      const { status, body } = await api.get(`/api/rawtx/${tx.id}`);
      expect(status).toBe(200);
      expect(RawTxResponse.parse(body)).toEqual(body);
      expect(body).toEqual({ transaction: fixture.rawTx(tx.id) });
    } finally {
      await api.close();
    }
  });

  it('answers 404 when the node does not know it and 503 when the node is down', async () => {
    const chain = fakeChain(fixture);
    const api = await startTestApi({ fixture, chain });
    try {
      expect((await api.get(`/api/rawtx/${hash('missing')}`)).status).toBe(404);
      chain.down = true;
      const res = await api.get(`/api/rawtx/${tx.id}`);
      expect(res.status).toBe(503);
      expect(ErrorBody.parse(res.body).error.code).toBe('unavailable');
    } finally {
      await api.close();
    }
  });
});
