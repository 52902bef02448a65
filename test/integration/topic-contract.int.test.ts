import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AdapterConfigSchema, createHttpChainSource, openEventLog, topicsOf } from '@mtc/adapters';
import { describeWithInfra, uniqueName, waitFor } from '@mtc/adapters/contract';
import { createDevnet, startDevnetServer, type DevnetServer } from '@mtc/devnet';
import { activityKey, BlockEvent, chainPos, TOPICS, type ActivityEvent } from '@mtc/domain';
import { createFollower } from '@mtc/follower';
import type { EventLog } from '@mtc/ports';
import { silentLogger } from '@mtc/runtime';
import type { BlockEventV3, StateEventV1 } from '@mtc/topic-types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  consume,
  DEFAULT_SCHEMA_DIR,
  loadValidators,
  type ConsumedMessage,
  type SkippedMessage,
} from '../../examples/topic-consumer/consume.ts';

/**
 * The topic contract (docs/topics.md), end to end on a real Kafka: what the follower publishes is
 * read back by the example downstream consumer, which validates every value against the committed
 * JSON Schemas in docs/schemas/ (with ajv, as a third party would, not with our zod schemas).
 * The tests run in order: the later ones use the block messages the first one read.
 */
const BLOCKS = 200;
const CONSUMER = fileURLToPath(new URL('../../examples/topic-consumer/consume.ts', import.meta.url));

/** Enough of our JSON Schema documents to walk to the `kind` of their branches. */
interface Schema {
  properties: Record<'write' | 'activity' | 'kind', Schema>;
  oneOf: Schema[];
  anyOf: Schema[];
  const: string;
}

describeWithInfra('topic contract: follower → Kafka → example consumer', ['KAFKA_BROKERS'], ({ KAFKA_BROKERS }) => {
  const config = AdapterConfigSchema.parse({
    KAFKA_BROKERS,
    KAFKA_CLIENT_ID: 'mtc-topic-contract-it',
    TOPIC_PREFIX: `${uniqueName('it')}.`,
  });
  const topics = topicsOf(config);
  const brokers = config.KAFKA_BROKERS!;
  let server: DevnetServer;
  let log: EventLog;
  const blocks: (ConsumedMessage & { kind: 'blocks' })[] = [];
  let stateCount = 0;
  /** The last height of each batch the follower published. */
  const batchEnds: number[] = [];
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    const devnet = createDevnet({ seed: 7, genesisTime: 1_700_000_000, historyBlocks: BLOCKS, blockIntervalSec: 5 });
    server = await startDevnetServer(devnet);
    log = await openEventLog(config);
    const stop = new AbortController();
    let published = 0;
    const running = createFollower({
      chain: createHttpChainSource({ baseUrl: server.url }),
      log,
      logger: silentLogger(),
      signal: stop.signal,
      topics,
      onProgress: (height) => {
        published = height;
        batchEnds.push(height);
      },
    }).run();
    try {
      // onProgress runs after the publish resolved, i.e. once the brokers hold the messages.
      await waitFor(() => published >= BLOCKS, { timeoutMs: 60_000, intervalMs: 50, what: `${BLOCKS} blocks` });
    } finally {
      stop.abort();
      await running;
    }
  }, 90_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await log?.close();
    await server?.close();
  });

  it('publishes blocks 1..N in order, one per offset, each keyed by its height and valid against the schema', async () => {
    const result = await consume({
      brokers,
      topicPrefix: config.TOPIC_PREFIX,
      groupId: uniqueName('it-blocks'),
      topics: ['blocks'],
      maxMessages: BLOCKS,
      signal: AbortSignal.timeout(30_000),
      onMessage: (m) => void (m.kind === 'blocks' && blocks.push(m)),
      print: () => {},
    });
    expect(result).toEqual({
      messages: BLOCKS,
      blocks: BLOCKS,
      states: 0,
      activities: 0,
      skipped: 0,
      stoppedBy: 'max-messages',
    });
    const heights = Array.from({ length: BLOCKS }, (_, i) => i + 1);
    expect(blocks.map((m) => m.value.height)).toEqual(heights);
    expect(blocks.map((m) => m.offset)).toEqual(heights.map((h) => String(h - 1)));
    expect(blocks.map((m) => m.key)).toEqual(heights.map(String));
    expect(blocks.map((m) => m.value.eventId)).toEqual(heights.map((h) => `block:${h}`));
    // firstTxSeq counts the listed transactions before each block: no block was skipped or repeated.
    let seq = 0;
    for (const { value } of blocks) {
      expect(value.firstTxSeq).toBe(seq);
      seq += value.txs.length;
    }
    expect(seq, 'the devnet history has transactions').toBeGreaterThan(0);
  }, 60_000);

  it('publishes each key’s newest write of a batch of the block events, keyed by write.key, in chain order per key', async () => {
    expect(blocks, 'needs the block messages of the test before').toHaveLength(BLOCKS);
    const expected = new Map<string, string>(); // eventId → key
    let writes = 0;
    for (const [i, end] of batchEnds.entries()) {
      const newest = new Map<string, string>(); // key → pos, within the batch
      for (const { value } of blocks)
        if (value.height > (batchEnds[i - 1] ?? 0) && value.height <= end)
          for (const tx of value.txs)
            for (const w of tx.writes) {
              newest.set(w.key, w.pos);
              writes++;
            }
      for (const [key, pos] of newest) expected.set(`state:${pos}`, key);
    }
    // Compaction at the source drops a good part of the writes (a busy wallet is written by most transactions).
    expect(expected.size).toBeGreaterThan(0);
    expect(expected.size).toBeLessThan(writes);

    const states: StateEventV1[] = [];
    const lastPos = new Map<string, string>();
    const result = await consume({
      brokers,
      topicPrefix: config.TOPIC_PREFIX,
      groupId: uniqueName('it-state'),
      topics: ['state'],
      maxMessages: expected.size,
      signal: AbortSignal.timeout(30_000),
      onMessage: (m) => {
        if (m.kind !== 'state') throw new Error(`unexpected ${m.kind} message`);
        expect(m.key).toBe(m.value.write.key);
        const before = lastPos.get(m.key);
        if (before !== undefined) expect(m.value.write.pos > before, `${m.key} in order`).toBe(true);
        lastPos.set(m.key, m.value.write.pos);
        states.push(m.value);
      },
      print: () => {},
    });
    expect(result).toEqual({
      messages: expected.size,
      blocks: 0,
      states: expected.size,
      activities: 0,
      skipped: 0,
      stoppedBy: 'max-messages',
    });
    expect(new Map(states.map((s) => [s.eventId, s.write.key]))).toEqual(expected);
    expect(states.every((s) => s.eventId === `state:${s.write.pos}`)).toBe(true);
    // The history writes every kind the schema lists (NFT records included), each read and validated.
    const kinds = await schemaKinds('mtc.state.v1', (s) => s.properties.write.oneOf);
    expect(new Set(states.map((s) => s.write.kind))).toEqual(new Set(kinds));
    stateCount = states.length;
  }, 60_000);

  it('publishes one activity message per activity of the block events, keyed by asset, in chain order per key', async () => {
    expect(blocks, 'needs the block messages of the test before').toHaveLength(BLOCKS);
    // What the block events say happened, as activity messages are expected: eventId → key.
    const expected = new Map<string, string>();
    for (const { value } of blocks) {
      const block = BlockEvent.parse(value);
      for (const tx of block.txs)
        tx.activity.forEach((a, i) => expected.set(`activity:${chainPos(block.height, tx.index, i)}`, activityKey(a)));
    }
    expect(expected.size, 'the devnet history has activity').toBeGreaterThan(0);

    const seen = new Map<string, string>(); // eventId → key
    const kinds: string[] = [];
    const lastPos = new Map<string, string>();
    const result = await consume({
      brokers,
      topicPrefix: config.TOPIC_PREFIX,
      groupId: uniqueName('it-activity'),
      topics: ['activity'],
      maxMessages: expected.size,
      signal: AbortSignal.timeout(30_000),
      onMessage: (m) => {
        if (m.kind !== 'activity') throw new Error(`unexpected ${m.kind} message`);
        kinds.push(m.value.activity.kind);
        expect(m.value.eventId).toBe(`activity:${m.value.pos}`);
        const before = lastPos.get(m.key);
        if (before !== undefined) expect(m.value.pos > before, `${m.key} in order`).toBe(true);
        lastPos.set(m.key, m.value.pos);
        seen.set(m.value.eventId, m.key);
      },
      print: () => {},
    });
    expect(result).toMatchObject({ messages: expected.size, activities: expected.size, skipped: 0 });
    expect(seen).toEqual(expected);
    // Every kind the schema lists, the NFT ones included, but `other` (legacy families' generic
    // activity, which this history's few legacy blocks do not write).
    const listed = await schemaKinds('mtc.activity.v1', (s) => s.properties.activity.anyOf[0]!.oneOf);
    expect(new Set(kinds)).toEqual(new Set(listed.filter((k) => k !== 'other')));
  }, 60_000);

  it('skips an activity of a kind it does not know without error, and commits past it', async () => {
    const prefix = `${uniqueName('it-future')}.`;
    const known = (await firstActivity()) as ActivityEvent;
    const future = {
      ...known,
      eventId: 'activity:future',
      activity: { kind: 'someFutureKind', jobType: 'mrc999x', extra: 1 },
    };
    await log.publish(`${prefix}mtc.activity.v1`, [
      { key: 'k', value: known },
      { key: 'k', value: future },
      { key: 'k', value: { ...known, eventId: 'activity:after' } },
    ]);
    const groupId = uniqueName('it-future');
    const skipped: SkippedMessage[] = [];
    const handled: string[] = [];
    const read = () =>
      consume({
        brokers,
        topicPrefix: prefix,
        groupId,
        topics: ['activity'],
        maxMessages: 3,
        signal: AbortSignal.timeout(20_000),
        onMessage: (m) => void handled.push(m.offset),
        onSkip: (m) => void skipped.push(m),
        print: () => {},
      });
    expect(await read()).toEqual({
      messages: 3,
      blocks: 0,
      states: 0,
      activities: 2,
      skipped: 1,
      stoppedBy: 'max-messages',
    });
    expect(handled).toEqual(['0', '2']);
    expect(skipped).toMatchObject([{ offset: '1', reason: 'activity kind someFutureKind' }]);
    // All three were committed: the group does not meet the skipped message again.
    const again = await consume({
      brokers,
      topicPrefix: prefix,
      groupId,
      topics: ['activity'],
      signal: AbortSignal.timeout(3_000),
      onMessage: (m) => void handled.push(`again ${m.offset}`),
      print: () => {},
    });
    expect(again.messages).toBe(0);
  }, 60_000);

  it('validates for real: the schemas reject a message that breaks the contract', async () => {
    const validators = await loadValidators();
    const block = blocks.find((b) => b.value.txs.length > 0)!.value;
    const broken: BlockEventV3[] = [
      { ...block, schemaVersion: 2 as 3 },
      { ...block, height: 0 },
      { ...block, txs: [{ ...block.txs[0]!, summary: { ...block.txs[0]!.summary, amount: '1.5' } }] },
    ];
    for (const value of broken) expect(validators.blocks(value), JSON.stringify(value).slice(0, 80)).toBe(false);
    const { eventId: _, ...withoutId } = block;
    expect(validators.blocks(withoutId)).toBe(false);
    expect(validators.blocks(block)).toBe(true);
  });

  it('stops at the first message that breaks the contract, without committing it', async () => {
    const prefix = `${uniqueName('it-bad')}.`;
    const [first, second] = blocks.map((b) => b.value);
    await log.publish(`${prefix}${TOPICS.blocks}`, [
      { key: '1', value: first },
      { key: '2', value: second },
      { key: '3', value: { ...second, height: 3, hash: 42 } },
    ]);
    const groupId = uniqueName('it-bad');
    const read = async (): Promise<{ offsets: string[]; error: unknown }> => {
      const offsets: string[] = [];
      const error = await consume({
        brokers,
        topicPrefix: prefix,
        groupId,
        signal: AbortSignal.timeout(20_000),
        onMessage: (m) => void offsets.push(m.offset),
        print: () => {},
      }).then(
        (r) => new Error(`resolved: ${JSON.stringify(r)}`),
        (e: unknown) => e,
      );
      return { offsets, error };
    };
    const run1 = await read();
    expect(run1.offsets).toEqual(['0', '1']);
    expect(run1.error).toMatchObject({
      name: 'ContractViolation',
      message: expect.stringMatching(/mtc\.blocks\.v3\[0\]@2: \/hash must be string/) as unknown,
    });
    // The group resumes at the bad message: it was never committed.
    const run2 = await read();
    expect(run2.offsets).toEqual([]);
    expect(run2.error).toMatchObject({ name: 'ContractViolation' });
  }, 60_000);

  /** The `kind` of each branch a published schema lists at `branches` (its oneOf of kinds). */
  async function schemaKinds(topic: string, branches: (schema: Schema) => Schema[]): Promise<string[]> {
    const schema = JSON.parse(await readFile(new URL(`${topic}.json`, DEFAULT_SCHEMA_DIR), 'utf8')) as Schema;
    return branches(schema).map((branch) => branch.properties.kind.const);
  }

  /** The first activity message the follower published (the devnet's history has some). */
  async function firstActivity(): Promise<unknown> {
    let value: unknown;
    await consume({
      brokers,
      topicPrefix: config.TOPIC_PREFIX,
      groupId: uniqueName('it-first-activity'),
      topics: ['activity'],
      maxMessages: 1,
      signal: AbortSignal.timeout(20_000),
      onMessage: (m) => void (value = m.value),
      print: () => {},
    });
    return value;
  }

  it('runs as a program: one line per block, then a summary; exits 0 after MAX_MESSAGES', async () => {
    expect(stateCount, 'needs the state count of the test before').toBeGreaterThan(0);
    const run = runConsumer({ TOPICS: 'blocks,state', MAX_MESSAGES: String(BLOCKS + stateCount) });
    expect(await run.exit, run.stderr()).toBe(0);
    const lines = run.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(BLOCKS);
    expect(lines[0]).toMatch(/^block 1 {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}\d+ txs?\b/);
    expect(lines.at(-1)).toMatch(new RegExp(`^block ${BLOCKS} `));
    expect(run.stderr()).toContain(
      `consumed ${BLOCKS + stateCount} messages (${BLOCKS} blocks, ${stateCount} state writes, 0 activities, ` +
        `0 skipped as of an unknown kind), all valid; stopped by max-messages`,
    );
  }, 60_000);

  it('runs as a program: stops cleanly on SIGINT', async () => {
    const run = runConsumer({ TOPICS: 'blocks' });
    await waitFor(() => run.stdout().includes('\n'), { timeoutMs: 30_000, intervalMs: 20, what: 'a first line' });
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(
      /consumed \d+ messages \(\d+ blocks, 0 state writes, 0 activities, 0 skipped as of an unknown kind\), all valid; stopped by signal/,
    );
  }, 60_000);

  function runConsumer(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', CONSUMER], {
      env: {
        ...process.env,
        KAFKA_BROKERS: brokers.join(','),
        TOPIC_PREFIX: config.TOPIC_PREFIX,
        GROUP_ID: uniqueName('it-cli'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => {
        children.delete(child);
        resolve(code);
      }),
    );
    return { child, exit, stdout: () => stdout, stderr: () => stderr };
  }
});
