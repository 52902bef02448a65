import { parseNftId } from '@mtc/domain';
import {
  collectionHolderView,
  mrc402HolderView,
  tokenHolderView,
  type Models,
  type NftHolderView,
  type TokenHolderView,
} from '@mtc/read-models';

/**
 * The holder lists a snapshot writes, read from the replayed store, in their canonical order:
 * - token holders: by token id ascending, then (within a token, as the API lists them) balance
 *   descending as integers, then address ascending; `lock_balance`, `unlockdate` and `locks` as of
 *   `lockTime` (the snapshot height's block time: what was still locked at that height);
 * - NFT holders (an MRC-402, or an MRC-400 collection's item owners): as the API lists them,
 *   largest holding (`total`) first, then address ascending.
 * One asset's rows are read at once (its holders), never the whole table.
 */
export const TOKEN_HOLDER_COLUMNS = ['address', 'balance', 'token', 'lock_balance', 'unlockdate', 'locks'] as const;
export const NFT_HOLDER_COLUMNS = ['address', 'amount', 'sellAmount', 'auctionAmount', 'total', 'ratio'] as const;

/** A subject of a snapshot that does not exist at its height. */
export class NotAtHeight extends Error {}

const byRankThenAddress = [
  ['rank', -1],
  ['address', 1],
] as const;

/** The tokens to list: one (which must exist at the height), or every token with a holder stat. */
export async function tokensToList(models: Models, token: number | 'all'): Promise<number[]> {
  if (token !== 'all') {
    if (!(await models.tokens.get(String(token)))) throw new NotAtHeight(`token ${token} does not exist`);
    return [token];
  }
  const stats = await models.holderStats.find({}, { sort: [['token', 1]] });
  return stats.map((s) => s.token);
}

export async function* tokenHolderRows(
  models: Models,
  tokens: readonly number[],
  lockTime: number,
): AsyncGenerator<TokenHolderView> {
  for (const token of tokens) {
    const rows = await models.holders.find({ token }, { sort: byRankThenAddress });
    for (const row of rows) yield tokenHolderView(row, lockTime);
  }
}

/** Checks that the NFT exists at the height and returns its rows (MRC-402 or MRC-400 collection). */
export async function nftHolderRows(models: Models, id: string): Promise<AsyncGenerator<NftHolderView>> {
  const nft = parseNftId(id);
  if (nft?.protocol === 'MRC402') {
    if (!(await models.mrc402s.get(id))) throw new NotAtHeight(`MRC-402 ${id} does not exist`);
    const whole = BigInt((await models.nftHolderStats.get(id))?.total ?? '0');
    const rows = await models.nftHolders.find({ nftId: id }, { sort: byRankThenAddress });
    return (async function* () {
      for (const row of rows) yield mrc402HolderView(row, whole);
    })();
  }
  if (nft?.protocol === 'MRC400') {
    if (!(await models.nftCollections.get(id))) throw new NotAtHeight(`collection ${id} does not exist`);
    const whole = BigInt((await models.collectionStats.get(id))?.items ?? 0);
    const rows = await models.collectionHolders.find(
      { collection: id, count: { $gt: 0 } },
      { sort: byRankThenAddress },
    );
    return (async function* () {
      for (const row of rows) yield collectionHolderView(row, whole);
    })();
  }
  throw new NotAtHeight(`${id} is not an MRC-402 or an MRC-400 collection id`);
}
