import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEventLog } from '@mtc/adapters';
import {
  ActivityEvent,
  BlockEvent,
  BlockEventV1,
  BlockEventV2,
  addressChecksum,
  applyWalletChange,
  chainPos,
  StateEvent,
  topicNames,
  type RawBlock,
  type RawTransaction,
  type WalletVersion,
} from '@mtc/domain';
import type { ChainSource, EventLog } from '@mtc/ports';
import { silentLogger } from '@mtc/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFollower, FollowerHalt, type FollowerMetrics, type FollowerOptions } from './follower.ts';

const ADDRESS = 'MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA00000000';
const hex = (n: number, c: string): string => String(n).padStart(64, c);
const txId = (height: number, i: number): string => hex(height * 10 + i, 'a');

/** A node error as the HTTP ChainSource throws it: retryable, with a reason label. */
const nodeError = (reason: string) => Object.assign(new Error(`node failed: ${reason}`), { retryable: true, reason });

/**
 * A fake node: block n lists n % 3 transactions, each a single wallet write of job type `type(n)`.
 * `fill` is the character block hashes are padded with: two fakes with different fills serve two
 * different chains.
 */
function fakeChain(
  height: number,
  options: {
    failFirst?: number;
    fill?: string;
    type?: (height: number) => string;
    /** Write a real wallet (the written record a chain wallet has) of this address. */
    wallet?: string;
  } = {},
): ChainSource & { calls: number } {
  let failures = options.failFirst ?? 0;
  const fill = options.fill ?? 'b';
  const block = (n: number): RawBlock => ({
    id: hex(n, fill),
    sn: String(n),
    transaction: Array.from({ length: n % 3 }, (_, i) => ({ id: txId(n, i), timestamp: 1000 + n })),
    timestamp: 1000 + n,
  });
  const chain = {
    calls: 0,
    height: async () => height,
    block: async (id: number | string) => {
      chain.calls++;
      if (failures > 0) {
        failures--;
        throw nodeError('http_412');
      }
      const n = Number(id);
      return n >= 1 && n <= height ? block(n) : null;
    },
    transaction: async (id: string): Promise<RawTransaction> => {
      const n = Math.floor(parseInt(id.replace(/^a+/, ''), 10) / 10);
      const type = options.type?.(n) ?? 'receive';
      const address = options.wallet ?? ADDRESS;
      const entry = (token: number, balance: string) => ({
        token,
        balance,
        unlockdate: 0,
        saleamount: '0',
        auctionamount: '0',
      });
      return [
        {
          timestamp: 1000,
          id,
          parameters: [address, address, '1', '0', 'sig', '0', '', '', 'nonce'],
          token: '',
          type,
          values: {
            regdate: 1,
            addinfo: '',
            balance: options.wallet
              ? [entry(0, id.replace(/^a+/, '')), ...Array.from({ length: 50 }, (_, t) => entry(t + 1, '7'))]
              : [{ balance: '1', token: 0, unlockdate: 0 }],
            job_type: type,
            jobdate: 2000 + n,
          },
          validationCode: 0,
          address,
          datakey: address,
        },
      ];
    },
  };
  return chain;
}

const topics = topicNames('t.');
const FAST: Partial<FollowerOptions> = {
  batchBlocks: 4,
  pollIntervalMs: 10,
  retryBaseMs: 1,
  retryMaxMs: 5,
  missingGiveUpMs: 200,
  stallAfterMs: 60_000,
};

function recorder() {
  const seen = {
    retries: [] as string[],
    stalls: [] as boolean[],
    unknown: [] as string[],
    heights: [] as [number, number][],
  };
  const metrics: FollowerMetrics = {
    retry: (reason) => seen.retries.push(reason),
    stalled: (is) => seen.stalls.push(is),
    heights: (published, head) => seen.heights.push([published, head]),
    unknownJobType: (type) => seen.unknown.push(type),
  };
  return { ...seen, metrics };
}

interface FollowOptions {
  options?: Partial<FollowerOptions>;
  topics?: typeof topics;
  metrics?: FollowerMetrics;
  heads?: number[];
  /** Stops following after this long even if `until` was not published (a test then fails on what it finds). */
  giveUpMs?: number;
}

/** Follows until `until` is published; resolves with the node heights onProgress reported. */
async function follow(log: EventLog, chain: ChainSource, until: number, opts: FollowOptions = {}): Promise<number[]> {
  const controller = new AbortController();
  const heads = opts.heads ?? [];
  const timer = opts.giveUpMs === undefined ? undefined : setTimeout(() => controller.abort(), opts.giveUpMs);
  const follower = createFollower({
    chain,
    log,
    logger: silentLogger(),
    signal: controller.signal,
    topics: opts.topics ?? topics,
    options: { ...FAST, ...opts.options },
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    onProgress: (published, head) => {
      heads.push(head);
      if (published >= until) controller.abort();
    },
  });
  try {
    await follower.run();
  } finally {
    clearTimeout(timer);
  }
  return heads;
}

/** Runs a follower that is expected to stop by itself; rejects after 10 s otherwise. */
async function runToFailure(log: EventLog, chain: ChainSource, opts: FollowOptions = {}): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    await createFollower({
      chain,
      log,
      logger: silentLogger(),
      signal: controller.signal,
      topics,
      options: { ...FAST, ...opts.options },
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    }).run();
    return new Error('the follower stopped without an error');
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
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

const heights = async (log: EventLog): Promise<number[]> =>
  (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v).height);

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

  it('publishes every block in chain order, with global transaction positions and each key’s newest state write of a batch', async () => {
    const log = await openLog();
    await follow(log, fakeChain(10), 10);
    const blocks = (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v));
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(blocks.flatMap((b) => b.txs.map((t) => t.seq))).toEqual([...Array(10).keys()]);
    const state = (await read(log, topics.state)).map((v) => StateEvent.parse(v));
    // Every block writes the one address; batches of 4 blocks: the state topic is compacted, so a
    // batch publishes its newest write of the key (what compaction would keep), not every write.
    const newest = [4, 8, 10].map((last) =>
      blocks
        .filter((b) => b.height <= last)
        .flatMap((b) => b.txs)
        .at(-1)!,
    );
    expect(state.map((s) => s.txId)).toEqual(newest.map((t) => t.id));
    expect(state.every((s) => s.write.key === ADDRESS)).toBe(true);
    await log.close();
  });

  it('publishes a wallet whole on mtc.blocks.v3 once, then as changes that rebuild every whole write of v2', async () => {
    const log = await openLog();
    const wallet = `MT${'c'.repeat(30)}${addressChecksum('c'.repeat(30))}`;
    const all = topicNames('t.', { blocksV2: true });
    await follow(log, fakeChain(12, { wallet }), 12, { topics: all });
    const v3 = (await read(log, all.blocks)).map((v) => BlockEvent.parse(v));
    const v2 = (await read(log, all.blocksV2!)).map((v) => BlockEventV2.parse(v));
    const writes3 = v3.flatMap((b) => b.txs.flatMap((t) => t.writes));
    const writes2 = v2.flatMap((b) => b.txs.flatMap((t) => t.writes));
    expect(writes2.map((w) => w.kind)).toEqual(writes2.map(() => 'wallet'));
    expect(writes3.map((w) => w.kind)).toEqual(['wallet', ...writes2.slice(1).map(() => 'walletChange')]);
    const first = writes3[0]!;
    let record: (WalletVersion & { address: string }) | undefined =
      first.kind === 'wallet' ? { pos: first.pos, ...first.wallet } : undefined;
    let checked = 0;
    for (const [i, w] of writes3.entries()) {
      const whole = writes2[i]!;
      if (w.kind !== 'walletChange' || whole.kind !== 'wallet' || !record) continue;
      // Only the MTC entry moves: the change carries it, not the wallet's 51 entries.
      expect(w).toMatchObject({ tokens: [0], balances: [whole.wallet.balances[0]] });
      record = { ...applyWalletChange(record, w), address: wallet };
      expect(record).toEqual({ pos: whole.pos, ...whole.wallet });
      checked++;
    }
    expect(checked).toBe(writes2.length - 1);
    expect(JSON.stringify(v3).length).toBeLessThan(JSON.stringify(v2).length / 2);
    await log.close();
  });

  it('publishes entries on mtc.blocks.v3 with only the written values a transaction shows; v1 as served when asked', async () => {
    const log = await openLog();
    const withV1 = topicNames('t.', { blocksV1: true });
    const chain = fakeChain(6);
    await follow(log, chain, 6, { topics: withV1 });
    const v2 = (await read(log, withV1.blocks)).map((v) => BlockEvent.parse(v));
    const v1 = (await read(log, withV1.blocksV1!)).map((v) => BlockEventV1.parse(v));
    expect(v2.map((b) => b.height)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(v1.map((b) => b.height)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [i, block] of v2.entries()) {
      expect(block.schemaVersion).toBe(3);
      expect(v1[i]!.schemaVersion).toBe(1);
      for (const [t, tx] of block.txs.entries()) {
        const served = await chain.transaction(tx.id);
        // v1: every entry exactly as the node served it.
        expect(v1[i]!.txs[t]!.entries).toEqual(served);
        // v2: the same entries, with values cut to job_type, jobdate (and mrc402, absent here).
        const { values: _, ...rest } = served![0]!;
        expect(tx.entries).toEqual([{ ...rest, values: { job_type: 'receive', jobdate: 2000 + block.height } }]);
        // The written record itself travels once, decoded, in `writes`; the same in both versions.
        expect(tx.writes).toEqual(v1[i]!.txs[t]!.writes);
        // (The fake's record is not a full wallet, so it is carried as an `other` write, values whole.)
        expect(tx.writes[0]).toMatchObject({ key: ADDRESS, values: { balance: [{ balance: '1', token: 0 }] } });
      }
    }
    expect(v2.flatMap((b) => b.txs)).toHaveLength(6);
    await log.close();
  });

  it('publishes one activity message per activity, keyed by its asset, before the block it belongs to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mtc-follower-'));
    dirs.push(dir);
    const inner = createFileEventLog({ dir, pollMs: 10 });
    const order: string[] = [];
    const log: EventLog = {
      ...inner,
      publish: async (topic, messages) => {
        await inner.publish(topic, messages);
        if (messages.length > 0) order.push(topic);
      },
    };
    // Block 2's transactions are of a job type no decoder knows.
    await follow(log, fakeChain(5, { type: (n) => (n === 2 ? 'mrc999future' : 'receive') }), 5);
    const records: { key: string; value: unknown }[] = [];
    const sub = await inner.consume({ topic: topics.activity, group: 'check' }, async (batch) => {
      records.push(...batch);
    });
    const end = Date.now() + 5000;
    while (records.length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    // Blocks 1, 2, 4, 5 list 1, 2, 1, 2 txs … of which 1 + 2 + 1 + 2 = 6 activities.
    const events = records.map((r) => ({ key: r.key, event: ActivityEvent.parse(r.value) }));
    expect(events.map((e) => [e.key, e.event.pos, e.event.activity.kind])).toEqual([
      ['0', chainPos(1, 0, 0), 'transfer'],
      ['other', chainPos(2, 0, 0), 'other'],
      ['other', chainPos(2, 1, 0), 'other'],
      ['0', chainPos(4, 0, 0), 'transfer'],
      ['0', chainPos(5, 0, 0), 'transfer'],
      ['0', chainPos(5, 1, 0), 'transfer'],
    ]);
    expect(events.every((e) => e.event.eventId === `activity:${e.event.pos}`)).toBe(true);
    expect(events[1]?.event).toMatchObject({ height: 2, txId: txId(2, 0), timestamp: 1002 });
    // Every batch: state, activity, then the block events (the checkpoint) last.
    expect(order.slice(0, 3)).toEqual([topics.state, topics.activity, topics.blocks]);
    expect(order.at(-1)).toBe(topics.blocks);
    await inner.close();
  });

  it('fetches the next batch from the node while the batch before it is being published', async () => {
    const file = await openLog();
    const order: string[] = [];
    const chain = fakeChain(12);
    const block = chain.block.bind(chain);
    chain.block = async (id) => {
      order.push(`fetch ${String(id)}`);
      return block(id);
    };
    const log: EventLog = Object.assign(Object.create(file) as EventLog, {
      publish: async (topic: string, records: Parameters<EventLog['publish']>[1]) => {
        if (topic !== topics.blocks) return file.publish(topic, records);
        const heights = records.map((r) => r.key).join(',');
        order.push(`publishing ${heights}`);
        await new Promise((r) => setTimeout(r, 50));
        await file.publish(topic, records);
        order.push(`published ${heights}`);
      },
    });
    await follow(log, chain, 12);
    expect(await heights(file)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // Batches of 4: blocks 5–8 are asked for while 1–4 are being published, 9–12 while 5–8 are.
    for (const [published, next] of [
      ['1,2,3,4', 5],
      ['5,6,7,8', 9],
    ] as const)
      expect(order.indexOf(`fetch ${next}`), order.join(' | ')).toBeLessThan(order.indexOf(`published ${published}`));
    // Every block once.
    expect(order.filter((o) => o.startsWith('fetch')).length).toBe(12);
  });

  it('counts job types the decoder does not know and publishes them as generic activity', async () => {
    const log = await openLog();
    const m = recorder();
    await follow(log, fakeChain(5, { type: (n) => (n === 2 ? 'mrc999future' : 'receive') }), 5, {
      metrics: m.metrics,
    });
    expect(m.unknown).toEqual(['mrc999future', 'mrc999future']);
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5]);
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

  it('reports the newest block of the log as published from the start when restarted on a caught-up chain', async () => {
    const log = await openLog();
    await follow(log, fakeChain(6), 6);
    const m = recorder();
    const controller = new AbortController();
    const run = createFollower({
      chain: fakeChain(6),
      log,
      logger: silentLogger(),
      signal: controller.signal,
      topics,
      options: FAST,
      metrics: m.metrics,
    }).run();
    // Two head polls with no new block: the lag must be 0 in each report, not the whole chain.
    await vi.waitFor(() => expect(m.heights.length).toBeGreaterThanOrEqual(3));
    controller.abort();
    await run;
    expect(m.heights.filter(([published, head]) => published !== 6 || head !== 6)).toEqual([]);
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6]);
    await log.close();
  });

  it('refuses to resume on a node whose block at the resume height has another hash', async () => {
    const log = await openLog();
    await follow(log, fakeChain(6), 4);
    const error = await runToFailure(log, fakeChain(10, { fill: 'c' }));
    expect(error).toBeInstanceOf(FollowerHalt);
    const message = (error as Error).message;
    expect(message).toContain('block 4');
    expect(message).toContain(hex(4, 'b'));
    expect(message).toContain(hex(4, 'c'));
    expect(message).toMatch(/CHAIN_NODE_URL/);
    expect(message).toMatch(/DATA_DIR|TOPIC_PREFIX/);
    expect(await heights(log)).toEqual([1, 2, 3, 4]);
    await log.close();
  });

  it('waits for a node that is behind the log, then checks and resumes without a gap', async () => {
    const log = await openLog();
    await follow(log, fakeChain(6), 4);
    const m = recorder();
    const behind = fakeChain(10);
    let polls = 0;
    // The node reports 2 for its first polls (it is still syncing), then 10.
    const chain = { ...behind, height: async () => (++polls <= 3 ? 2 : 10) };
    await follow(log, chain, 10, { metrics: m.metrics });
    expect(m.retries.filter((r) => r === 'node_behind_log')).toHaveLength(3);
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await log.close();
  });

  it('never takes a head lower than one seen for the head: a 0 from the node is transient', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(10);
    let polls = 0;
    // 10 once, then the node's failed storage read: `GET /block` → 0, again and again.
    const chain = { ...base, height: async () => (++polls === 1 ? 10 : 0) };
    const heads = await follow(log, chain, 10, { metrics: m.metrics });
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(heads.every((h) => h === 10)).toBe(true);
    expect(m.retries).toContain('head_regressed');
    await log.close();
  });

  it('acts on the highest head seen when the node answers lower heads: no block fetched twice, no head reported lower', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(20);
    const fetched: number[] = [];
    // The node's head, poll after poll: 6, then lower answers (3 while blocks 5–6 are still to
    // fetch; 0, a failed storage read, and 5 once they are out), then 9 from the fifth poll on.
    const answers = [6, 3, 0, 5];
    let polls = 0;
    const chain = {
      ...base,
      height: async () => answers[polls++] ?? 9,
      block: async (id: number | string) => {
        fetched.push(Number(id));
        return base.block(id);
      },
    };
    const heads = await follow(log, chain, 9, { metrics: m.metrics, giveUpMs: 3_000 });
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Every block fetched once, in batches that only move forward.
    expect(fetched).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(heads).toEqual([6, 6, 9]);
    // What it reports (published, head) never goes down.
    const lower = m.heights.filter(
      ([p, h], i) => h < 6 || p < (m.heights[i - 1]?.[0] ?? 0) || h < (m.heights[i - 1]?.[1] ?? 0),
    );
    expect(lower).toEqual([]);
    await log.close();
  });

  it('keeps the highest head when the node answers 0 while a batch waits on a block, and follows on to it', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(20);
    let head = 6;
    let zeros = 0;
    let served = false;
    const chain = {
      ...base,
      height: async () => {
        if (head === 0) zeros++;
        return head;
      },
      block: async (id: number | string) => (id === 3 && !served ? null : base.block(id)),
    };
    // A short stall limit makes the follower ask for the head every 20 ms while blocks 1–4 wait on 3.
    const done = follow(log, chain, 6, {
      metrics: m.metrics,
      options: { stallAfterMs: 40, missingGiveUpMs: 60_000 },
      giveUpMs: 3_000,
    });
    await vi.waitFor(() => expect(m.retries).toContain('block_missing'));
    // The node's storage read fails from now on: `GET /block` answers 0.
    head = 0;
    // A second answer of 0 is asked for only once the first one has been taken in.
    await vi.waitFor(() => expect(zeros).toBeGreaterThanOrEqual(2));
    served = true;
    const heads = await done;
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(heads).toEqual([6, 6]);
    expect(m.heights.filter(([, reported]) => reported !== 6)).toEqual([]);
    await log.close();
  });

  it('retries node errors that may pass instead of skipping the block, and counts them by reason', async () => {
    const log = await openLog();
    const m = recorder();
    const chain = fakeChain(3, { failFirst: 2 });
    await follow(log, chain, 3, { metrics: m.metrics });
    expect(await heights(log)).toEqual([1, 2, 3]);
    expect(chain.calls).toBeGreaterThan(3);
    expect(m.retries).toEqual(['http_412', 'http_412']);
    await log.close();
  });

  it('retries a listed transaction the node answers 404 for until it is served', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(5);
    let misses = 0;
    const chain = {
      ...base,
      transaction: async (id: string) => (id === txId(4, 0) && ++misses <= 3 ? null : base.transaction(id)),
    };
    await follow(log, chain, 5, { metrics: m.metrics });
    const blocks = (await read(log, topics.blocks)).map((v) => BlockEvent.parse(v));
    expect(blocks.map((b) => b.height)).toEqual([1, 2, 3, 4, 5]);
    expect(blocks[3]?.txs[0]?.entries).toHaveLength(1);
    expect(m.retries.filter((r) => r === 'tx_missing')).toHaveLength(3);
    await log.close();
  });

  it('stops loudly, naming the transaction and its block, when a listed transaction stays unserved', async () => {
    const log = await openLog();
    const base = fakeChain(5);
    const chain = { ...base, transaction: async (id: string) => (id === txId(5, 1) ? null : base.transaction(id)) };
    const started = Date.now();
    const error = await runToFailure(log, chain, { options: { missingGiveUpMs: 150 } });
    expect(error).toBeInstanceOf(FollowerHalt);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    const message = (error as Error).message;
    expect(message).toContain(`transaction ${txId(5, 1)} (index 1 of 2) of block 5 (${hex(5, 'b')})`);
    expect(message).toMatch(/not found/);
    // Blocks 1–4 went out in the first batch; block 5 never did.
    expect(await heights(log)).toEqual([1, 2, 3, 4]);
    await log.close();
  });

  it('retries a block under the head that the node answers 404 for, and stops after the give-up time', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(6);
    let misses = 0;
    const flaky = {
      ...base,
      block: async (id: number | string) => (id === 3 && ++misses <= 2 ? null : base.block(id)),
    };
    await follow(log, flaky, 6, { metrics: m.metrics });
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(m.retries.filter((r) => r === 'block_missing')).toHaveLength(2);

    const log2 = await openLog();
    const gone = { ...base, block: async (id: number | string) => (id === 3 ? null : base.block(id)) };
    const error = await runToFailure(log2, gone, { options: { missingGiveUpMs: 100 } });
    expect(error).toBeInstanceOf(FollowerHalt);
    expect((error as Error).message).toMatch(/^block 3 is still not served .* head of 6/);
    expect(await heights(log2)).toEqual([]);
    await log.close();
    await log2.close();
  });

  it('reports a stall while the node is ahead and nothing gets published, and its end', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(3);
    const failUntil = Date.now() + 300;
    const chain = {
      ...base,
      block: async (id: number | string) => {
        if (Date.now() < failUntil) throw nodeError('timeout');
        return base.block(id);
      },
    };
    await follow(log, chain, 3, { metrics: m.metrics, options: { stallAfterMs: 100 } });
    expect(m.stalls).toEqual([true, false]);
    expect(m.retries.length).toBeGreaterThan(0);
    expect(new Set(m.retries)).toEqual(new Set(['timeout']));
    expect(await heights(log)).toEqual([1, 2, 3]);
    await log.close();
  });

  it('keeps reporting the node head while a batch waits on a block the node does not serve', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(20);
    let head = 6;
    let served = false;
    const chain = {
      ...base,
      height: async () => head,
      block: async (id: number | string) => (id === 3 && !served ? null : base.block(id)),
    };
    const done = follow(log, chain, 9, {
      metrics: m.metrics,
      // Long enough that no batch after the wait takes it on a loaded machine (40 ms did in CI).
      options: { stallAfterMs: 300, missingGiveUpMs: 60_000 },
    });
    await vi.waitFor(() => expect(m.retries).toContain('block_missing'));
    // The node moves on while blocks 1–4 wait on block 3: the lag must show it.
    head = 9;
    await vi.waitFor(() => expect(m.heights.at(-1)).toEqual([0, 9]));
    await vi.waitFor(() => expect(m.stalls).toEqual([true]), { timeout: 5000 });
    served = true;
    await done;
    expect(m.stalls).toEqual([true, false]);
    expect(await heights(log)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await log.close();
  });

  it('does not take the idle time of a quiet chain for a stall when its next block comes', async () => {
    const log = await openLog();
    const m = recorder();
    const base = fakeChain(20);
    let head = 2;
    let fetchMs = 0;
    const chain = {
      ...base,
      height: async () => head,
      block: async (id: number | string) => {
        await new Promise((r) => setTimeout(r, fetchMs));
        return base.block(id);
      },
    };
    const done = follow(log, chain, 3, { metrics: m.metrics, options: { stallAfterMs: 1_000 } });
    await vi.waitFor(() => expect(m.heights.at(-1)).toEqual([2, 2]));
    // Quiet for longer than the stall limit, then a block that takes longer than a watchdog tick
    // (500 ms) to fetch, but far less than the limit.
    await new Promise((r) => setTimeout(r, 1_200));
    fetchMs = 600;
    head = 3;
    await done;
    expect(m.stalls).toEqual([]);
    expect(await heights(log)).toEqual([1, 2, 3]);
    await log.close();
  });
});
