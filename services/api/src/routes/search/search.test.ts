import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, address, buildChain, hash, startTestApi, type TestApi } from '../../testing/harness.ts';
import { CAT_2, CATS, GOLD_NFT, nftEconomy } from '../../testing/nft-economy.ts';
import { CAROL } from '../../testing/token-economy.ts';
import { SearchResponse } from './schemas.ts';

const NONE = { blocks: [], transactions: [], tokens: [], nfts: [] };
/** An address that is also the name of token 40. */
const NAMED = address('named');
/** An MRC-402 named like the story's collection. */
const NAMESAKE = `MRC402_${'e'.repeat(32)}1`;

/**
 * Blocks 1 … 19 of transfers from ALICE; block 20 registers tokens 0, 3, 25, 26, 27 and 40, creates
 * the wallet NAMED, and holds a transaction whose id is block 6's hash.
 */
const fixture = buildChain(19);
const BLOCK6 = fixture.blocks[5]!;
fixture.block([
  ...(
    [
      [0, 'Metacoin', 'MTC'],
      [3, 'Gold Coin', 'GLD'],
      [25, 'Silver', 'SLV'],
      [26, 'Shiny', 'slv'],
      [27, '12', 'TWELVE'],
      [40, NAMED, 'ADDR'],
    ] as const
  ).map(([token, name, symbol]) => fixture.registerToken({ token, name, symbol, owner: ALICE, totalsupply: '1' })),
  fixture.newWallet(NAMED),
  { ...fixture.transfer({ from: ALICE, to: NAMED, amount: '1', token: 0 }), id: BLOCK6.hash },
]);

describe('GET /api/search', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture });
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
    expect(await search(tx.id)).toEqual({ redirect: `/tx/${tx.id}` });
    expect(await search(tx.id.toUpperCase())).toEqual({ redirect: `/tx/${tx.id}` });
  });

  it('redirects to the block by height when the query is a block hash', async () => {
    expect(await search(fixture.blocks[8]!.hash)).toEqual({ redirect: '/block/9' });
  });

  it('redirects to the address when it is a known wallet', async () => {
    expect(await search(ALICE)).toEqual({ redirect: `/address/${ALICE}/tx/1` });
  });

  it('matches nothing for a valid address that holds no wallet, or one whose checksum fails', async () => {
    expect(await search(address('carol'))).toEqual(NONE);
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
    expect(await search(BLOCK6.hash)).toEqual({
      blocks: [{ height: 6, hash: BLOCK6.hash }],
      transactions: [{ id: BLOCK6.hash, blockNum: 20 }],
      tokens: [],
      nfts: [],
    });
  });

  it('puts an address that matched along with something else in an extra addresses list', async () => {
    expect(await search(NAMED)).toEqual({
      blocks: [],
      transactions: [],
      tokens: [{ token: 40, name: NAMED, symbol: 'ADDR' }],
      nfts: [],
      addresses: [{ address: NAMED }],
    });
  });

  it('matches no NFT id that is not indexed', async () => {
    expect(await search(`MRC402_${'a'.repeat(32)}0`)).toEqual(NONE);
    expect(await search(`MRC400_${'b'.repeat(32)}1_${'A'.repeat(40)}`)).toEqual(NONE);
  });

  it('answers the four empty arrays when nothing matches', async () => {
    const body = await search('nothing-like-this');
    expect(body).toEqual(NONE);
    expect(Object.keys(body as object).sort()).toEqual(['blocks', 'nfts', 'tokens', 'transactions']);
    expect(await search(hash('unknown'))).toEqual(NONE);
  });

  it('answers 400 when q is missing, blank or longer than 128 characters', async () => {
    // Blank: any white space `trim` removes, such as a no-break space (what schemathesis sent).
    const blank = ['%20%20', '%C2%A0', '%EF%BB%BF', '%E3%80%80%09'].map((q) => `?q=${q}`);
    // Over 128 as sent, even when trimming would bring it under (the document counts what is sent).
    const long = [`?q=${'x'.repeat(129)}`, `?q=${'%20'.repeat(128)}x`];
    for (const qs of ['', '?q=', ...blank, ...long, '?q=a&q=b']) {
      const res = await api.get(`/api/search${qs}`);
      expect(res.status, qs).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
    expect((await api.get(`/api/search?q=${'x'.repeat(128)}`)).status).toBe(200);
    // Not white space to `trim`: a zero-width space, or U+001C, is a query that matches nothing.
    for (const q of ['%E2%80%8B', '%1C', `${'%20'.repeat(127)}x`])
      expect((await api.get(`/api/search?q=${q}`)).status, q).toBe(200);
  });
});

describe('GET /api/search for NFTs', () => {
  let api: TestApi;
  beforeAll(async () => {
    // The NFT story (nft-economy.ts) plus an MRC-402 that shares the collection's name.
    const chain = nftEconomy();
    chain.block([chain.createMrc402({ id: NAMESAKE, creator: CAROL, name: 'CATS', totalsupply: '5' })]);
    api = await startTestApi({ fixture: chain });
  });
  afterAll(() => api.close());

  const search = async (q: string) => {
    const res = await api.get(`/api/search?q=${encodeURIComponent(q)}`);
    expect(res.status, q).toBe(200);
    return SearchResponse.parse(res.body);
  };

  it('redirects to the NFT for each id form that is indexed', async () => {
    for (const id of [CATS, CAT_2, GOLD_NFT]) expect(await search(id), id).toEqual({ redirect: `/nft/${id}/tx/1` });
  });

  it('redirects to the one NFT with a name, in any case, and lists several that share one', async () => {
    expect(await search('gold nft')).toEqual({ redirect: `/nft/${GOLD_NFT}/tx/1` });
    expect(await search('Cats')).toEqual({
      ...NONE,
      nfts: [
        { id: CATS, protocol: 'MRC400', name: 'Cats' },
        { id: NAMESAKE, protocol: 'MRC402', name: 'CATS' },
      ],
    });
  });

  it('matches no item that does not exist in an indexed collection', async () => {
    expect(await search(`${CATS}_${'Z9'.repeat(20)}`)).toEqual(NONE);
  });
});
