import type { Counters } from '@mtc/ports';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * The Counters contract: what SQLite and Redis counters must do alike. `make` opens empty counters
 * (a fresh file, database or key prefix per call).
 *
 * Not pinned: how blocks repeated or out of order inside one call are treated (the projector hands
 * each block once, in chain order), and height 0.
 */

/** A minute boundary (2023-11-14T22:14:00Z), so that offsets below read as seconds into a minute. */
const M = 1_700_000_040;
/** A UTC midnight (2023-11-15T00:00:00Z). */
const DAY = 1_700_006_400;

export function describeCountersContract(name: string, make: () => Promise<Counters>): void {
  describe(`Counters contract: ${name}`, () => {
    let counters: Counters;

    beforeEach(async () => {
      counters = await make();
    });

    afterEach(async () => {
      await counters.close();
    });

    const BLOCKS = [
      { height: 1, timestamp: M + 5, count: 2 },
      { height: 2, timestamp: M + 59, count: 3 },
      { height: 3, timestamp: M + 60, count: 4 },
      { height: 4, timestamp: M + 185, count: 1 },
    ];

    it('counts nothing before any block', async () => {
      expect(await counters.txCountBetween(M - 86_400, M + 86_400)).toBe(0);
      expect(await counters.highestCounted()).toBe(0);
    });

    it('reports the highest height counted, which replays do not lower', async () => {
      await counters.addBlockTxs(BLOCKS);
      expect(await counters.highestCounted()).toBe(4);
      await counters.addBlockTxs(BLOCKS.slice(0, 2));
      expect(await counters.highestCounted()).toBe(4);
    });

    it('sums the minute buckets in [from, to), both floored to the minute', async () => {
      await counters.addBlockTxs(BLOCKS);
      expect(await counters.txCountBetween(M, M + 60)).toBe(5);
      expect(await counters.txCountBetween(M, M + 120)).toBe(9);
      expect(await counters.txCountBetween(M + 30, M + 90)).toBe(5);
      expect(await counters.txCountBetween(M + 59, M + 61)).toBe(5);
      expect(await counters.txCountBetween(M + 60, M + 61)).toBe(0);
      expect(await counters.txCountBetween(M + 60, M + 120)).toBe(4);
      expect(await counters.txCountBetween(M + 180, M + 240)).toBe(1);
      expect(await counters.txCountBetween(M - 60, M + 240)).toBe(10);
      expect(await counters.txCountBetween(M + 240, M + 3600)).toBe(0);
    });

    it('does not count a replayed call twice', async () => {
      await counters.addBlockTxs(BLOCKS);
      await counters.addBlockTxs(BLOCKS);
      expect(await counters.txCountBetween(M, M + 240)).toBe(10);
    });

    it('ignores a block at or below the highest counted height, whatever its timestamp', async () => {
      await counters.addBlockTxs(BLOCKS);
      await counters.addBlockTxs([
        { height: 2, timestamp: M + 600, count: 100 },
        { height: 4, timestamp: M + 600, count: 100 },
      ]);
      expect(await counters.txCountBetween(M, M + 3600)).toBe(10);
    });

    it('counts only the new blocks of a call that mixes counted and new ones', async () => {
      await counters.addBlockTxs(BLOCKS.slice(0, 2));
      await counters.addBlockTxs(BLOCKS.slice(1));
      expect(await counters.txCountBetween(M, M + 240)).toBe(10);
      expect(await counters.txCountBetween(M, M + 60)).toBe(5);
    });

    it('raises the height for blocks without transactions too', async () => {
      await counters.addBlockTxs([{ height: 10, timestamp: M, count: 0 }]);
      await counters.addBlockTxs([{ height: 9, timestamp: M, count: 5 }]);
      expect(await counters.txCountBetween(M, M + 60)).toBe(0);
      await counters.addBlockTxs([{ height: 11, timestamp: M, count: 5 }]);
      expect(await counters.txCountBetween(M, M + 60)).toBe(5);
    });

    it('accepts an empty call', async () => {
      await counters.addBlockTxs([]);
      expect(await counters.txCountBetween(M, M + 60)).toBe(0);
    });

    it('sums ranges across minutes and days', async () => {
      await counters.addBlockTxs([
        { height: 100, timestamp: DAY - 1, count: 1 }, // the day before, last second
        { height: 101, timestamp: DAY, count: 2 },
        { height: 102, timestamp: DAY + 3_599, count: 3 },
        { height: 103, timestamp: DAY + 86_399, count: 4 }, // last second of the day
        { height: 104, timestamp: DAY + 86_400, count: 5 }, // next day
        { height: 105, timestamp: DAY + 2 * 86_400 + 43_200, count: 6 },
      ]);
      expect(await counters.txCountBetween(DAY, DAY + 86_400)).toBe(2 + 3 + 4);
      expect(await counters.txCountBetween(DAY - 86_400, DAY)).toBe(1);
      expect(await counters.txCountBetween(DAY + 86_400, DAY + 2 * 86_400)).toBe(5);
      expect(await counters.txCountBetween(DAY - 86_400, DAY + 3 * 86_400)).toBe(21);
      expect(await counters.txCountBetween(DAY, DAY + 3_600)).toBe(5);
      expect(await counters.txCountBetween(DAY + 3_600, DAY + 86_400)).toBe(4);
      expect(await counters.txCountBetween(DAY - 60, DAY + 60)).toBe(3);
    });
  });
}
