import type { RawEntry } from '@mtc/domain';
import { readShared, type Models, type TokenDoc, type TxDoc } from '@mtc/read-models';
import { notFound } from '../../errors.ts';
import { blocksBetween } from '../blocks/blocks.ts';
import { fromNode } from '../../node-calls.ts';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { PagingQuery, totalPages } from '../../paging.ts';
import { TxIdParams } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import {
  RawTxResponse,
  TransactionsPage,
  TxDetailList,
  type TxDetail,
  type TxListEntry,
  type TxSummary,
} from './schemas.ts';

/** Blocks read at a time while walking blocks for their transactions, and heights sampled per round of a search. */
const TX_BLOCKS = 32;
/** After this many blocks read for one page, one query by seq is cheaper (a long run of empty blocks). */
const TX_MAX_BLOCKS = 8 * TX_BLOCKS;

/**
 * The height of the block that holds transaction `seq` (< the head's `txCount`), at or below
 * `height`: the highest whose `firstSeq` is at or below it (an empty block after it starts past
 * it). Each round reads TX_BLOCKS evenly spaced heights by key and keeps the gap between two of
 * them, so a million blocks take four rounds.
 */
export async function blockOfSeq(models: Models, height: number, seq: number): Promise<number> {
  let lo = 1; // firstSeq(lo) <= seq (block 1's first transaction is seq 0)
  let hi = height; // the answer is at or below hi
  while (lo < hi) {
    const step = Math.max(1, Math.ceil((hi - lo) / TX_BLOCKS));
    const heights: number[] = [];
    for (let h = lo + step; h <= hi; h += step) heights.push(h);
    const sampled = new Map((await models.blocks.getMany(heights.map(String))).map((b) => [b.height, b.firstSeq]));
    let next = lo;
    let below = hi;
    for (const h of heights) {
      const first = sampled.get(h);
      if (first === undefined) throw new Error(`block ${h} is not stored below the head ${height}`);
      if (first <= seq) next = h;
      else {
        below = h - 1;
        break;
      }
    }
    lo = next;
    hi = Math.min(below, next + step - 1);
  }
  return lo;
}

/**
 * The transactions with seq in [from, to), newest first, of the blocks up to `height` (whose
 * transactions are the first `txCount` by seq). Read by keys — the block that holds `to − 1`
 * (the head's when `to` is `txCount`), the blocks below it, then their transactions — so every
 * MongoDB-compatible store answers from its `_id` index; a long run of empty blocks falls back to
 * the query by seq.
 */
export async function txsBySeq(
  models: Models,
  head: { height: number; txCount: number },
  window: { from: number; to: number },
): Promise<TxDoc[]> {
  const to = Math.min(window.to, head.txCount);
  const from = Math.max(0, window.from);
  if (to <= from) return [];
  const top = to === head.txCount ? head.height : await blockOfSeq(models, head.height, to - 1);
  const ids: string[] = [];
  let done = false;
  for (let at = top; at > 0 && !done; at -= TX_BLOCKS) {
    if (top - at >= TX_MAX_BLOCKS)
      return models.txs.find({ seq: { $gte: from, $lt: to } }, { sort: [['seq', -1]], limit: to - from });
    for (const block of await blocksBetween(models, at - TX_BLOCKS, at)) {
      for (let i = block.txs.length - 1; i >= 0; i--) {
        const seq = block.firstSeq + i;
        if (seq < from) {
          done = true;
          break;
        }
        if (seq < to) ids.push(block.txs[i]!.id);
      }
      if (done || block.firstSeq <= from) {
        done = true;
        break;
      }
    }
  }
  const byId = new Map((await models.txs.getMany(ids)).map((d) => [d._id, d]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The newest `limit` transactions at the head, newest first (`/chain`). */
export function latestTxs(models: Models, height: number, txCount: number, limit: number): Promise<TxDoc[]> {
  return txsBySeq(models, { height, txCount }, { from: txCount - limit, to: txCount });
}

/**
 * List rows for transactions. `blockTs` is the block's timestamp (the first transaction's time), which
 * can differ from the transaction's own; one getMany over the page's blocks fetches them.
 */
export async function toTxSummaries(models: Models, docs: readonly TxDoc[]): Promise<TxSummary[]> {
  const heights = [...new Set(docs.map((d) => d.height))];
  const blocks = heights.length > 0 ? await models.blocks.getMany(heights.map(String)) : [];
  const blockTs = new Map(blocks.map((b) => [b.height, b.timestamp]));
  return docs.map((d) => ({
    id: d._id,
    type: d.summary.type,
    from: d.summary.from,
    to: d.summary.to,
    amount: d.summary.amount,
    token: d.summary.token,
    blockNum: d.height,
    blockTs: blockTs.get(d.height) ?? d.timestamp,
  }));
}

const TOKEN_ID = /^(0|[1-9][0-9]{0,15})$/;

/** The tokens named by `summaries`, fetched with one getMany. */
async function tokensOf(models: Models, summaries: readonly TxSummary[]): Promise<Map<string, TokenDoc>> {
  const ids = [...new Set(summaries.map((s) => s.token).filter((t) => TOKEN_ID.test(t)))];
  const docs = ids.length > 0 ? await models.tokens.getMany(ids) : [];
  return new Map(docs.map((d) => [d._id, d]));
}

/** List entries for transactions (/transactions, and the transaction export): summaries with their token's names. */
export async function toTxListEntries(models: Models, docs: readonly TxDoc[]): Promise<TxListEntry[]> {
  const summaries = await toTxSummaries(models, docs);
  const tokens = await tokensOf(models, summaries);
  return summaries.map((s) => {
    const token = tokens.get(s.token);
    return { ...s, tokenSymbol: token?.symbol ?? '', tokenName: token?.name ?? '', tokenDecimal: token?.decimal ?? 0 };
  });
}

export const listTransactionsRoute = defineRoute({
  path: '/api/transactions',
  operationId: 'listTransactions',
  tag: 'transactions',
  summary: 'Indexed transactions, newest first',
  description: `Page p holds the transactions with seq in [T − p·limit, T − (p−1)·limit), T being the number indexed. A page past the end is an empty list. ${CURSOR_DOC}`,
  query: PagingQuery.extend({ cursor: CursorQuery }),
  response: TransactionsPage,
  errors: [400],
  links: linksTo(['getTransaction', 'getRawTransaction', 'getTxTemplates'], {
    id: '$response.body#/transactions/0/id',
  }),
  cache: 'head',
  async handle({ query, head }, app) {
    const { height, txCount } = await head();
    // Row n of the list is the transaction of seq n − 1.
    const { from, to, page, next, prev } = cursorPage('transactions', { first: 1, last: txCount }, query);
    const docs = to >= from ? await txsBySeq(app.models, { height, txCount }, { from: from - 1, to }) : [];
    return {
      transactions: await toTxListEntries(app.models, docs),
      currentBlock: height,
      page,
      totalPages: totalPages(txCount, query.limit),
      next,
      prev,
    };
  },
});

export const txRoute = defineRoute({
  path: '/api/tx/{id}',
  operationId: 'getTransaction',
  tag: 'transactions',
  summary: 'A transaction: one detail element per state write',
  params: TxIdParams,
  response: TxDetailList,
  errors: [400, 404],
  cache: 'immutable',
  async handle({ params }, app) {
    const tx = await app.models.txs.get(params.id);
    if (!tx) throw notFound(`transaction ${params.id} not found`);
    // Entries from the node carry their block; the block hash is looked up only for those that do not.
    const needsHash = tx.entries.some((e) => typeof e.db_id !== 'string');
    const [block, entries] = await Promise.all([
      needsHash ? app.models.blocks.get(String(tx.height)) : null,
      withMaps(app.models, tx),
    ]);
    const blockHash = block?.hash ?? '';
    return entries.map((entry) => toTxDetail(tx, entry, blockHash));
  },
});

/** The transaction's entries with the holdings maps stored apart (`TxDoc.maps`) back in place. */
async function withMaps(models: Models, tx: TxDoc): Promise<RawEntry[]> {
  if (!tx.maps?.length) return tx.entries;
  const what = `the holdings maps of transaction ${tx._id}`;
  const byId = await readShared(
    models.sharedValues,
    tx.maps.map((m) => m.id),
    what,
  );
  const entries = [...tx.entries];
  for (const { entry, id } of tx.maps) {
    const at = entries[entry];
    if (!at) throw new Error(`${what}: map ${id} names entry ${entry}, which the transaction does not have`);
    entries[entry] = { ...at, values: { ...at.values, mrc402: byId.get(id) } };
  }
  return entries;
}

export function toTxDetail(tx: TxDoc, entry: RawEntry, blockHash: string): TxDetail {
  const values = entry.values ?? {};
  return {
    id: tx._id,
    type: entry.type,
    db_id: entry.db_id ?? blockHash,
    db_sn: entry.db_sn ?? String(tx.height),
    token: String(entry.token ?? ''),
    values: {
      tx_id: tx._id,
      job_type: typeof values['job_type'] === 'string' ? values['job_type'] : entry.type,
      jobdate: unixSeconds(values['jobdate']) ?? entry.timestamp,
      mrc402: isRecord(values['mrc402']) ? values['mrc402'] : null,
    },
    address: entry.address ?? '',
    datakey: entry.datakey ?? '',
    timestamp: entry.timestamp,
    parameters: parameterStrings(entry.parameters),
    validationCode: entry.validationCode ?? 0,
  };
}

/** `tokenRegister` carries the token object itself as its parameters: it becomes one JSON string. */
function parameterStrings(parameters: RawEntry['parameters']): string[] {
  if (!Array.isArray(parameters)) return [JSON.stringify(parameters)];
  return parameters.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)));
}

/** The chain writes jobdate as a number, but old records and clients may have stored digits. */
function unixSeconds(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value)) return Number(value);
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const rawTxRoute = defineRoute({
  path: '/api/rawtx/{id}',
  operationId: 'getRawTransaction',
  tag: 'transactions',
  summary: 'A transaction as the chain node serves it',
  description: 'Read from the node, not the index: 503 when the node cannot answer.',
  params: TxIdParams,
  response: RawTxResponse,
  errors: [400, 404, 503],
  cache: 'immutable',
  async handle({ params }, app) {
    const transaction = await fromNode(`transaction ${params.id}`, () => app.chain.transaction(params.id));
    if (!transaction) throw notFound(`transaction ${params.id} not found`);
    return { transaction };
  },
});
