import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEventLog, createMemoryReadStore, createSqliteCounters } from '@mtc/adapters';
import { topicNames, type BlockEvent } from '@mtc/domain';
import type { Counters, EventLog, ReadStore } from '@mtc/ports';
import { COLLECTIONS, openModels } from '@mtc/read-models';
import { chainBuilder, stateEventsOf } from '@mtc/read-models/testing';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjector } from './projector.ts';

/**
 * The projector over the embedded log and store: what it writes where, and that the today-so-far
 * counters come back by themselves when their store lost them (Redis flushed, say).
 */
const NOW = Date.UTC(2026, 5, 1, 12, 0) / 1000;
const topics = topicNames('t.');

describe('createProjector', () => {
  let dir: string;
  let log: EventLog;
  let store: ReadStore;
  const opened: Counters[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtc-projector-'));
    log = createFileEventLog({ dir });
    store = createMemoryReadStore();
  });

  afterEach(async () => {
    for (const c of opened.splice(0)) await c.close();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  const counters = (): Counters => {
    const c = createSqliteCounters({ path: ':memory:' });
    opened.push(c);
    return c;
  };

  const publish = async (blocks: BlockEvent[]): Promise<void> => {
    await log.publish(
      topics.state,
      stateEventsOf(blocks).map((e) => ({ key: e.write.key, value: e })),
    );
    await log.publish(
      topics.blocks,
      blocks.map((b) => ({ key: String(b.height), value: b })),
    );
  };

  /** Runs a projector until the store's head reaches `height`. */
  const runUntil = async (c: Counters, height: number, through: ReadStore = store): Promise<void> => {
    const abort = new AbortController();
    const sub = await createProjector({
      log,
      store: through,
      counters: c,
      logger: pino({ level: 'silent' }),
      signal: abort.signal,
      topics,
      now: () => NOW * 1000,
      options: { statsUtcOffsetMinutes: 0, maxBatch: 2 },
    }).start();
    const head = openModels(store).head;
    for (let i = 0; i < 400 && ((await head.get('indexed'))?.height ?? 0) < height; i++)
      await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await sub.stop();
    expect((await head.get('indexed'))?.height).toBe(height);
  };

  // Blocks an hour apart, the last ones within the counters' window before NOW.
  const chain = chainBuilder(NOW - 6 * 3600);
  const blocks = Array.from({ length: 6 }, () => chain.block([{}, {}]));

  it('projects both topics, batch by batch, up to the head', async () => {
    await publish(blocks.slice(0, 4));
    await runUntil(counters(), 4);
    const m = openModels(store);
    expect(await m.blocks.count()).toBe(4);
    expect(await m.txs.count()).toBe(8);
  });

  it('refills the today-so-far counters at start when they lost their data, with no new block', async () => {
    await publish(blocks.slice(0, 4));
    await runUntil(counters(), 4);
    const fresh = counters();
    await runUntil(fresh, 4);
    expect(await fresh.txCountBetween(NOW - 86_400, NOW + 60)).toBe(8);
  });

  it('refills the today-so-far counters from the store when they lost their data', async () => {
    const first = counters();
    await publish(blocks.slice(0, 4));
    await runUntil(first, 4);
    expect(await first.txCountBetween(NOW - 86_400, NOW + 60)).toBe(8);

    // The counters come back empty; two more blocks arrive.
    const fresh = counters();
    await publish(blocks.slice(4));
    await runUntil(fresh, 6);
    expect(await fresh.highestCounted()).toBe(6);
    expect(await fresh.txCountBetween(NOW - 86_400, NOW + 60)).toBe(12);
  });

  it('refills the counters when they lose their data in the middle of a block batch', async () => {
    // Counters whose server loses everything (a Redis restart, FLUSHALL) at a chosen moment.
    let inner = counters();
    const losing: Counters = {
      addBlockTxs: (b) => inner.addBlockTxs(b),
      highestCounted: () => inner.highestCounted(),
      txCountBetween: (from, to) => inner.txCountBetween(from, to),
      close: async () => {},
    };
    await publish(blocks.slice(0, 4));
    await runUntil(losing, 4);
    // Lost while the next batch writes its head: after the batch began, before it counts.
    let armed = true;
    const inside = store;
    const through: ReadStore = {
      ...inside,
      write: async (writes) => {
        if (armed && writes.some((w) => w.collection === COLLECTIONS.head)) {
          armed = false;
          inner = counters();
        }
        await inside.write(writes);
      },
    };
    await publish(blocks.slice(4));
    await runUntil(losing, 6, through);
    expect(armed).toBe(false);
    expect(await losing.highestCounted()).toBe(6);
    expect(await losing.txCountBetween(NOW - 86_400, NOW + 60)).toBe(12);
  });
});
