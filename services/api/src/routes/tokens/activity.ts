import { seriesRows, seriesTotal, tokenHistory, tokenTxs, type TokenTxDoc } from '@mtc/read-models';
import { z } from 'zod';
import { FILTERS_DOC, filteredSeries, TokenActivityFilter } from '../../activity-filter.ts';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { MAX_LIST_LIMIT, NewestFirstPaging } from '../../paging.ts';
import { TokenIdParams } from '../../params.ts';
import { defineRoute } from '../../route.ts';
import { TOKEN_EVENT_LABELS, TOKEN_HISTORY_MAX, TokenHistory, TokenTxsPage, type TokenTransfer } from './schemas.ts';
import { requireToken } from './tokens.ts';

/** A token series row as /token/{id}/txs and the transfer export give it. */
export function toTokenTransfer(r: TokenTxDoc): TokenTransfer {
  return {
    type: r.type,
    from: r.from,
    to: r.to,
    amount: r.amount,
    token: String(r.token),
    timestamp: r.timestamp,
    tx_id: r.txId,
    block_sn: r.height,
    recipients: r.recipients.map(({ to, amount }) => ({ to, amount })),
    memo: r.memo,
    kind: r.kind,
  };
}

export const tokenTxsRoute = defineRoute({
  path: '/api/token/{id}/txs',
  operationId: 'listTokenTxs',
  tag: 'tokens',
  summary: "A token's activity, newest first",
  description: `Every activity about the token: transfers (a multi_transfer is one entry listing its recipients, amount their sum), reserves, mints, burns, updates and DEX orders. Rows are numbered per token when projected, so page p is one range of those numbers and total is a stored counter. ${FILTERS_DOC} ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}.`,
  params: TokenIdParams,
  query: NewestFirstPaging.extend({ cursor: CursorQuery, ...TokenActivityFilter.shape }),
  response: TokenTxsPage,
  errors: [400, 404],
  cache: 'head',
  async handle({ params, query }, app) {
    const [token, { list, total, window }] = await Promise.all([
      requireToken(app.models, params.id),
      filteredSeries(app.models, app.models.tokenTxs, tokenTxs, String(params.id), query),
    ]);
    const { from, to, page, next, prev } = cursorPage(list.key, window, query);
    const rows = await list.rows({ from, to, newestFirst: true });
    return { owner: token.owner, total, page, limit: query.limit, data: rows.map(toTokenTransfer), next, prev };
  },
});

export const tokenHistoryRoute = defineRoute({
  path: '/api/token/{id}/history',
  operationId: 'getTokenHistory',
  tag: 'tokens',
  summary: "A token's lifecycle: creation, reserves, mints and burns, oldest first",
  description: `tx_type is 'Token create', 'Token reserve', 'Token mint' or 'Token burn'; to_addr is '-' when the event has no recipient (create, burn). total counts every event, events holds the first ${TOKEN_HISTORY_MAX} of them; the next cursor gives the ${TOKEN_HISTORY_MAX} after them, and so on to the newest (prev: the ones before). A token's whole activity, mints included, is paged by /token/{id}/txs.`,
  params: TokenIdParams,
  query: z.object({ cursor: CursorQuery }),
  response: TokenHistory,
  errors: [400, 404],
  cache: 'head',
  async handle({ params, query }, app) {
    const key = String(params.id);
    const [, total] = await Promise.all([
      requireToken(app.models, params.id),
      seriesTotal(app.models.seriesCounters, tokenHistory, key),
    ]);
    // Up to the counter: rows past it belong to a batch whose counters are not written yet.
    const { from, to, next, prev } = cursorPage(
      `history:${key}`,
      { first: 1, last: total },
      { page: 1, limit: TOKEN_HISTORY_MAX, cursor: query.cursor },
      { oldestFirst: true },
    );
    const rows = await seriesRows(app.models.tokenHistory, key, { from, to });
    return {
      token_id: params.id,
      total,
      next,
      prev,
      events: rows.map((r) => ({
        tx_id: r.txId,
        tx_type: TOKEN_EVENT_LABELS[r.type],
        from_addr: r.from,
        to_addr: r.to === '' ? '-' : r.to,
        amount: r.amount,
        block_sn: r.height,
        timestamp: r.timestamp,
        memo: r.memo,
      })),
    };
  },
});
