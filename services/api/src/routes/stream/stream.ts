import type Koa from 'koa';
import { z } from 'zod';
import type { ApiState } from '../../context.ts';
import { badRequest, unavailable } from '../../errors.ts';
import { AddressParam, TokenIdParam } from '../../params.ts';
import { clientKey } from '../../rate-limit.ts';
import { decodeInput, defineEventStreamRoute } from '../../route.ts';
import { AssetParam } from '../market/views.ts';
import { MarketOrder, MarketTrade } from '../market/schemas.ts';
import { TokenTransfer } from '../tokens/schemas.ts';
import { TxSummary } from '../txs/schemas.ts';
import { parsePosition, POSITION, StreamAddressActivity, StreamBlock, type StreamFilter } from './events.ts';
import type { StreamHub } from './hub.ts';

const EVENT_ID_MESSAGE = 'must be an event id of this stream: <height>, <height>:<tx> or <height>:<tx>:<n>';

export const StreamQuery = z.object({
  address: AddressParam.optional().describe(
    "Only this address's activity (`address` events, rows of /api/address/{id}/txs), besides the blocks.",
  ),
  token: TokenIdParam.optional().describe(
    "Only this token's activity (`token` events, rows of /api/token/{id}/txs), besides the blocks.",
  ),
  market: AssetParam.optional().describe(
    "Only this asset's DEX market (`trade` and `order` events, as /api/market/trades and /api/market/order/{id} show them), besides the blocks: an MRC-010 token id, an MRC402_… id or an MRC400_… collection (its items).",
  ),
  lastEventId: z
    .string()
    .regex(POSITION, EVENT_ID_MESSAGE)
    .optional()
    .describe(
      'Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins when both are given).',
    ),
});

export const streamRoute = defineEventStreamRoute({
  path: '/api/stream',
  operationId: 'streamEvents',
  tag: 'stream',
  summary: 'Live events: new blocks and transactions, or one address’s or token’s activity, or one asset’s market',
  description:
    "Server-Sent Events, fed from the block log as the index takes each block in: an event is sent once the API's read models hold its block, so it can be followed up with the other calls. Without a filter the stream carries `block` and `tx` events; with `address` or `token` it carries `block` events and that address's or token's activity; with `market` (an asset: MRC-010 token id, MRC402_… or MRC400_… collection) `block` events and the asset's `trade` and `order` events — each trade, and each order a transaction wrote as it then stands (an MRC-401 offer that ended comes closed, with how it ended). One of address, token and market at most (else 400). Event ids are chain positions — `<height>` for a block, `<height>:<txIndex>` for a transaction, `<height>:<txIndex>:<n>` for an activity row — in increasing order; send the last one seen back as `Last-Event-ID` (EventSource does so by itself) or as `lastEventId` to resume right after it, with no gap and no repeat, on any API server, from any height. Without either the stream starts at the next block. A comment line comes every STREAM_HEARTBEAT_MS (15 s by default) and `retry:` says how long to wait before reconnecting. A client that stops reading is disconnected once its buffer is full for too long (it resumes with its last id). 404 when `address` is of the address form but its checksum fails (no such address). 429 when the client already holds its most connections, 503 when the server does; both with Retry-After.",
  query: StreamQuery,
  errors: [400, 404, 429, 503],
  responseDescription:
    'text/event-stream: `event: block|tx|address|token|trade|order`, `id: <position>`, `data: <JSON>` per event, then a blank line.',
  events: {
    block: StreamBlock,
    tx: TxSummary,
    address: StreamAddressActivity,
    token: TokenTransfer,
    trade: MarketTrade,
    order: MarketOrder,
  },
  serve: streamHandler,
});

/**
 * Serves GET /api/stream: decodes the request, takes a connection slot, then hands the socket to the
 * hub, outside Koa's response handling (no body, cache, compression or time budget applies to it).
 */
export function streamHandler(hub: StreamHub | undefined): Koa.Middleware<ApiState> {
  return async (ctx) => {
    ctx.state.route = streamRoute.path;
    const { query } = decodeInput(z.object({}), StreamQuery, { params: {}, query: ctx.query, head: ctx.state.head });
    const header = ctx.get('Last-Event-ID').trim();
    const lastId = header !== '' ? header : query.lastEventId;
    const after = lastId === undefined ? null : parsePosition(lastId);
    if (lastId !== undefined && after === null) throw badRequest(`Last-Event-ID: ${EVENT_ID_MESSAGE}`);
    const given = [query.address, query.token, query.market].filter((v) => v !== undefined).length;
    if (given > 1) throw badRequest('query: give one of address, token and market');
    const filter: StreamFilter =
      query.address !== undefined
        ? { kind: 'address', address: query.address }
        : query.token !== undefined
          ? { kind: 'token', token: query.token }
          : query.market !== undefined
            ? { kind: 'market', asset: query.market }
            : { kind: 'all' };
    if (!hub) throw unavailable('the live stream is not available on this server (no event log)');
    const release = hub.admit(clientKey(ctx.ip));
    ctx.status = 200;
    ctx.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // Proxies that buffer answers (nginx) pass this one through as it comes.
      'X-Accel-Buffering': 'no',
    });
    if (ctx.method === 'HEAD') {
      release();
      ctx.body = null;
      return;
    }
    ctx.respond = false;
    const res = ctx.res;
    res.writeHead(200);
    res.flushHeaders();
    void hub.serve(res, { after, filter }).finally(release);
  };
}
