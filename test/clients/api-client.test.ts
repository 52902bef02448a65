import { createExplorerClient, type ApiSchema, type ExplorerClient } from '@mtc/api-client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ALICE,
  BOB,
  buildChain,
  fakeChain,
  startTestApi,
  type TestApi,
} from '../../services/api/src/testing/harness.ts';

/**
 * The generated API client against the API itself, over a fixture chain: each call is typed by the
 * OpenAPI document (a path, its parameters, its answer), and what it answers is the fixture's world.
 * Expected objects are declared with the client's types, so a field the type lacks or the answer
 * lacks fails the typecheck, and one the answer has beyond the type fails `toEqual`.
 *
 * The fixture: blocks 1 … 12, block h holding h % 3 transfers of 1000 from ALICE to BOB (12 in all,
 * the n-th moving token n % 3, so 4 of each of tokens 0, 1 and 2); ALICE starts with 10^15 of each.
 */
const HEIGHT = 12;
const NODE_HEIGHT = 15;
const fixture = buildChain(HEIGHT);

describe('@mtc/api-client against the API', () => {
  let api: TestApi;
  let client: ExplorerClient;
  beforeAll(async () => {
    api = await startTestApi({ fixture, chain: fakeChain(fixture, NODE_HEIGHT) });
    client = createExplorerClient(api.url);
  });
  afterAll(() => api.close());

  /** A block as the document lists it, from the fixture's block at `height`. */
  const blockSummary = (height: number): ApiSchema<'BlockSummary'> => {
    const block = fixture.blocks[height - 1]!;
    return { height, hash: block.hash, txCount: height % 3, timestamp: block.timestamp };
  };

  it('reads /api/chain: both heights and the newest blocks and transactions', async () => {
    const { data, error, response } = await client.GET('/api/chain');
    expectTypeOf(data).toEqualTypeOf<ApiSchema<'ChainOverview'> | undefined>();
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.localBlock).toBe(HEIGHT);
    expect(data!.mainnetBlock).toBe(NODE_HEIGHT);
    expect(data!.blocks).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map(blockSummary));
    expect(data!.transactions.map((t) => t.id)).toEqual(
      fixture.txs
        .slice(-10)
        .reverse()
        .map((t) => t.id),
    );
  });

  it('reads a page of /api/blocks with typed query parameters', async () => {
    const { data } = await client.GET('/api/blocks', { params: { query: { page: 2, limit: 5 } } });
    const expected: ApiSchema<'BlocksPage'> = {
      blocks: [7, 6, 5, 4, 3].map(blockSummary),
      currentBlock: HEIGHT,
      page: 2,
      totalPages: 3,
      next: data!.next,
      prev: data!.prev,
    };
    expect(data).toEqual(expected);
    // The cursors lead to the pages beside it: heights 2 and 1 (older), 12 … 8 (newer).
    const older = await client.GET('/api/blocks', { params: { query: { limit: 5, cursor: data!.next! } } });
    expect(older.data!.blocks.map((b) => b.height)).toEqual([2, 1]);
    const newer = await client.GET('/api/blocks', { params: { query: { limit: 5, cursor: data!.prev! } } });
    expect(newer.data!.blocks.map((b) => b.height)).toEqual([12, 11, 10, 9, 8]);
  });

  it('reads /api/tx/{id}: one detail per entry the node served', async () => {
    const tx = fixture.txs[5]!;
    const { data } = await client.GET('/api/tx/{id}', { params: { path: { id: tx.id } } });
    expectTypeOf(data).toEqualTypeOf<ApiSchema<'TxDetailList'> | undefined>();
    expect(data!.map((d) => [d.id, d.type, d.address, d.parameters])).toEqual(
      tx.entries.map((e) => [tx.id, e.type, e.address, e.parameters]),
    );
    for (const detail of data!) {
      expect(detail).toMatchObject({ db_id: fixture.blocks[tx.height - 1]!.hash, db_sn: String(tx.height) });
      expect(detail.validationCode).toBe(0);
    }
  });

  it('reads an error in the one error shape, typed, with its status', async () => {
    const { data, error, response } = await client.GET('/api/tx/{id}', { params: { path: { id: 'ab'.repeat(32) } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expectTypeOf(error!.error.code).toExtend<string>();
    expect(error!.error.code).toBe('not_found');
    // A value the type allows but the document's bounds refuse: a 400, not a failed call.
    const tooMany = await client.GET('/api/blocks', { params: { query: { limit: 51 } } });
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.error!.error.code).toBe('bad_request');
  });

  it('reads /api/address/{id}: what each wallet holds after the transfers', async () => {
    const alice = await client.GET('/api/address/{id}', { params: { path: { id: ALICE } } });
    const bob = await client.GET('/api/address/{id}', { params: { path: { id: BOB } } });
    const holds = (balance: string) =>
      [0, 1, 2].map((tokenId) => ({ tokenId, balance, lockBalance: '0', saleamount: '0', auctionamount: '0' }));
    expect(alice.data!.address).toBe(ALICE);
    expect(alice.data!.balances).toMatchObject(holds(String(10n ** 15n - 4n * 1000n)));
    expect(bob.data!.balances).toMatchObject(holds('4000'));
    expect(bob.data!.nfts).toEqual([]);
  });
});
