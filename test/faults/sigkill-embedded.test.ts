import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterConfigSchema, createSqliteReadStore, openEventLog } from '@mtc/adapters';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { BlockEvent, TOPICS } from '@mtc/domain';
import { openModels } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';
import {
  faultRng,
  loggedOrExited,
  logLines,
  printFaults,
  settledDump,
  spreadTargets,
  type FaultRecord,
} from './support/chaos.ts';

/**
 * SIGKILL in embedded mode: the all-in-one explorer (follower, projector and API in one process)
 * killed at eight points of one backfill — at crash points of the follower and of the projector
 * (between a block batch's data writes and its head write among them) and at random heights — and
 * restarted on the same data directory. Each restart must resume from the checkpoints the kill left
 * (the follower after the file log's newest block, the projector at its committed offset with the
 * store untouched), and the end state must equal an uninterrupted run's by canonical hash.
 */

const TEST = 'sigkill embedded';
const BATCH = 10;
const GROUP = 'mtc-projector.chain';
/** Embedded adapters, whatever servers this process has configured. */
const EMBEDDED = { PORT: '0', KAFKA_BROKERS: undefined, MONGO_URL: undefined, REDIS_URL: undefined };

describe(`SIGKILL at random points during a backfill (${TEST})`, () => {
  const rng = faultRng(TEST);
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir = '';
  let referenceDir = '';
  let reference: ExplorerProcess | undefined;
  let last: ServiceProcess | undefined;
  const faults: FaultRecord[] = [];

  const env = () => ({
    CHAIN_NODE_URL: node.url,
    DATA_DIR: dataDir,
    FOLLOWER_BATCH_BLOCKS: String(BATCH),
    PROJECTOR_MAX_BATCH: String(BATCH),
    FOLLOWER_BLOCK_CONCURRENCY: '2',
    LOG_LEVEL: 'debug',
  });

  /** Where the kill left the checkpoints: the log's newest block, the committed offset, the store's head. */
  const checkpoints = async (): Promise<{ published: number; committed: number; head: number }> => {
    const log = await openEventLog(AdapterConfigSchema.parse({ DATA_DIR: dataDir }));
    const store = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
    try {
      const last = await log.lastValue(TOPICS.blocks);
      const published = last == null ? 0 : BlockEvent.parse(last).height;
      const [lag] = await log.lag(TOPICS.blocks, GROUP);
      const head = (await openModels(store).head.get('indexed'))?.height ?? 0;
      return { published, committed: published - (lag?.lag ?? published), head };
    } finally {
      await store.close();
      await log.close();
    }
  };

  beforeAll(async () => {
    devnet = recentDevnet(777, 1_200);
    node = await startDevnetServer(devnet, { port: 0 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-faults-embedded-'));
    referenceDir = await mkdtemp(join(tmpdir(), 'mtc-faults-embedded-reference-'));
    // The uninterrupted run of the same chain, alongside.
    // (with the default batch sizes: batch boundaries must not matter).
    reference = await spawnExplorer({ CHAIN_NODE_URL: node.url, DATA_DIR: referenceDir, LOG_LEVEL: 'warn' });
  }, 60_000);

  afterAll(async () => {
    printFaults(TEST, faults);
    await reference?.kill('SIGTERM');
    await last?.kill('SIGTERM');
    await node?.close();
    for (const dir of [dataDir, referenceDir]) if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('resumes from its checkpoints after every SIGKILL and ends as an uninterrupted run', async () => {
    const height = devnet.height();
    const heights = spreadTargets(rng, 3, 80, Math.floor(height * 0.75));
    const plan: { crashAt?: string; target?: number }[] = [
      { crashAt: `follower.published-state@${rng.int(1, 4)}` },
      { target: heights[0]! },
      { crashAt: `projector.chain.write-1@${rng.int(1, 3)}` },
      { crashAt: `follower.published-activity@${rng.int(1, 4)}` },
      { target: heights[1]! },
      { crashAt: `projector.chain.write-1@${rng.int(1, 3)}` },
      { crashAt: `projector.chain.counted@${rng.int(1, 3)}` },
      { target: heights[2]! },
    ];
    let previous: { published: number; committed: number; head: number; fault: string } | null = null;
    let unmoved = { log: false, committed: false };
    for (const step of [...plan, {}]) {
      const explorer = spawnService('services/explorer/src/main.ts', {
        ...EMBEDDED,
        ...env(),
        FAULT_CRASH_AT: step.crashAt,
      });
      if (previous) {
        // A part may be killed before the other logs where it resumed (a crash point at its first
        // batch); then that part's checkpoint must not have moved (checked below).
        const following = await loggedOrExited(explorer, 'following');
        if (following)
          expect(following['from'], `follower resumed after ${previous.fault}`).toBe(previous.published + 1);
        const resumed = await loggedOrExited(explorer, 'block topic resumed');
        if (resumed) {
          expect(resumed['offset'], `projector resumed after ${previous.fault}`).toBe(String(previous.committed));
          expect(resumed['head']).toBe(previous.head);
        }
        faults.push({
          target: 'explorer',
          fault: previous.fault,
          at: `log ${previous.published}, committed ${previous.committed}, head ${previous.head}`,
          resumed:
            (following ? `follower from ${String(following['from'])}, ` : 'follower killed before it started, ') +
            (resumed ? `projector at offset ${String(resumed['offset'])}` : 'projector killed before a batch'),
        });
        unmoved = { log: following === null, committed: resumed === null };
      }
      if (step.target === undefined && step.crashAt === undefined) {
        // The last run indexes to the end (and keeps running until the comparison is done).
        last = explorer;
        break;
      }
      let fault: string;
      if (step.crashAt) {
        await explorer.exited;
        fault = `crash point ${step.crashAt}`;
        expect(explorer.output()).toContain(`crash point ${step.crashAt.split('@')[0]}`);
      } else {
        await waitFor(
          `the explorer to project block ${step.target}`,
          async () =>
            Math.max(0, ...logLines(explorer, 'projected blocks').map((l) => Number(l['height']))) >= step.target!
              ? true
              : undefined,
          240_000,
          20,
        );
        await explorer.kill('SIGKILL');
        fault = `SIGKILL at head ≥ ${step.target}`;
      }
      const at = await checkpoints();
      expect(at.head, 'killed mid-backfill').toBeLessThan(height);
      expect(at.head).toBeGreaterThanOrEqual(at.committed);
      if (previous) {
        if (unmoved.committed) expect(at.committed).toBe(previous.committed);
        if (unmoved.log) expect(at.published).toBe(previous.published);
        expect(at.published).toBeGreaterThanOrEqual(previous.published);
        expect(at.head).toBeGreaterThanOrEqual(previous.head);
      }
      previous = { ...at, fault };
    }
    expect(faults.length).toBeGreaterThanOrEqual(8);

    const faulted = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
    const uninterrupted = createSqliteReadStore({ path: join(referenceDir, 'read-models.sqlite') });
    try {
      const mine = await settledDump(faulted, height, 'the faulted run');
      const theirs = await settledDump(uninterrupted, height, 'the uninterrupted run');
      expect(mine.counts['blocks']).toBe(height);
      console.log(
        `[${TEST}] read models: faulted run sha256 ${mine.sha256}, uninterrupted run sha256 ${theirs.sha256}`,
      );
      expect(mine).toEqual(theirs);
    } finally {
      await faulted.close();
      await uninterrupted.close();
    }
  }, 900_000);
});
