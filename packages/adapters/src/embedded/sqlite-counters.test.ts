import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCountersContract } from '../contract/index.ts';
import { createSqliteCounters } from './sqlite-counters.ts';
import { createSqliteReadStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'mtc-sqlite-counters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshPath = (): string => join(dir, `counters-${++files}.sqlite`);

describeCountersContract('sqlite (own file)', async () => createSqliteCounters({ path: freshPath() }));
describeCountersContract('sqlite (:memory:)', async () => createSqliteCounters({ path: ':memory:' }));
describeCountersContract('sqlite (file shared with the read store)', async () => {
  const path = freshPath();
  const store = createSqliteReadStore({ path });
  await store.write([{ op: 'put', collection: 'blocks', doc: { _id: '1', height: 1 } }]);
  const counters = createSqliteCounters({ path });
  return {
    addBlockTxs: (blocks) => counters.addBlockTxs(blocks),
    highestCounted: () => counters.highestCounted(),
    txCountBetween: (from, to) => counters.txCountBetween(from, to),
    close: async () => {
      await counters.close();
      await store.close();
    },
  };
});

describe('createSqliteCounters', () => {
  it('keeps buckets and the counted height across a reopen', async () => {
    const path = freshPath();
    const first = createSqliteCounters({ path });
    await first.addBlockTxs([{ height: 5, timestamp: 600, count: 7 }]);
    await first.close();
    const second = createSqliteCounters({ path });
    try {
      await second.addBlockTxs([
        { height: 5, timestamp: 600, count: 7 },
        { height: 6, timestamp: 660, count: 1 },
      ]);
      expect(await second.txCountBetween(600, 720)).toBe(8);
    } finally {
      await second.close();
    }
  });

  it('counts a block repeated inside one call once', async () => {
    const counters = createSqliteCounters({ path: ':memory:' });
    try {
      await counters.addBlockTxs([
        { height: 1, timestamp: 60, count: 2 },
        { height: 1, timestamp: 60, count: 2 },
        { height: 2, timestamp: 60, count: 1 },
      ]);
      expect(await counters.txCountBetween(0, 120)).toBe(3);
    } finally {
      await counters.close();
    }
  });

  it('rejects counts that are not whole numbers, applying nothing', async () => {
    const counters = createSqliteCounters({ path: ':memory:' });
    try {
      await expect(
        counters.addBlockTxs([
          { height: 1, timestamp: 60, count: 2 },
          { height: 2, timestamp: 60, count: 1.5 },
        ]),
      ).rejects.toThrow(RangeError);
      expect(await counters.txCountBetween(0, 120)).toBe(0);
    } finally {
      await counters.close();
    }
  });
});
