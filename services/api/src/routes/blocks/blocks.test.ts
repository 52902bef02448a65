import { summarize } from '@mtc/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { buildChain, fakeChain, hash, startTestApi, type TestApi } from '../../testing/harness.ts';
import { RAW_TX_CONCURRENCY } from './blocks.ts';
import { BlockDetail, BlocksPage, RawBlockResponse } from './schemas.ts';

/** 95 blocks; block 40 holds 20 transactions (more than the raw route's concurrency). */
const fixture = buildChain(95, (h) => (h === 40 ? 20 : h % 3));
const H = 95;

describe('GET /api/blocks', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture });
  });
  afterAll(() => api.close());

  it('lists the 20 newest blocks with the spec types when no paging is given', async () => {
    const { status, body } = await api.get<BlocksPage>('/api/blocks');
    expect(status).toBe(200);
    expect(BlocksPage.parse(body)).toEqual(body);
    expect(body.blocks.map((b) => b.height)).toEqual(Array.from({ length: 20 }, (_, i) => H - i));
    expect(body).toMatchObject({ currentBlock: H, page: 1, totalPages: 5 });
    const [first] = body.blocks;
    expect(first).toEqual({
      height: H,
      hash: hash(`block:${H}`),
      txCount: H % 3,
      timestamp: fixture.blocks[H - 1]!.timestamp,
    });
  });

  it('returns the height range (H − p·limit, H − (p−1)·limit] for page p', async () => {
    const { body } = await api.get<BlocksPage>('/api/blocks?page=3&limit=10');
    expect(body.blocks.map((b) => b.height)).toEqual(Array.from({ length: 10 }, (_, i) => 75 - i));
    expect(body).toMatchObject({ page: 3, totalPages: 10 });
  });

  it('returns the rest on the last page', async () => {
    const { body } = await api.get<BlocksPage>('/api/blocks?page=5&limit=20');
    expect(body.blocks.map((b) => b.height)).toEqual(Array.from({ length: 15 }, (_, i) => 15 - i));
  });

  it('answers 200 with an empty list when the page is past the end', async () => {
    const { status, body } = await api.get<BlocksPage>('/api/blocks?page=6&limit=20');
    expect(status).toBe(200);
    expect(body).toEqual({ blocks: [], currentBlock: H, page: 6, totalPages: 5, next: null, prev: null });
  });

  it('reads a page of blocks by their keys (heights), never by an offset or a range to sort', async () => {
    api.calls.length = 0;
    await api.get('/api/blocks?page=1000000&limit=50');
    await api.get('/api/blocks?page=2&limit=50');
    const reads = api.calls.filter((c) => c.collection === 'blocks');
    const heights = Array.from({ length: 45 }, (_, i) => String(45 - i));
    expect(reads).toEqual([{ collection: 'blocks', method: 'getMany', args: [heights] }]);
  });

  it('accepts limit 50 and rejects limit 51 without clamping', async () => {
    expect((await api.get('/api/blocks?limit=50')).status).toBe(200);
    const res = await api.get('/api/blocks?limit=51');
    expect(res.status).toBe(400);
    const { error } = ErrorBody.parse(res.body);
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain('limit');
  });

  it('answers 400 when page or limit is not a whole number in range', async () => {
    for (const q of ['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=1000001', 'limit=0', 'limit=x', 'page=']) {
      const res = await api.get(`/api/blocks?${q}`);
      expect(res.status, q).toBe(400);
      expect(ErrorBody.parse(res.body).error.code, q).toBe('bad_request');
    }
  });

  it('lists nothing before the first block is indexed', async () => {
    const empty = await startTestApi({ fixture, headAt: 0 });
    try {
      const { body } = await empty.get('/api/blocks');
      expect(body).toEqual({ blocks: [], currentBlock: 0, page: 1, totalPages: 0, next: null, prev: null });
    } finally {
      await empty.close();
    }
  });
});

describe('GET /api/block/{id}', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture });
  });
  afterAll(() => api.close());

  const block40 = fixture.blocks[39]!;
  const expected40 = {
    id: block40.hash,
    sn: '40',
    timestamp: block40.timestamp,
    transaction: block40.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
  };

  it('serves the block detail with sn as a string when asked by height', async () => {
    const { status, body, headers } = await api.get<BlockDetail>('/api/block/40');
    expect(status).toBe(200);
    expect(BlockDetail.parse(body)).toEqual(body);
    expect(body).toEqual(expected40);
    expect(typeof body.sn).toBe('string');
    expect(headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('serves the same block when asked by hash, in either case', async () => {
    expect((await api.get(`/api/block/${block40.hash}`)).body).toEqual(expected40);
    expect((await api.get(`/api/block/${block40.hash.toUpperCase()}`)).body).toEqual(expected40);
  });

  it('answers 404 for a height or hash that is not indexed', async () => {
    for (const id of ['96', hash('nope')]) {
      const res = await api.get(`/api/block/${id}`);
      expect(res.status, id).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('answers 400 for an id that is neither a height nor a hash', async () => {
    for (const id of ['0', '-1', 'abc', '1.5', '007', 'a'.repeat(63), 'g'.repeat(64)]) {
      const res = await api.get(`/api/block/${id}`);
      expect(res.status, id).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('GET /api/rawblock/{id}', () => {
  it('serves the node block with each transaction typed and its node payload', async () => {
    const api = await startTestApi({ fixture });
    try {
      const { status, body } = await api.get<RawBlockResponse>('/api/rawblock/40');
      expect(status).toBe(200);
      expect(RawBlockResponse.parse(body)).toEqual(body);
      const raw = fixture.rawBlock('40')!;
      expect(body.block).toMatchObject({ id: raw.id, sn: '40', timestamp: raw.timestamp });
      expect(body.block.transaction.map((t) => t.id)).toEqual(raw.transaction.map((t) => t.id));
      for (const [i, tx] of body.block.transaction.entries()) {
        const payload = fixture.rawTx(tx.id)!;
        expect(tx).toEqual({ ...raw.transaction[i]!, type: summarize(payload).type, payload });
      }
    } finally {
      await api.close();
    }
  });

  it('fetches the payloads with bounded concurrency', async () => {
    const api = await startTestApi({ fixture });
    try {
      await api.get(`/api/rawblock/${fixture.blocks[39]!.hash}`);
      expect(api.chain.calls.transaction).toBe(20);
      expect(api.chain.maxInFlight).toBeGreaterThan(1);
      expect(api.chain.maxInFlight).toBeLessThanOrEqual(RAW_TX_CONCURRENCY);
    } finally {
      await api.close();
    }
  });

  it('answers 404 when the node does not know the block', async () => {
    const api = await startTestApi({ fixture });
    try {
      const res = await api.get('/api/rawblock/500');
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
    } finally {
      await api.close();
    }
  });

  it('answers 503 when the node is unreachable', async () => {
    const chain = fakeChain(fixture);
    chain.down = true;
    const api = await startTestApi({ fixture, chain });
    try {
      const res = await api.get('/api/rawblock/40');
      expect(res.status).toBe(503);
      expect(ErrorBody.parse(res.body).error.code).toBe('unavailable');
      expect(JSON.stringify(res.body)).not.toContain('ECONNREFUSED');
    } finally {
      await api.close();
    }
  });

  it('answers 400 for a malformed id', async () => {
    const api = await startTestApi({ fixture });
    try {
      expect((await api.get('/api/rawblock/xyz')).status).toBe(400);
      expect(api.chain.calls.block).toBe(0);
    } finally {
      await api.close();
    }
  });
});
