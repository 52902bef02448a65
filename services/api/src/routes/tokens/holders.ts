import { holdersPage, lockedHolders, lockedPart, tokenHolderView } from '@mtc/read-models';
import { whole } from '../../consistent.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { TokenIdParams } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { TokenHoldersPage, TokenLocks } from './schemas.ts';
import { requireToken } from './tokens.ts';

/** Shared with the snapshot files (read-models `holders/views.ts`). */
export { lockedPart };

export const nowSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

export const TokenHoldersQuery = pagingQuery(MAX_LIST_LIMIT, 'largest balance first');

export const tokenHoldersRoute = defineRoute({
  path: '/api/token/{id}/holders',
  operationId: 'listTokenHolders',
  tag: 'tokens',
  summary: "A token's holders, largest balance first",
  description: `total and total_balance are maintained by the projection (never counted per request). balance sums the holder's entries of the token, locked ones included; lock_balance, unlockdate and locks cover the entries whose unlock date is still ahead now. Page p skips (p−1)·limit holders; limit is at most ${MAX_LIST_LIMIT}.`,
  params: TokenIdParams,
  query: TokenHoldersQuery,
  response: TokenHoldersPage,
  errors: [400, 404],
  links: linksTo(['getAddress', 'listAddressTxs'], { id: '$response.body#/holders/0/address' }),
  cache: 'head',
  async handle({ params, query }, app) {
    const skip = (query.page - 1) * query.limit;
    const [, stats, rows] = await Promise.all([
      requireToken(app.models, params.id),
      app.models.holderStats.get(String(params.id)),
      holdersPage(app.models, params.id, { skip, limit: query.limit }),
    ]);
    const now = nowSeconds(app.now());
    return {
      token_id: params.id,
      total: stats?.holders ?? 0,
      total_balance: stats?.totalBalance ?? '0',
      page: query.page,
      limit: query.limit,
      holders: whole(rows, 'the holder list').map((row) => tokenHolderView(row, now)),
    };
  },
});

export const tokenLocksRoute = defineRoute({
  path: '/api/token/{id}/locks',
  operationId: 'listTokenLocks',
  tag: 'tokens',
  summary: "A token's time-locked balances, grouped by address",
  description:
    'Examines the holders with a lock still ahead now, at most max of them (TOKEN_LOCKS_MAX, reported as max), soonest latest-unlock first. scanned counts the holders examined, locked_addresses the groups returned (one per address).',
  params: TokenIdParams,
  response: TokenLocks,
  errors: [400, 404],
  cache: 'head',
  async handle({ params }, app) {
    const now = nowSeconds(app.now());
    const max = app.config.TOKEN_LOCKS_MAX;
    const [, listed] = await Promise.all([
      requireToken(app.models, params.id),
      lockedHolders(app.models, params.id, now, max),
    ]);
    const rows = whole(listed, 'the list of locks');
    const locks = rows
      .map((row) => ({ address: row.address, ...lockedPart(row, now) }))
      .filter((group) => group.locks.length > 0);
    return { token_id: params.id, scanned: rows.length, max, locked_addresses: locks.length, locks };
  },
});
