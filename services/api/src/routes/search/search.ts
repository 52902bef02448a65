import { isAddress, parseNftId, type NftId } from '@mtc/domain';
import type { Models, TokenDoc } from '@mtc/read-models';
import { z } from 'zod';
import type { Head } from '../../context.ts';
import { defineRoute } from '../../route.ts';
import { SearchResponse, type SearchResults } from './schemas.ts';

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .describe(
      'Block height, block or transaction hash, wallet address, token id, token name or symbol (case-insensitive), or NFT id.',
    ),
});

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
/** Bounds the name/symbol lookups: names are not unique, but a page of them is plenty. */
const TOKEN_NAME_LIMIT = 20;

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

  const [byHeight, byTokenId, tx, byHash, wallet, nfts, byName, bySymbol] = await Promise.all([
    number !== null && number >= 1 && number <= head.height ? models.blocks.get(String(number)) : null,
    number !== null ? models.tokens.get(String(number)) : null,
    hash ? models.txs.get(hash) : null,
    hash ? models.blocks.find({ hash }, { limit: 1 }).then((docs) => docs[0] ?? null) : null,
    isAddress(q) ? models.wallets.get(q) : null,
    nftId ? findNfts(models, nftId) : [],
    models.tokens.find({ nameKey: key }, { limit: TOKEN_NAME_LIMIT }),
    models.tokens.find({ symbolKey: key }, { limit: TOKEN_NAME_LIMIT }),
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
    nfts,
  };
}

/**
 * NFTs have no read model yet, so no NFT id matches anything. When one exists, its lookup goes here
 * and the redirect and result list below already handle the match.
 */
async function findNfts(_models: Models, _id: NftId): Promise<SearchResults['nfts']> {
  return [];
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
    'Exactly one match gives {redirect}: /block/{height}, /tx/{hash}, /address/{address}/tx/1, /token/{id}/tx/1, /token/list?search={q} (tokens matched by name or symbol, case-insensitive and exact), /nft/{id}/tx/1. Otherwise the result lists, all empty when nothing matched.',
  query: SearchQuery,
  response: SearchResponse,
  errors: [400],
  cache: 'head',
  async handle({ query, head }, app) {
    return decide(query.q, await findMatches(app.models, await head(), query.q));
  },
});
