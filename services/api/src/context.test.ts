import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { createMemoryReadStore } from '@mtc/adapters';
import { HEAD_ID, openModels, type HeadDoc, type Models } from '@mtc/read-models';
import { describe, expect, it } from 'vitest';
import { createHeadReader } from './context.ts';

const headDoc = (height: number): HeadDoc => ({
  _id: HEAD_ID,
  pos: String(height).padStart(12, '0'),
  height,
  hash: `h${height}`,
  timestamp: 1_700_000_000 + height,
  txCount: height * 3,
});

/**
 * A real store's head, whose reads are held until released: a read sees the head as it is when the
 * read is issued (as a store answers a query it has run), and answers when `release` is called.
 */
async function heldHeads() {
  const store = createMemoryReadStore();
  const models = openModels(store);
  const held: { release: () => void; fail: (e: Error) => void }[] = [];
  let issued = 0;
  const head: Pick<Models, 'head'> = {
    head: {
      ...models.head,
      get: (id) => {
        issued++;
        const read = models.head.get(id);
        return new Promise((resolve, reject) => {
          held.push({ release: () => resolve(read), fail: reject });
        });
      },
    },
  };
  const write = (height: number) => store.write([{ op: 'put', collection: 'head', doc: headDoc(height) }]);
  await write(1);
  return {
    reader: createHeadReader(head, 0, Date.now),
    write,
    issued: () => issued,
    /** Answers the oldest held read, then lets the reader issue what it queued meanwhile. */
    async release() {
      held.shift()!.release();
      await nextMacrotask();
    },
    async fail(error: Error) {
      held.shift()!.fail(error);
      await nextMacrotask();
    },
  };
}

describe('the head reader', () => {
  it('validates with a read issued after the call, shared by every caller that comes while one is answered', async () => {
    const heads = await heldHeads();
    const first = heads.reader.fresh();
    await nextMacrotask();
    expect(heads.issued()).toBe(1);
    // A batch lands while that read is out: callers whose reads saw it must not be validated by the
    // read issued before it. They come in separate turns, and share the one read issued after it.
    await heads.write(2);
    const later = [heads.reader.fresh()];
    await nextMacrotask();
    later.push(heads.reader.fresh());
    await nextMacrotask();
    later.push(heads.reader.fresh());
    expect(heads.issued()).toBe(1);
    await heads.release();
    expect((await first).height).toBe(1);
    expect(heads.issued()).toBe(2);
    await heads.release();
    expect((await Promise.all(later)).map((h) => h.height)).toEqual([2, 2, 2]);
  });

  it('callers of one turn share one read, and a failed read fails its callers only', async () => {
    const heads = await heldHeads();
    const failing = [heads.reader.fresh(), heads.reader.fresh()];
    await nextMacrotask();
    expect(heads.issued()).toBe(1);
    const next = heads.reader.fresh();
    const failed = expect(Promise.all(failing)).rejects.toThrow('store down');
    await heads.fail(new Error('store down'));
    await failed;
    expect(heads.issued()).toBe(2);
    await heads.release();
    expect((await next).height).toBe(1);
  });
});
