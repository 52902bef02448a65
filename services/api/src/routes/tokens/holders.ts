import { z } from 'zod';
import { holdersPage, lockedHolders, lockedPart, tokenHolderView } from '@mtc/read-models';
import { CursorQuery, RANKED_CURSOR_DOC, rankedCursors, rankedSeek } from '../../cursor.ts';
import { whole } from '../../consistent.ts';
import { MAX_LIST_LIMIT, pagingQuery } from '../../paging.ts';
import { TokenIdParams } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { TokenHoldersPage, TokenLocks } from './schemas.ts';
import { requireToken } from './tokens.ts';

/** Shared with the snapshot files (read-models `holders/views.ts`). */
export { lockedPart };

export const nowSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

export const TokenHoldersQuery = pagingQuery(MAX_LIST_LIMIT, 'largest balance first').extend({ cursor: CursorQuery });

export const tokenHoldersRoute = defineRoute({
  path: '/api/token/{id}/holders',
  operationId: 'listTokenHolders',
  tag: 'tokens',
  summary: "A token's holders, largest balance first",
  description: `total and total_balance are maintained by the projection (never counted per request). balance sums the holder's entries of the token, locked ones included; lock_balance, unlockdate and locks cover the entries whose unlock date is still ahead now. Page p skips (p−1)·limit holders; limit is at most ${MAX_LIST_LIMIT}. ${RANKED_CURSOR_DOC}`,
  params: TokenIdParams,
  query: TokenHoldersQuery,
  response: TokenHoldersPage,
  errors: [400, 404],
  links: linksTo(['getAddress', 'listAddressTxs'], { id: '$response.body#/holders/0/address' }),
  cache: 'head',
  async handle({ params, query }, app) {
    const list = `holders:${params.id}`;
    const seek = rankedSeek(list, query);
    const [, stats, listed] = await Promise.all([
      requireToken(app.models, params.id),
      app.models.holderStats.get(String(params.id)),
      holdersPage(app.models, params.id, seek, query.limit),
    ]);
    const now = nowSeconds(app.now());
    const rows = whole(listed, 'the holder list');
    const { page, next, prev } = rankedCursors(list, rows, query);
    return {
      token_id: params.id,
      total: stats?.holders ?? 0,
      total_balance: stats?.totalBalance ?? '0',
      page,
      limit: query.limit,
      holders: rows.rows.map((row) => tokenHolderView(row, now)),
      next,
      prev,
    };
  },
});

export const TokenLocksQuery = z.object({ cursor: CursorQuery });

export const tokenLocksRoute = defineRoute({
  path: '/api/token/{id}/locks',
  operationId: 'listTokenLocks',
  tag: 'tokens',
  summary: "A token's time-locked balances, grouped by address",
  description: `Examines the holders with a lock still ahead now, at most max of them (TOKEN_LOCKS_MAX, reported as max), soonest latest-unlock first. scanned counts the holders examined, locked_addresses the groups returned (one per address). Pages of max holders: ${RANKED_CURSOR_DOC.replace('lower-ranked', 'later-unlocking').replace('higher-ranked', 'sooner-unlocking').replace('its rank and address', 'its latest unlock date and address').replace('a holder whose rank', 'a holder whose latest unlock date')}`,
  params: TokenIdParams,
  query: TokenLocksQuery,
  response: TokenLocks,
  errors: [400, 404],
  cache: 'head',
  async handle({ params, query }, app) {
    const now = nowSeconds(app.now());
    const max = app.config.TOKEN_LOCKS_MAX;
    const list = `locks:${params.id}`;
    const seek = rankedSeek(list, { limit: max, cursor: query.cursor });
    const [, listed] = await Promise.all([
      requireToken(app.models, params.id),
      lockedHolders(app.models, params.id, now, max, seek),
    ]);
    const rows = whole(listed, 'the list of locks');
    const locks = rows.rows
      .map((row) => ({ address: row.address, ...lockedPart(row, now) }))
      .filter((group) => group.locks.length > 0);
    const { next, prev } = rankedCursors(list, rows, { limit: max, cursor: query.cursor });
    return { token_id: params.id, scanned: rows.rows.length, max, locked_addresses: locks.length, locks, next, prev };
  },
});
