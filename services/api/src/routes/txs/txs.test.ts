import type { RawEntry } from '@mtc/domain';
import type { TxDoc } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, buildChain, fakeChain, hash, startTestApi, tokenDoc, type TestApi } from '../../testing/harness.ts';
import { RawTxResponse, TransactionsPage, TxDetailList, type TxListEntry } from './schemas.ts';

/** 60 blocks with h % 3 transactions each: 60 listed transactions, tokens 0, 1, 2 in turn. */
const fixture = buildChain(60);
const T = fixture.head.txCount;
const bySeq = (seq: number): TxDoc => fixture.txs[seq]!;
const tokens = [tokenDoc(0, 'Metacoin', 'MTC', 8), tokenDoc(1, 'Gold', 'GLD', 2)];

describe('GET /api/transactions', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture, seed: { tokens } });
  });
  afterAll(() => api.close());

  it('lists the newest transactions by seq with the spec types', async () => {
    expect(T).toBe(60);
    const { status, body } = await api.get<TransactionsPage>('/api/transactions?limit=5');
    expect(status).toBe(200);
    expect(TransactionsPage.parse(body)).toEqual(body);
    expect(body.transactions.map((t) => t.id)).toEqual([59, 58, 57, 56, 55].map((s) => bySeq(s)._id));
    expect(body).toMatchObject({ currentBlock: 60, page: 1, totalPages: 12 });
  });

  it('joins the token and uses the block timestamp as blockTs', async () => {
    const { body } = await api.get<TransactionsPage>('/api/transactions?limit=3');
    const tx = bySeq(59);
    const block = fixture.blocks[tx.height - 1]!;
    expect(tx.timestamp).not.toBe(block.timestamp);
    const expected: TxListEntry = {
      id: tx._id,
      type: 'transfer',
      from: tx.summary.from,
      to: tx.summary.to,
      amount: '1000',
      token: '2',
      blockNum: tx.height,
      blockTs: block.timestamp,
      tokenSymbol: '',
      tokenName: '',
      tokenDecimal: 0,
    };
    expect(body.transactions[0]).toEqual(expected);
    expect(body.transactions[1]).toMatchObject({ token: '1', tokenSymbol: 'GLD', tokenName: 'Gold', tokenDecimal: 2 });
    expect(body.transactions[2]).toMatchObject({
      token: '0',
      tokenSymbol: 'MTC',
      tokenName: 'Metacoin',
      tokenDecimal: 8,
    });
  });

  it('reads tokens with one getMany per page and the page with one seq range', async () => {
    api.calls.length = 0;
    await api.get('/api/transactions?page=2&limit=50');
    expect(api.calls.filter((c) => c.collection === 'tokens')).toEqual([
      { collection: 'tokens', method: 'getMany', args: [expect.arrayContaining(['0', '1', '2'])] },
    ]);
    expect(api.calls.filter((c) => c.collection === 'txs')).toEqual([
      { collection: 'txs', method: 'find', args: [{ seq: { $gte: 0, $lt: 10 } }, { sort: [['seq', -1]], limit: 50 }] },
    ]);
  });

  it('returns seq range [T − p·limit, T − (p−1)·limit) on page p', async () => {
    const { body } = await api.get<TransactionsPage>('/api/transactions?page=2&limit=25');
    expect(body.transactions.map((t) => t.id)).toEqual(Array.from({ length: 25 }, (_, i) => bySeq(34 - i)._id));
    const last = await api.get<TransactionsPage>('/api/transactions?page=3&limit=25');
    expect(last.body.transactions.map((t) => t.id)).toEqual(Array.from({ length: 10 }, (_, i) => bySeq(9 - i)._id));
  });

  it('answers 200 with an empty list when the page is past the end', async () => {
    const { status, body } = await api.get('/api/transactions?page=4&limit=25');
    expect(status).toBe(200);
    expect(body).toEqual({ transactions: [], currentBlock: 60, page: 4, totalPages: 3 });
  });

  it('answers 400 for limit 51, page 0 and non-numeric paging', async () => {
    for (const q of ['limit=51', 'page=0', 'page=two', 'limit=1e1']) {
      const res = await api.get(`/api/transactions?${q}`);
      expect(res.status, q).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('GET /api/tx/{id}', () => {
  const tx = bySeq(10);
  const blockHash = fixture.blocks[tx.height - 1]!.hash;

  /** A token registration as the node serves it: parameters is the token object, not an array. */
  const registerId = hash('tx:register');
  const register: RawEntry = {
    timestamp: 1_700_000_500,
    id: registerId,
    parameters: { token: 7, name: 'Seven', totalsupply: '100' },
    token: 7,
    type: 'tokenRegister',
    values: { balance: 7, jobdate: '1700000499', mrc402: { MRC402_x: { balance: '1' } } },
    datakey: 'TOKEN_DATA_7',
  };
  /** The lifecycle entry has only the first seven fields. */
  const lifecycle: RawEntry = {
    timestamp: 1_700_000_500,
    id: registerId,
    parameters: [1, { a: 'b' }, 'c'],
    token: '',
    type: 'Chaincode Install or Update',
  };
  const registerTx: TxDoc = { ...bySeq(0), _id: registerId, height: 1, entries: [register, lifecycle] };

  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture, seed: { tokens } });
    await api.store.write([{ op: 'put', collection: 'txs', doc: registerTx }]);
  });
  afterAll(() => api.close());

  it('serves one detail per entry with the spec types', async () => {
    const { status, body, headers } = await api.get<TxDetailList>(`/api/tx/${tx._id}`);
    expect(status).toBe(200);
    expect(TxDetailList.parse(body)).toEqual(body);
    expect(body).toHaveLength(2);
    const sender = tx.entries[1]!;
    expect(body[1]).toEqual({
      id: tx._id,
      type: 'transfer',
      db_id: blockHash,
      db_sn: String(tx.height),
      token: '',
      values: { tx_id: tx._id, job_type: 'transfer', jobdate: sender.timestamp, mrc402: null },
      address: ALICE,
      datakey: ALICE,
      timestamp: sender.timestamp,
      parameters: sender.parameters,
      validationCode: 0,
    });
    expect(headers.get('cache-control')).toBe('public, max-age=86400');
  });

  it('fills what an entry lacks: block, strings, jobdate, mrc402 and parameters as strings', async () => {
    const { body } = await api.get<TxDetailList>(`/api/tx/${registerId}`);
    const block1 = fixture.blocks[0]!.hash;
    expect(body[0]).toEqual({
      id: registerId,
      type: 'tokenRegister',
      db_id: block1,
      db_sn: '1',
      token: '7',
      values: {
        tx_id: registerId,
        job_type: 'tokenRegister',
        jobdate: 1_700_000_499,
        mrc402: { MRC402_x: { balance: '1' } },
      },
      address: '',
      datakey: 'TOKEN_DATA_7',
      timestamp: 1_700_000_500,
      parameters: [JSON.stringify({ token: 7, name: 'Seven', totalsupply: '100' })],
      validationCode: 0,
    });
    expect(body[1]).toMatchObject({
      type: 'Chaincode Install or Update',
      values: { tx_id: registerId, job_type: 'Chaincode Install or Update', jobdate: 1_700_000_500, mrc402: null },
      parameters: ['1', '{"a":"b"}', 'c'],
      address: '',
      datakey: '',
      validationCode: 0,
    });
  });

  it('answers 404 for an unknown hash and 400 for a malformed one', async () => {
    const missing = await api.get(`/api/tx/${hash('missing')}`);
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    for (const id of ['123', 'z'.repeat(64), `${tx._id}0`]) {
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
      const { status, body } = await api.get(`/api/rawtx/${tx._id}`);
      expect(status).toBe(200);
      expect(RawTxResponse.parse(body)).toEqual(body);
      expect(body).toEqual({ transaction: fixture.rawTxs.get(tx._id) });
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
      const res = await api.get(`/api/rawtx/${tx._id}`);
      expect(res.status).toBe(503);
      expect(ErrorBody.parse(res.body).error.code).toBe('unavailable');
    } finally {
      await api.close();
    }
  });
});
