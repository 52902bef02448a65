import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEventLog, createMemoryReadStore, createSqliteCounters } from '@mtc/adapters';
import { topicNames, type BlockEvent } from '@mtc/domain';
import type { Counters, EventLog, ReadStore } from '@mtc/ports';
import { COLLECTIONS, dumpReadModels, openModels, projectState, READ_MODELS_LAYOUT } from '@mtc/read-models';
import { chainBuilder, projectInto, stateEventsOf, token } from '@mtc/read-models/testing';
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

  it('writes its layout into the head, and refuses to extend read models of another layout', async () => {
    await publish(blocks.slice(0, 2));
    await runUntil(counters(), 2);
    const head = openModels(store).head;
    expect((await head.get('indexed'))?.layout).toBe(READ_MODELS_LAYOUT);
    // Read models written before layouts were recorded (series rows keyed by chain position).
    const { layout: _, ...older } = (await head.get('indexed'))!;
    await store.write([{ op: 'put', collection: COLLECTIONS.head, doc: older }]);
    const projector = createProjector({
      log,
      store,
      counters: counters(),
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      topics,
      now: () => NOW * 1000,
      options: { statsUtcOffsetMinutes: 0, maxBatch: 2 },
    });
    await expect(projector.start()).rejects.toThrow(
      new RegExp(`written in layout 1 .* layout ${READ_MODELS_LAYOUT}: rebuild them`),
    );
    expect((await head.get('indexed'))?.height).toBe(2);
  });

  it('projects the block topic, batch by batch, up to the head', async () => {
    await publish(blocks.slice(0, 4));
    await runUntil(counters(), 4);
    const m = openModels(store);
    expect(await m.blocks.count()).toBe(4);
    expect(await m.txs.count()).toBe(8);
  });

  describe('makes each batch visible whole', () => {
    const A = 'MTaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa00000001';
    const B = 'MTbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb00000002';
    const C = 'MTcccccccccccccccccccccccccccccc00000003';
    const NFT = `${'d'.repeat(40)}0001`;
    /** Wallets, token records, MRC-402 and item owners changing in every block: holders and stats move. */
    function richChain(): BlockEvent[] {
      const c = chainBuilder(NOW - 6 * 3600);
      const out: BlockEvent[] = [];
      for (let i = 1; i <= 9; i++) {
        const [from, to] = i % 3 === 0 ? [C, A] : i % 2 === 0 ? [A, B] : [B, C];
        out.push(
          c.block([
            {
              tokens: [token(5, { owner: A, totalsupply: String(1000 + i) })],
              wallets: [
                {
                  address: from,
                  balances: [
                    [0, String(100 - i)],
                    [5, String(50 - i), 0, String(i % 4)],
                  ],
                  mrc402: { [NFT]: [String(i)] },
                },
                {
                  address: to,
                  balances: [
                    [0, String(10 + i)],
                    [5, String(i)],
                  ],
                  mrc402: { [NFT]: [String(10 - i)] },
                },
              ],
            },
            { items: [{ item: NFT, owner: i % 2 === 0 ? A : B }] },
          ]),
        );
      }
      return out;
    }

    /**
     * The read models after the first `height` blocks, settled: projected in one batch, with the
     * records as written also put from the state topic's messages (whose projection is its own).
     */
    async function settledAt(chainBlocks: readonly BlockEvent[], height: number): Promise<string> {
      const reference = createMemoryReadStore();
      await projectInto(reference, [chainBlocks.slice(0, height)]);
      await reference.write(projectState(stateEventsOf(chainBlocks.slice(0, height))));
      return (await dumpReadModels(reference)).sha256;
    }

    // A store that applies each document on its own, as MongoDB without transactions does, or each
    // call at once, as SQLite does; after every document a reader looks. Whenever the head it reads
    // is not being written, what it sees must be exactly the settled read models at that height.
    for (const atomic of [false, true]) {
      it(`on a store whose writes are ${atomic ? '' : 'not '}atomic, every head a reader can see is exact`, async () => {
        const chainBlocks = richChain();
        const expected = new Map<number, string>();
        for (let h = 1; h <= chainBlocks.length; h++) expected.set(h, await settledAt(chainBlocks, h));
        const inner = createMemoryReadStore();
        const seen: { height: number; writing: boolean; exact: boolean }[] = [];
        const look = async (): Promise<void> => {
          const head = await openModels(inner).head.get('indexed');
          if (!head) return;
          const writing = head.writing !== undefined;
          const exact = writing || (await dumpReadModels(inner)).sha256 === expected.get(head.height);
          seen.push({ height: head.height, writing, exact });
        };
        const through: ReadStore = {
          ...inner,
          atomicWrites: atomic,
          write: async (writes) => {
            if (atomic) {
              await inner.write(writes);
              await look();
            } else
              for (const w of writes) {
                await inner.write([w]);
                await look();
              }
          },
        };
        await publish(chainBlocks);
        store = inner;
        await runUntil(counters(), chainBlocks.length, through);
        const wrong = seen.filter((s) => !s.exact);
        expect(wrong, 'heads a reader saw with read models not at that height').toEqual([]);
        // Batches of two blocks: the reader saw heads 2, 4, … settled, and (not atomic) batches written.
        expect(new Set(seen.filter((s) => !s.writing).map((s) => s.height))).toEqual(new Set([2, 4, 6, 8, 9]));
        expect(seen.some((s) => s.writing)).toBe(!atomic);
      });
    }
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
    // Lost while the next batch marks the head as being written (a store whose writes are not
    // atomic): after the batch began, before it counts (counted before its new head is written).
    let armed = true;
    const inside = store;
    const through: ReadStore = {
      ...inside,
      atomicWrites: false,
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
