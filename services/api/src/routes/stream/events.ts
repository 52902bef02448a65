import type { BlockEvent } from '@mtc/domain';
import {
  addressTxItems,
  dexOrderDoc,
  DEX_ORDER_ID,
  itemOrderDoc,
  marketTradeItems,
  tokenTxItems,
  type MarketOrderDoc,
} from '@mtc/read-models';
import { z } from 'zod';
import { AddressActivity } from '../addresses/schemas.ts';
import { toOrder, toTrade } from '../market/views.ts';
import { MarketOrder, MarketTrade } from '../market/schemas.ts';
import { TokenTransfer } from '../tokens/schemas.ts';
import { TxSummary } from '../txs/schemas.ts';

/**
 * The events of the live stream, built from a block message of the log alone (no store read), and
 * their ids. An id is the event's chain position, so it says exactly where a client is:
 *
 * - `block` `<height>`: the block itself, sent before anything in it;
 * - `tx` `<height>:<txIndex>`: each listed transaction, as a row of /api/transactions;
 * - `address` `<height>:<txIndex>:<entryIndex>`: a row of /api/address/{id}/txs of the subscribed address;
 * - `token` `<height>:<txIndex>:<activityIndex>`: a row of /api/token/{id}/txs of the subscribed token;
 * - `trade` and `order` `<height>:<txIndex>:<n>`: of the subscribed market asset, a trade as
 *   /api/market/trades lists it and each order the transaction wrote as /api/market/order/{id} then
 *   shows it (an MRC-401 offer that ended: closed, with how it ended); n counts the transaction's
 *   trades, then its orders.
 *
 * Positions compare component by component, a shorter one (the block) before those it prefixes, so
 * "everything after id X" is one comparison whatever the kinds: that is what makes `Last-Event-ID`
 * resume with no gap and no repeat.
 */
export type Position = readonly number[];

/** `h`, `h:i` or `h:i:j`, decimal (zero-padded allowed), as a client sends an id back. */
export const POSITION = /^[0-9]{1,15}(?::[0-9]{1,6}){0,2}$/;

/** The position an id names, or null when it is not one. */
export function parsePosition(id: string): Position | null {
  if (!POSITION.test(id)) return null;
  const parts = id.split(':').map(Number);
  return parts.every(Number.isSafeInteger) ? parts : null;
}

export function formatPosition(position: Position): string {
  return position.join(':');
}

/** <0, 0, >0 as a is before, at or after b in chain order. */
export function comparePositions(a: Position, b: Position): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Which events a subscription carries besides the blocks. */
export type StreamFilter =
  | { kind: 'all' }
  | { kind: 'address'; address: string }
  | { kind: 'token'; token: number }
  | { kind: 'market'; asset: string };

export const StreamBlock = z
  .object({
    height: z.int(),
    hash: z.string().describe("The block's data hash."),
    timestamp: z.int().describe('Unix seconds.'),
    txCount: z.int().describe('Listed transactions in the block.'),
  })
  .describe('Data of a `block` event (id: the height).');
export type StreamBlock = z.infer<typeof StreamBlock>;

export const StreamAddressActivity = AddressActivity.omit({ tokenName: true, tokenSymbol: true, parentName: true })
  .extend({ tokenId: z.int().nullable().describe('The MRC-010 token the entry moves; null for none.') })
  .describe(
    'Data of an `address` event (id: height:txIndex:entryIndex): a row of /api/address/{id}/txs, without the names (look them up once).',
  );
export type StreamAddressActivity = z.infer<typeof StreamAddressActivity>;

export type StreamEvent =
  | { type: 'block'; id: Position; data: StreamBlock }
  | { type: 'tx'; id: Position; data: TxSummary }
  | { type: 'address'; id: Position; data: StreamAddressActivity }
  | { type: 'token'; id: Position; data: TokenTransfer }
  | { type: 'trade'; id: Position; data: MarketTrade }
  | { type: 'order'; id: Position; data: MarketOrder };

/** Parses a `chainPos` (`000000000012:000003:000000`) into a position. */
const fromChainPos = (pos: string): Position => pos.split(':').map(Number);

/** The events of one block for a subscription, in position order: the block, then what it holds. */
export function blockEvents(block: BlockEvent, filter: StreamFilter): StreamEvent[] {
  const events: StreamEvent[] = [
    {
      type: 'block',
      id: [block.height],
      data: { height: block.height, hash: block.hash, timestamp: block.timestamp, txCount: block.txs.length },
    },
  ];
  switch (filter.kind) {
    case 'all':
      for (const tx of block.txs)
        events.push({
          type: 'tx',
          id: [block.height, tx.index],
          data: {
            id: tx.id,
            type: tx.summary.type,
            from: tx.summary.from,
            to: tx.summary.to,
            amount: tx.summary.amount,
            token: tx.summary.token,
            blockNum: block.height,
            blockTs: block.timestamp,
          },
        });
      break;
    case 'address':
      for (const { key, pos, row } of addressTxItems([block])) {
        if (key !== filter.address) continue;
        events.push({
          type: 'address',
          id: fromChainPos(pos),
          data: {
            job_type: row.jobType,
            jobdate: row.jobdate,
            tx_id: row.txId,
            db_sn: String(row.height),
            summary: row.summary,
            from: row.from,
            to: row.to,
            amount: row.amount,
            ...(row.nftId === null ? {} : { nftId: row.nftId }),
            tokenId: row.tokenId,
            kind: row.kind,
          },
        });
      }
      break;
    case 'token':
      for (const { key, pos, row } of tokenTxItems([block])) {
        if (key !== String(filter.token)) continue;
        events.push({
          type: 'token',
          id: fromChainPos(pos),
          data: {
            type: row.type,
            from: row.from,
            to: row.to,
            amount: row.amount,
            token: String(row.token),
            timestamp: row.timestamp,
            kind: row.kind,
            tx_id: row.txId,
            block_sn: row.height,
            recipients: row.recipients.map(({ to, amount }) => ({ to, amount })),
            memo: row.memo,
          },
        });
      }
      break;
    case 'market':
      events.push(...marketEvents(block, filter.asset));
      break;
  }
  // Address rows come per transaction in entry order, but an item's parties follow its wallets'.
  return events.sort((a, b) => comparePositions(a.id, b.id));
}

/** A block's market events of `asset`: per transaction, its trades, then the orders it wrote. */
function marketEvents(block: BlockEvent, asset: string): StreamEvent[] {
  const trades = new Map<number, MarketTrade[]>();
  for (const { key, pos, row } of marketTradeItems([block])) {
    if (key !== asset) continue;
    const txIndex = fromChainPos(pos)[1]!;
    trades.set(txIndex, [...(trades.get(txIndex) ?? []), toTrade(row)]);
  }
  const events: StreamEvent[] = [];
  for (const tx of block.txs) {
    if (!tx.valid) continue;
    let n = 0;
    const id = (): Position => [block.height, tx.index, n++];
    for (const trade of trades.get(tx.index) ?? []) events.push({ type: 'trade', id: id(), data: trade });
    for (const w of tx.writes) {
      let doc: MarketOrderDoc | null = null;
      if (w.kind === 'other' && DEX_ORDER_ID.test(w.key)) doc = dexOrderDoc(w.key, w.pos, w.jobType, w.values);
      else if (w.kind === 'nftItem') doc = itemOrderDoc(w.pos, w.jobType, w.item);
      if (doc?.asset === asset) events.push({ type: 'order', id: id(), data: toOrder(doc) });
    }
  }
  return events;
}

/** One event as SSE text: its type, its id and its data on one line (JSON has no raw newline). */
export function formatEvent(event: StreamEvent): string {
  return `event: ${event.type}\nid: ${formatPosition(event.id)}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
