import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import {
  ALICE,
  BOB,
  address,
  buildChain,
  hash,
  startTestApi,
  tokenDoc,
  walletDoc,
  type TestApi,
} from '../../testing/harness.ts';
import { SearchResponse } from './schemas.ts';

const fixture = buildChain(20);
const NONE = { blocks: [], transactions: [], tokens: [], nfts: [] };
const tokens = [
  tokenDoc(0, 'Metacoin', 'MTC'),
  tokenDoc(3, 'Gold Coin', 'GLD'),
  tokenDoc(25, 'Silver', 'SLV'),
  tokenDoc(26, 'Shiny', 'slv'),
  tokenDoc(27, '12', 'TWELVE'),
];

describe('GET /api/search', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture, seed: { tokens, wallets: [walletDoc(ALICE)] } });
  });
  afterAll(() => api.close());

  const search = async (q: string) => {
    const res = await api.get(`/api/search?q=${encodeURIComponent(q)}`);
    expect(res.status, q).toBe(200);
    expect(SearchResponse.parse(res.body), q).toEqual(res.body);
    return res.body;
  };

  it('redirects to the block when the query is an indexed height', async () => {
    expect(await search('7')).toEqual({ redirect: '/block/7' });
  });

  it('matches no block above the indexed height', async () => {
    expect(await search('21')).toEqual(NONE);
  });

  it('redirects to the transaction when the query is its hash', async () => {
    const tx = fixture.txs[4]!;
    expect(await search(tx._id)).toEqual({ redirect: `/tx/${tx._id}` });
    expect(await search(tx._id.toUpperCase())).toEqual({ redirect: `/tx/${tx._id}` });
  });

  it('redirects to the block by height when the query is a block hash', async () => {
    expect(await search(fixture.blocks[8]!.hash)).toEqual({ redirect: '/block/9' });
  });

  it('redirects to the address when it is a known wallet', async () => {
    expect(await search(ALICE)).toEqual({ redirect: `/address/${ALICE}/tx/1` });
  });

  it('matches nothing for a valid address that holds no wallet, or one whose checksum fails', async () => {
    expect(await search(BOB)).toEqual(NONE);
    expect(await search(`${ALICE.slice(0, -1)}0`)).toEqual(NONE);
  });

  it('redirects to the token when the query is a token id above the indexed height', async () => {
    expect(await search('25')).toEqual({ redirect: '/token/25/tx/1' });
    expect(await search('0')).toEqual({ redirect: '/token/0/tx/1' });
  });

  it('redirects to the token list when the query is a token name or symbol in any case', async () => {
    expect(await search('gold coin')).toEqual({ redirect: '/token/list?search=gold%20coin' });
    expect(await search('  GLD ')).toEqual({ redirect: '/token/list?search=GLD' });
    expect(await search('metacoin')).toEqual({ redirect: '/token/list?search=metacoin' });
  });

  it('redirects to the token list once when a name matches several tokens', async () => {
    expect(await search('SLV')).toEqual({ redirect: '/token/list?search=SLV' });
  });

  it('lists every match when the query names several things', async () => {
    // 3 is both a block height and a token id.
    expect(await search('3')).toEqual({
      blocks: [{ height: 3, hash: fixture.blocks[2]!.hash }],
      transactions: [],
      tokens: [{ token: 3, name: 'Gold Coin', symbol: 'GLD' }],
      nfts: [],
    });
    // 12 is a height and the name of token 27.
    expect(await search('12')).toEqual({
      blocks: [{ height: 12, hash: fixture.blocks[11]!.hash }],
      transactions: [],
      tokens: [{ token: 27, name: '12', symbol: 'TWELVE' }],
      nfts: [],
    });
  });

  it('lists a block and a transaction that share a hash', async () => {
    const tx = fixture.txs[0]!;
    const block = fixture.blocks[5]!;
    await api.store.write([{ op: 'put', collection: 'txs', doc: { ...tx, _id: block.hash } }]);
    expect(await search(block.hash)).toEqual({
      blocks: [{ height: 6, hash: block.hash }],
      transactions: [{ id: block.hash, blockNum: tx.height }],
      tokens: [],
      nfts: [],
    });
  });

  it('puts an address that matched along with something else in an extra addresses list', async () => {
    const named = address('named');
    await api.store.write([
      { op: 'put', collection: 'wallets', doc: walletDoc(named) },
      { op: 'put', collection: 'tokens', doc: tokenDoc(40, named, 'ADDR') },
    ]);
    expect(await search(named)).toEqual({
      blocks: [],
      transactions: [],
      tokens: [{ token: 40, name: named, symbol: 'ADDR' }],
      nfts: [],
      addresses: [{ address: named }],
    });
  });

  it('matches no NFT while NFTs are not indexed', async () => {
    expect(await search(`MRC402_${'a'.repeat(32)}0`)).toEqual(NONE);
    expect(await search(`MRC400_${'b'.repeat(32)}1_item7`)).toEqual(NONE);
  });

  it('answers the four empty arrays when nothing matches', async () => {
    const body = await search('nothing-like-this');
    expect(body).toEqual(NONE);
    expect(Object.keys(body as object).sort()).toEqual(['blocks', 'nfts', 'tokens', 'transactions']);
    expect(await search(hash('unknown'))).toEqual(NONE);
  });

  it('answers 400 when q is missing, blank or longer than 128 characters', async () => {
    for (const qs of ['', '?q=', '?q=%20%20', `?q=${'x'.repeat(129)}`, '?q=a&q=b']) {
      const res = await api.get(`/api/search${qs}`);
      expect(res.status, qs).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
    expect((await api.get(`/api/search?q=${'x'.repeat(128)}`)).status).toBe(200);
  });
});
