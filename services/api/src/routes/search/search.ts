import { isAddress, parseNftId, type NftId } from '@mtc/domain';
import type { Models, TokenDoc } from '@mtc/read-models';
import { z } from 'zod';
import type { Head } from '../../head.ts';
import { defineRoute } from '../../route.ts';
import { SearchResponse, type SearchResults } from './schemas.ts';

/**
 * A character `trim` keeps: anything but ECMAScript's white space and line terminators, spelled out
 * because the document's readers run other regex engines, whose `\s` differs (Python's takes in
 * U+001C–U+001F and leaves out U+FEFF), and the document must call blank exactly what is refused.
 */
const NOT_BLANK = /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

export const SearchQuery = z.object({
  // Lengths are of what the client sent, as the document states them; the value is then trimmed.
  q: z
    .string()
    .min(1)
    .max(128)
    .regex(NOT_BLANK, 'must not be blank')
    .trim()
    .describe(
      'Block height, block or transaction hash, wallet address, token id, token name or symbol (case-insensitive), or NFT id.',
    ),
});

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
/** Bounds the name/symbol lookups: names are not unique, but a page of them is plenty. */
const NAME_LIMIT = 20;

interface TokenMatch {
  token: number;
  name: string;
  symbol: string;
  /** Matched by its id (as opposed to only by name or symbol). */
  byId: boolean;
}

interface Matches {
  blocks: { height: number; hash: string }[];
  transactions: { id: string; blockNum: number }[];
  addresses: { address: string }[];
  tokens: TokenMatch[];
  nfts: SearchResults['nfts'];
}

/** Every kind of thing `q` names, each looked up by an index (or by id). */
async function findMatches(models: Models, head: Head, q: string): Promise<Matches> {
  const number = DECIMAL.test(q) ? Number(q) : null;
  const hash = HEX64.test(q) ? q.toLowerCase() : null;
  const nftId = parseNftId(q);
  const key = q.toLowerCase();

  const [byHeight, byTokenId, tx, byHash, wallet, nftById, byName, bySymbol, nftsByName] = await Promise.all([
    number !== null && number >= 1 && number <= head.height ? models.blocks.get(String(number)) : null,
    number !== null ? models.tokens.get(String(number)) : null,
    hash ? models.txs.get(hash) : null,
    hash ? models.blocks.find({ hash }, { limit: 1 }).then((docs) => docs[0] ?? null) : null,
    isAddress(q) ? models.wallets.get(q) : null,
    nftId ? findNft(models, nftId) : null,
    models.tokens.find({ nameKey: key }, { limit: NAME_LIMIT }),
    models.tokens.find({ symbolKey: key }, { limit: NAME_LIMIT }),
    findNftsByName(models, key),
  ]);

  const tokens = new Map<number, TokenMatch>();
  const addToken = (doc: TokenDoc, byId: boolean): void => {
    const seen = tokens.get(doc.token);
    tokens.set(doc.token, {
      token: doc.token,
      name: doc.name,
      symbol: doc.symbol,
      byId: byId || (seen?.byId ?? false),
    });
  };
  if (byTokenId) addToken(byTokenId, true);
  for (const doc of [...byName, ...bySymbol]) addToken(doc, false);

  return {
    blocks: [byHeight, byHash].flatMap((b) => (b ? [{ height: b.height, hash: b.hash }] : [])),
    transactions: tx ? [{ id: tx._id, blockNum: tx.height }] : [],
    addresses: wallet ? [{ address: wallet._id }] : [],
    tokens: [...tokens.values()].sort((a, b) => a.token - b.token),
    nfts: nftById ? [nftById] : nftsByName,
  };
}

type NftMatch = SearchResults['nfts'][number];

/** The NFT an id names, if indexed: a collection, an item (named by its collection) or an MRC-402. */
async function findNft(models: Models, nft: NftId): Promise<NftMatch | null> {
  switch (nft.protocol) {
    case 'MRC400': {
      const c = await models.nftCollections.get(nft.id);
      return c && { id: c._id, protocol: 'MRC400', name: c.name };
    }
    case 'MRC401': {
      const item = await models.nftItems.get(nft.id);
      if (!item) return null;
      const parent = await models.nftCollections.get(item.mrc400);
      return { id: item._id, protocol: 'MRC401', name: parent?.name ?? '' };
    }
    case 'MRC402': {
      const t = await models.mrc402s.get(nft.id);
      return t && { id: t._id, protocol: 'MRC402', name: t.name };
    }
  }
}

/** Collections and MRC-402s named `key` (case-insensitive, exact), collections first, ascending id. */
async function findNftsByName(models: Models, key: string): Promise<NftMatch[]> {
  const [collections, mrc402] = await Promise.all([
    models.nftCollections.find({ nameKey: key }, { limit: NAME_LIMIT }),
    models.mrc402s.find({ nameKey: key }, { limit: NAME_LIMIT }),
  ]);
  const byId = (a: NftMatch, b: NftMatch) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [
    ...collections.map((c): NftMatch => ({ id: c._id, protocol: 'MRC400', name: c.name })).sort(byId),
    ...mrc402.map((t): NftMatch => ({ id: t._id, protocol: 'MRC402', name: t.name })).sort(byId),
  ];
}

/**
 * One match → a redirect to its page. Tokens found only by name or symbol count as one match, whose
 * page is the token list filtered by the query (it shows them all). Anything more → the lists; an
 * address that matched along with something else goes in an extra `addresses` list, so that the
 * no-match answer keeps exactly the four documented arrays.
 */
export function decide(q: string, m: Matches): SearchResponse {
  const tokensById = m.tokens.some((t) => t.byId);
  const tokenMatches = m.tokens.length === 0 ? 0 : tokensById ? m.tokens.length : 1;
  const total = m.blocks.length + m.transactions.length + m.addresses.length + m.nfts.length + tokenMatches;
  if (total === 1) {
    const [block] = m.blocks;
    const [tx] = m.transactions;
    const [address] = m.addresses;
    const [nft] = m.nfts;
    const [token] = m.tokens;
    if (block) return { redirect: `/block/${block.height}` };
    if (tx) return { redirect: `/tx/${tx.id}` };
    if (address) return { redirect: `/address/${address.address}/tx/1` };
    if (nft) return { redirect: `/nft/${nft.id}/tx/1` };
    if (token)
      return { redirect: token.byId ? `/token/${token.token}/tx/1` : `/token/list?search=${encodeURIComponent(q)}` };
  }
  const results: SearchResults = {
    blocks: m.blocks,
    transactions: m.transactions,
    tokens: m.tokens.map(({ token, name, symbol }) => ({ token, name, symbol })),
    nfts: m.nfts,
  };
  if (m.addresses.length > 0) results.addresses = m.addresses;
  return results;
}

export const searchRoute = defineRoute({
  path: '/api/search',
  operationId: 'search',
  tag: 'search',
  summary: 'Find a block, transaction, address, token or NFT',
  description:
    'Exactly one match gives {redirect}: /block/{height}, /tx/{hash}, /address/{address}/tx/1, /token/{id}/tx/1, /token/list?search={q} (tokens matched by name or symbol, case-insensitive and exact), /nft/{id}/tx/1 (an MRC-400, MRC-401 or MRC-402 id, or the name of one collection or MRC-402, case-insensitive and exact). Otherwise the result lists, all empty when nothing matched.',
  query: SearchQuery,
  response: SearchResponse,
  errors: [400],
  cache: 'head',
  async handle({ query, head }, app) {
    return decide(query.q, await findMatches(app.models, await head(), query.q));
  },
});
