import { cursorPage, CursorQuery } from '../../cursor.ts';
import { formatAmount, parseAmount } from '@mtc/domain';
import { holderId, tokenCount, tokenRange, type Models, type TokenDoc } from '@mtc/read-models';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { TokenIdParams } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { MtcStats, TokenDetail, TokensPage, type TokenListEntry } from './schemas.ts';

/** The path of a token's image endpoint (relative, with the /api prefix, as the spec lists it). */
export const tokenImagePath = (token: number): string => `/api/v1/token/${token}/image`;

/** The token or a 404. */
export async function requireToken(models: Models, token: number): Promise<TokenDoc> {
  const doc = await models.tokens.get(String(token));
  if (!doc) throw notFound(`token ${token} not found`);
  return doc;
}

/**
 * totalsupply − the owner's balance of the token (ND `src/router/token.js`): the owner's holder row
 * sums its balance entries, locked ones included; sale and auction escrow are not subtracted. Never
 * below 0 (burns lower the owner's balance but not totalsupply, and a hand-edited record may lie).
 */
export async function circulationSupply(models: Models, token: TokenDoc): Promise<string> {
  const owner = await models.holders.get(holderId(token.token, token.owner));
  const circulating = parseAmount(token.totalsupply) - parseAmount(owner?.balance);
  return formatAmount(circulating > 0n ? circulating : 0n);
}

export const TokenListQuery = pagingQuery(MAX_LIST_LIMIT, 'lowest token id first').extend({ cursor: CursorQuery });

export function toTokenListEntry(doc: TokenDoc): TokenListEntry {
  return {
    id: String(doc.token),
    token: doc.token,
    name: doc.name,
    symbol: doc.symbol,
    owner: doc.owner,
    totalsupply: doc.totalsupply,
    type: doc.type,
    decimal: doc.decimal,
    createdate: doc.createdate,
    has_image: doc.hasImage,
    image_url: tokenImagePath(doc.token),
    burnningamount: doc.burnningamount,
  };
}

export const listTokensRoute = defineRoute({
  path: '/api/tokens',
  operationId: 'listTokens',
  tag: 'tokens',
  summary: 'MRC-010 tokens, the native coin (id 0) first',
  description: `Token ids are dense from 0, so page p holds ids [(p−1)·limit, p·limit) and total is the highest id + 1: one id-range query per page, never an offset. Cursor paging too: each answer has next (higher ids) and prev (lower ids) cursors; pass one as cursor, with any limit, for the page beside. limit is at most ${MAX_LIST_LIMIT}. Images are not included (see has_image and image_url).`,
  query: TokenListQuery,
  response: TokensPage,
  errors: [400],
  links: linksTo(
    ['getToken', 'listTokenHolders', 'listTokenTxs', 'getTokenHistory', 'listTokenLocks', 'getTokenImage'],
    { id: '$response.body#/items/0/token' },
  ),
  cache: 'head',
  async handle({ query }, app) {
    const total = await tokenCount(app.models.tokens);
    // Ids are dense from 0: id i is the list's row i + 1.
    const { from, to, page, next, prev } = cursorPage('tokens', { first: 1, last: total }, query, {
      oldestFirst: true,
    });
    const docs = to >= from ? await tokenRange(app.models.tokens, from - 1, to) : [];
    return { total, page, limit: query.limit, items: docs.map(toTokenListEntry), next, prev };
  },
});

export const tokenRoute = defineRoute({
  path: '/api/token/{id}',
  operationId: 'getToken',
  tag: 'tokens',
  summary: 'An MRC-010 token, with its image as a data URI',
  description:
    "circulation_supply = totalsupply − the owner's balance of the token (locked entries included), never below 0. job_type is the job type of the record's last write.",
  params: TokenIdParams,
  response: TokenDetail,
  errors: [400, 404],
  // A token's owner is a wallet (the one that registered it).
  links: linksTo(['getAddress', 'listAddressTxs'], { id: '$response.body#/owner' }),
  cache: 'head',
  async handle({ params }, app) {
    const [doc, image] = await Promise.all([
      requireToken(app.models, params.id),
      app.models.tokenImages.get(String(params.id)),
    ]);
    return {
      id: String(doc.token),
      token: doc.token,
      name: doc.name,
      symbol: doc.symbol,
      type: doc.type,
      owner: doc.owner,
      decimal: doc.decimal,
      totalsupply: doc.totalsupply,
      circulation_supply: await circulationSupply(app.models, doc),
      remainamount: doc.remainamount,
      burnningamount: doc.burnningamount,
      hardcap: doc.hardcap,
      softcap: doc.softcap,
      url: doc.url,
      information: doc.information,
      image: image?.image ?? '',
      status: doc.status,
      // Documents projected before the job type was recorded: a token's first write is its registration.
      job_type: doc.jobType ?? 'tokenRegister',
      createdate: doc.createdate,
    };
  },
});

export const mtcStatsRoute = defineRoute({
  path: '/api/mtc-stats',
  operationId: 'getMtcStats',
  tag: 'tokens',
  summary: 'The native coin (token 0): supply figures',
  description:
    "circulation_supply = totalsupply − the owner's balance of token 0, never below 0. 404 until token 0 is indexed.",
  response: MtcStats,
  errors: [404],
  cache: 'head',
  async handle(_input, app) {
    const doc = await app.models.tokens.get('0');
    if (!doc) throw notFound('the native coin (token 0) is not indexed yet');
    return {
      token: doc.token,
      name: doc.name,
      symbol: doc.symbol,
      decimal: doc.decimal,
      totalsupply: doc.totalsupply,
      circulation_supply: await circulationSupply(app.models, doc),
      remainamount: doc.remainamount,
      burnningamount: doc.burnningamount,
      softcap: doc.softcap,
      hardcap: doc.hardcap,
      status: doc.status,
      createdate: doc.createdate,
    };
  },
});
