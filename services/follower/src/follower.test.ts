import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEventLog } from '@mtc/adapters';
import { BlockEvent, StateEvent, topicNames, type RawBlock, type RawTransaction } from '@mtc/domain';
import type { ChainSource, EventLog } from '@mtc/ports';
import { silentLogger } from '@mtc/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createFollower } from './follower.ts';

const ADDRESS = 'MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA00000000';
const hex = (n: number, c: string): string => String(n).padStart(64, c);

/** A fake node: block n lists n % 3 transactions, each a single wallet write. */
function fakeChain(height: number, failFirst = 0): ChainSource & { calls: number } {
  let failures = failFirst;
  const block = (n: number): RawBlock => ({
    id: hex(n, 'b'),
    sn: String(n),
    transaction: Array.from({ length: n % 3 }, (_, i) => ({ id: hex(n * 10 + i, 'a'), timestamp: 1000 + n })),
    timestamp: 1000 + n,
  });
  const chain = {
    calls: 0,
    height: async () => height,
    block: async (id: number | string) => {
      chain.calls++;
      if (failures > 0) {
        failures--;
        throw Object.assign(new Error('412 MTC Server connection error'), { retryable: true });
      }
      const n = Number(id);
      return n >= 1 && n <= height ? block(n) : null;
    },
    transaction: async (txId: string): Promise<RawTransaction> => [
      {
        timestamp: 1000,
        id: txId,
        parameters: [],
        token: '',
        type: 'receive',
        values: { regdate: 1, addinfo: '', balance: [{ balance: '1', token: 0, unlockdate: 0 }] },
        validationCode: 0,
        address: ADDRESS,
        datakey: ADDRESS,
      },
    ],
  };
  return chain;
}

const topics = topicNames('t.');

async function follow(log: EventLog, chain: ChainSource, until: number): Promise<void> {
  const controller = new AbortController();
  const follower = createFollower({
    chain,
    log,
    logger: silentLogger(),
    signal: controller.signal,
    topics,
    options: { batchBlocks: 4, pollIntervalMs: 10 },
    onProgress: (published) => {
      if (published >= until) controller.abort();
    },
  });
  await follower.run();
}

async function read(log: EventLog, topic: string): Promise<unknown[]> {
  const values: unknown[] = [];
  const sub = await log.consume({ topic, group: `read-${Math.random()}` }, async (batch) => {
    values.push(...batch.map((r) => r.value));
  });
  // A group that never committed lags by the whole topic: that is the topic's length.
  const end = Date.now() + 5000;
  while ((await log.lag(topic, 'none')).reduce((s, p) => s + p.lag, 0) > values.length && Date.now() < end)
    await new Promise((r) => setTimeout(r, 10));
  await sub.stop();
  return values;
}

describe('createFollower', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  const openLog = async (): Promise<EventLog> => {
    const dir = await mkdtemp(join(tmpdir(), 'mtc-follower-'));
    dirs.push(dir);
    return createFileEventLog({ dir, pollMs: 10 });
  };

  it('publishes every block in chain order, with global transaction positions and the state writes', async () => {
    const log = await openLog();
    await follow(log, fakeChain(10), 10);
    const blocks = (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v));
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(blocks.flatMap((b) => b.txs.map((t) => t.seq))).toEqual([...Array(10).keys()]);
    const state = (await read(log, topics.state)).map((v) => StateEvent.parse(v));
    expect(state).toHaveLength(10);
    expect(state.every((s) => s.write.key === ADDRESS)).toBe(true);
    await log.close();
  });

  it('resumes after the newest published block: no gap, no duplicate', async () => {
    const log = await openLog();
    await follow(log, fakeChain(6), 4);
    await follow(log, fakeChain(10), 10);
    const blocks = (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v));
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(blocks.flatMap((b) => b.txs.map((t) => t.seq))).toEqual([...Array(10).keys()]);
    await log.close();
  });

  it('retries node errors that may pass instead of skipping the block', async () => {
    const log = await openLog();
    const chain = fakeChain(3, 2);
    await follow(log, chain, 3);
    const blocks = (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v));
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3]);
    expect(chain.calls).toBeGreaterThan(3);
    await log.close();
  });
});
