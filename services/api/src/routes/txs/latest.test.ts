import { createMemoryReadStore } from '@mtc/adapters';
import { openModels, type BlockDoc, type TxDoc } from '@mtc/read-models';
import { describe, expect, it } from 'vitest';
import { blockOfSeq, latestTxs, txsBySeq } from './txs.ts';

const txId = (height: number, index: number): string => `${height}`.padStart(8, '0') + `${index}`.padStart(56, '0');

/** Blocks 1 … `height`, with `txsAt(h)` transactions each, as the projection writes them. */
async function chainOf(height: number, txsAt: (h: number) => number) {
  const store = createMemoryReadStore();
  const docs: { op: 'put'; collection: string; doc: BlockDoc | TxDoc }[] = [];
  let seq = 0;
  for (let h = 1; h <= height; h++) {
    const ids = Array.from({ length: txsAt(h) }, (_, i) => txId(h, i));
    docs.push({
      op: 'put',
      collection: 'blocks',
      doc: {
        _id: String(h),
        height: h,
        hash: `${h}`,
        timestamp: h,
        txCount: ids.length,
        firstSeq: seq,
        txs: ids.map((id) => ({ id, timestamp: h })),
      },
    });
    for (const [index, id] of ids.entries())
      docs.push({
        op: 'put',
        collection: 'txs',
        doc: {
          _id: id,
          seq: seq++,
          height: h,
          index,
          timestamp: h,
          valid: true,
          summary: { type: 'transfer', from: '', to: '', amount: '0', token: '0' },
          entries: [],
        },
      });
  }
  await store.write(docs);
  return { models: openModels(store), txCount: seq };
}

describe('latestTxs', () => {
  it('gives the newest transactions by seq, across blocks and empty ones', async () => {
    const { models, txCount } = await chainOf(100, (h) => (h % 3 === 0 ? 0 : h % 4));
    const expected = (await models.txs.find({}, { sort: [['seq', -1]], limit: 10 })).map((t) => t._id);
    expect((await latestTxs(models, 100, txCount, 10)).map((t) => t._id)).toEqual(expected);
    // Below the head: only what is at or below the height asked.
    const at60 = (await models.txs.find({ height: { $lte: 60 } }, { sort: [['seq', -1]], limit: 10 })).map(
      (t) => t._id,
    );
    const countAt60 = await models.txs.count({ height: { $lte: 60 } });
    expect((await latestTxs(models, 60, countAt60, 10)).map((t) => t._id)).toEqual(at60);
  });

  it('finds them below a long run of empty blocks, and gives all there are when fewer than asked', async () => {
    const { models, txCount } = await chainOf(1_000, (h) => (h <= 2 ? 2 : 0));
    let blockReads = 0;
    const getMany = models.blocks.getMany.bind(models.blocks);
    models.blocks.getMany = (ids) => (blockReads++, getMany(ids));
    expect((await latestTxs(models, 1_000, txCount, 10)).map((t) => t._id)).toEqual([
      txId(2, 1),
      txId(2, 0),
      txId(1, 1),
      txId(1, 0),
    ]);
    // A bounded walk down (8 reads of 32 blocks), then one query by seq: not a read per 32 blocks.
    expect(blockReads).toBe(8);
    expect(await latestTxs(models, 0, 0, 10)).toEqual([]);
  });
});

describe('txsBySeq', () => {
  it('finds the block that holds each seq, past empty blocks before and after it', async () => {
    const counts = (h: number) => (h % 5 === 0 ? 0 : h % 3);
    const { models, txCount } = await chainOf(400, counts);
    let seq = 0;
    for (let h = 1; h <= 400; h++)
      for (let i = 0; i < counts(h); i++) expect(await blockOfSeq(models, 400, seq++), `seq ${seq - 1}`).toBe(h);
    expect(seq).toBe(txCount);
  });

  it('gives every window of a deep page newest first, as the seq order has it, reading a few blocks by key', async () => {
    const { models, txCount } = await chainOf(300, (h) => (h % 7 === 0 ? 0 : (h * 5) % 4));
    const bySeq = (await models.txs.find({}, { sort: [['seq', 1]] })).map((t) => t._id);
    let blockReads = 0;
    let seqQueries = 0;
    const getMany = models.blocks.getMany.bind(models.blocks);
    models.blocks.getMany = (ids) => (blockReads++, getMany(ids));
    const find = models.txs.find.bind(models.txs);
    models.txs.find = (filter, options) => (seqQueries++, find(filter, options));
    for (let to = txCount; to > -10; to -= 7) {
      blockReads = 0;
      const window = { from: to - 7, to };
      const got = (await txsBySeq(models, { height: 300, txCount }, window)).map((t) => t._id);
      expect(got, `[${window.from}, ${window.to})`).toEqual(
        bySeq.slice(Math.max(0, to - 7), Math.max(0, to)).reverse(),
      );
      // Two rounds of search over 300 heights, then the page's blocks (32 at a time).
      expect(blockReads).toBeLessThanOrEqual(4);
    }
    expect(seqQueries).toBe(0);
  });
});
