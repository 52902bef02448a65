import { summarize } from '@mtc/domain';
import type { BlockDoc, Models } from '@mtc/read-models';
import { notFound, unavailable } from '../../errors.ts';
import { mapWithConcurrency } from '@mtc/runtime';
import { fromNode } from '../../node-calls.ts';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { PagingQuery, totalPages } from '../../paging.ts';
import { BlockIdParams, type BlockRef } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { BlockDetail, BlocksPage, BlockSummary, RawBlockResponse } from './schemas.ts';

/** How many /transaction calls one /rawblock request may have in flight at the node. */
export const RAW_TX_CONCURRENCY = 8;

export function toBlockSummary(doc: BlockDoc): BlockSummary {
  return { height: doc.height, hash: doc.hash, txCount: doc.txCount, timestamp: doc.timestamp };
}

/**
 * The blocks of heights (from, to], newest first. Heights are contiguous from 1, so they are read by
 * their keys: every MongoDB-compatible store answers that from its `_id` index, where a range with a
 * sort has stores (mongo-java-server) scan and sort the whole collection.
 */
export async function blocksBetween(models: Models, from: number, to: number): Promise<BlockDoc[]> {
  if (to <= from) return [];
  const ids = Array.from({ length: to - Math.max(0, from) }, (_, i) => String(to - i));
  const docs = await models.blocks.getMany(ids);
  return docs.sort((a, b) => b.height - a.height);
}

/** The newest `limit` blocks at or below `height`, newest first. */
export function latestBlocks(models: Models, height: number, limit: number): Promise<BlockDoc[]> {
  return blocksBetween(models, Math.max(0, height - limit), height);
}

export async function findBlock(models: Models, ref: BlockRef): Promise<BlockDoc | null> {
  if (typeof ref === 'number') return models.blocks.get(String(ref));
  const [doc] = await models.blocks.find({ hash: ref }, { limit: 1 });
  return doc ?? null;
}

export const listBlocksRoute = defineRoute({
  path: '/api/blocks',
  operationId: 'listBlocks',
  tag: 'blocks',
  summary: 'Indexed blocks, newest first',
  description: `Page p holds heights (H − p·limit, H − (p−1)·limit] of the indexed height H. A page past the end is an empty list. ${CURSOR_DOC}`,
  query: PagingQuery.extend({ cursor: CursorQuery }),
  response: BlocksPage,
  errors: [400],
  links: linksTo(['getBlock', 'getRawBlock'], { id: '$response.body#/blocks/0/height' }),
  // Blocks up to the head's height and transactions below its count: written once, never changed.
  heightGated: true,
  cache: 'head',
  async handle({ query, head }, app) {
    const { height } = await head();
    // Heights are contiguous from 1: they are the list's row numbers (list position i is height i + 1).
    const { from, to, page, next, prev } = cursorPage('blocks', { first: 1, last: height }, query);
    const docs = to >= from ? await blocksBetween(app.models, from - 1, to) : [];
    return {
      blocks: docs.map(toBlockSummary),
      currentBlock: height,
      page,
      totalPages: totalPages(height, query.limit),
      next,
      prev,
    };
  },
});

export const blockRoute = defineRoute({
  path: '/api/block/{id}',
  operationId: 'getBlock',
  tag: 'blocks',
  summary: 'A block by height or hash',
  params: BlockIdParams,
  response: BlockDetail,
  errors: [400, 404],
  cache: 'immutable',
  async handle({ params }, app) {
    const doc = await findBlock(app.models, params.id);
    if (!doc) throw notFound(`block ${params.id} not found`);
    return {
      id: doc.hash,
      sn: String(doc.height),
      timestamp: doc.timestamp,
      transaction: doc.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
    };
  },
});

export const rawBlockRoute = defineRoute({
  path: '/api/rawblock/{id}',
  operationId: 'getRawBlock',
  tag: 'blocks',
  summary: 'A block as the chain node serves it, with each transaction payload',
  description: `Read from the node, not the index: 503 when the node cannot answer. Transaction payloads are fetched with at most ${RAW_TX_CONCURRENCY} requests in flight.`,
  params: BlockIdParams,
  response: RawBlockResponse,
  errors: [400, 404, 503],
  cache: 'immutable',
  async handle({ params }, app) {
    const block = await fromNode(`block ${params.id}`, () => app.chain.block(params.id));
    if (!block) throw notFound(`block ${params.id} not found`);
    const transaction = await mapWithConcurrency(block.transaction, RAW_TX_CONCURRENCY, async (tx) => {
      const payload = await fromNode(`transaction ${tx.id}`, () => app.chain.transaction(tx.id));
      // The node lists only transactions it can serve; a gap is the node's fault, not a missing tx.
      if (!payload)
        throw unavailable(`the chain node lists transaction ${tx.id} in block ${block.sn} but does not serve it`);
      return { id: tx.id, timestamp: tx.timestamp, type: summarize(payload).type, payload };
    });
    return { block: { ...block, transaction } };
  },
});
