import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdapterConfigSchema,
  createMongoReadStore,
  createSqliteReadStore,
  openEventLog,
  topicsOf,
} from '@mtc/adapters';
import { describeWithInfra } from '@mtc/adapters/contract';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { BlockEvent } from '@mtc/domain';
import type { EventLog, LogRecord, ReadStore } from '@mtc/ports';
import { projectorLag, totalLag } from '@mtc/projector';
import { openModels } from '@mtc/read-models';
import { freePort } from '@mtc/runtime';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import { expectedTxStats } from '../support/ground-truth.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { spawnService, waitForOutput, type ServiceProcess } from '../support/service-process.ts';
import {
  faultRng,
  loggedOrExited,
  logLines,
  printFaults,
  settledDump,
  spreadTargets,
  unwrittenJobTypes,
  type FaultRecord,
} from './support/chaos.ts';

/**
 * SIGKILL in distributed mode: the follower, the projector and the API each killed at six or more
 * random points of one backfill of a history that covers every job family — some at random
 * heights, some at named crash points (between a batch's state and its checkpoint, between a block
 * batch's data writes and its head write) — and restarted; first of all, the projector holding the
 * block partition is killed while a second one waits in its group. Each restart must resume from its
 * checkpoint (the follower after the log's newest block; the projector at its group's committed
 * offset, with the store as the kill left it), and the end state must equal an uninterrupted run
 * of the same chain (the embedded mode) by the read models' canonical hash, with the block topic
 * holding every height exactly once and the today-so-far counters counted once.
 */

const TEST = 'sigkill distributed';
/** Blocks per follower publish: a kill between a batch's state and its checkpoint republishes at most this many. */
const BATCH = 10;
const PROJECTOR_BATCH = 25;

describeWithInfra(
  `SIGKILL at random points during a backfill (${TEST})`,
  ['KAFKA_BROKERS', 'MONGO_JAVA_URL', 'REDIS_URL'],
  (infra) => {
    const rng = faultRng(TEST);
    const run = randomBytes(4).toString('hex');
    const group = `faults-${run}`;
    const base = {
      ...infra,
      // mongo-java-server, the faster of the two MongoDB stand-ins: the FerretDB one is what the
      // distributed end-to-end test runs on, alongside, and two such runs at once starve each other.
      MONGO_URL: infra.MONGO_JAVA_URL,
      // The MongoDB stand-in answers the API's "newest first" reads with a scan: seconds at this
      // size, beyond the production budgets a real MongoDB meets from its indexes.
      API_REQUEST_TIMEOUT_MS: '30000',
      STORE_READ_TIMEOUT_MS: '30000',
      TOPIC_PREFIX: `faults-${run}.`,
      MONGO_DATABASE: `faults_${run}`,
      REDIS_PREFIX: `faults:${run}:`,
      PROJECTOR_GROUP: group,
      PROJECTOR_MAX_BATCH: String(PROJECTOR_BATCH),
      FOLLOWER_BATCH_BLOCKS: String(BATCH),
      FOLLOWER_BLOCK_CONCURRENCY: '2',
      OPS_PORT: '0',
    };
    const topics = topicsOf(AdapterConfigSchema.parse(base));
    let devnet: Devnet;
    let node: { url: string; close(): Promise<void> };
    let log: EventLog;
    let store: ReadStore;
    let reference: ExplorerProcess;
    let referenceDir = '';
    let clock = 0;
    const processes = new Set<ServiceProcess>();
    const faults: FaultRecord[] = [];
    /** The log's newest block at each follower kill: republished state/activity can only come after these. */
    const followerCheckpoints: number[] = [];

    const start = (main: string, env: Record<string, string | undefined>): ServiceProcess => {
      const p = spawnService(main, { ...base, CHAIN_NODE_URL: node.url, ...env });
      processes.add(p);
      void p.exited.then(() => processes.delete(p));
      return p;
    };
    const lastPublished = async (): Promise<number> => {
      const last = await log.lastValue(topics.blocks);
      return last == null ? 0 : BlockEvent.parse(last).height;
    };
    const storeHead = async (): Promise<number> => (await openModels(store).head.get('indexed'))?.height ?? 0;
    /** The chain group's committed offset, read while the end of the topic stands still. */
    const committedChainOffset = async (): Promise<number> => {
      for (;;) {
        const before = await lastPublished();
        const [lag] = await log.lag(topics.blocks, `${group}.chain`);
        if ((await lastPublished()) === before) return before - (lag?.lag ?? before);
      }
    };
    /** Waits for `p` to log `msg` after output offset `since`; the first such line. */
    const loggedLine = async (p: ServiceProcess, msg: string, since = 0) =>
      waitFor(`${msg} from a restarted service`, async () => logLines(p, msg, since)[0], 120_000, 50);
    /** Resolves when `progress` reaches `target`, or rejects when the process exits first. */
    const reach = (what: string, p: ServiceProcess, progress: () => Promise<number> | number, target: number) =>
      waitFor(
        `${what} to reach ${target}`,
        async () => {
          if (p.child.exitCode !== null || p.child.signalCode !== null)
            throw new Error(`${what} exited:\n${p.output()}`);
          return (await progress()) >= target ? true : undefined;
        },
        240_000,
        20,
      );
    const publishedBy = (p: ServiceProcess): number =>
      Math.max(0, ...logLines(p, 'published blocks').map((l) => Number(l['to'])));
    const projectedBy = (p: ServiceProcess): number =>
      Math.max(0, ...logLines(p, 'projected blocks').map((l) => Number(l['height'])));

    beforeAll(async () => {
      devnet = recentDevnet(777, 1_200);
      clock = devnet.block(devnet.height())!.timestamp + 90;
      node = await startDevnetServer(devnet, { port: 0 });
      log = await openEventLog(AdapterConfigSchema.parse(base));
      store = await createMongoReadStore({ url: infra.MONGO_JAVA_URL, database: base.MONGO_DATABASE });
      // The uninterrupted run: the embedded mode indexing the same chain, alongside.
      referenceDir = await mkdtemp(join(tmpdir(), 'mtc-faults-reference-'));
      reference = await spawnExplorer({
        CHAIN_NODE_URL: node.url,
        DATA_DIR: referenceDir,
        DEVNET_BLOCK_INTERVAL_MS: '0',
      });
    }, 120_000);

    afterAll(async () => {
      printFaults(TEST, faults);
      await Promise.all([...processes].map((p) => p.kill('SIGKILL')));
      await reference?.kill('SIGTERM');
      await store?.drop();
      await store?.close();
      await log?.close();
      await node?.close();
      if (referenceDir) await rm(referenceDir, { recursive: true, force: true });
    }, 120_000);

    it('backfills a history that covers every job family', () => {
      expect(unwrittenJobTypes(devnet)).toEqual([]);
    });

    it('survives six SIGKILLs each of the follower, the projector and the API, resuming from checkpoints', async () => {
      const migrate = start('services/projector/src/migrate.ts', {});
      expect(await migrate.exited).toBe(0);
      const height = devnet.height();
      const apiPort = await freePort();
      const apiEnv = { PORT: String(apiPort), CLOCK_NOW_UNIX: String(clock), LOG_LEVEL: 'warn' };

      // Each run of a loop is killed (at a random height or a crash point) and the next run's start is
      // checked against the checkpoint the kill left; the last run goes to the end.
      const followerLoop = async (): Promise<void> => {
        // Three kills at random heights, three at crash points: after a batch's state, after its
        // activity (both before its checkpoint), after its checkpoint.
        const heights = spreadTargets(rng, 3, 60, Math.floor(height * 0.7));
        const points = ['follower.published-state', 'follower.published-activity', 'follower.published-blocks'];
        const plan: { crashAt?: string; target?: number }[] = heights.flatMap((h, i) => [
          { target: h },
          { crashAt: `${points[i]}@${rng.int(1, 4)}` },
        ]);
        let previous: { checkpoint: number; fault: string } | null = null;
        for (const step of [...plan, {}]) {
          const p = start('services/follower/src/main.ts', { LOG_LEVEL: 'debug', FAULT_CRASH_AT: step.crashAt });
          if (previous) {
            const line = await loggedLine(p, 'following');
            expect(line['from'], `follower resumed after ${previous.fault}`).toBe(previous.checkpoint + 1);
            faults.push({
              target: 'follower',
              fault: previous.fault,
              at: `log's newest block ${previous.checkpoint}`,
              resumed: `from block ${String(line['from'])}`,
            });
          }
          if (step.target === undefined && step.crashAt === undefined) return; // the last run indexes to the end
          let fault: string;
          if (step.crashAt) {
            await p.exited;
            expect(p.output()).toContain(`crash point ${step.crashAt.split('@')[0]}`);
            fault = `crash point ${step.crashAt}`;
          } else {
            await reach('the follower', p, () => publishedBy(p), step.target!);
            await p.kill('SIGKILL');
            fault = `SIGKILL at published height ≥ ${step.target}`;
          }
          const checkpoint = await lastPublished();
          expect(checkpoint, 'killed mid-backfill').toBeLessThan(height);
          if (previous) expect(checkpoint).toBeGreaterThanOrEqual(previous.checkpoint);
          followerCheckpoints.push(checkpoint);
          previous = { checkpoint, fault };
        }
      };

      const projectorLoop = async (): Promise<void> => {
        // Five crash points between a block batch's "writing" head and its new head (write 1 marks
        // the head as being written, writes 2–5 are the data phases, write 6 is the head), one after
        // all writes but before the commit; and three SIGKILLs at random heights of the store's head.
        const heights = spreadTargets(rng, 3, 80, Math.floor(height * 0.8));
        const points = [1, 2, 3, 4, 5].map((k) => `projector.chain.write-${k}`);
        points.push('projector.chain.counted');
        const plan: { crashAt?: string; target?: number }[] = [];
        for (const [i, point] of points.entries()) {
          plan.push({ crashAt: `${point}@${rng.int(1, 3)}` });
          if (i % 2 === 1) plan.push({ target: heights[(i - 1) / 2]! });
        }
        let previous: { head: number; committed: number; fault: string } | null = null;
        let unmoved = false;
        for (const step of [...plan, {}]) {
          const p = start('services/projector/src/main.ts', { LOG_LEVEL: 'debug', FAULT_CRASH_AT: step.crashAt });
          if (previous) {
            // A run killed before its first block batch (a state crash point) logs no resume; then
            // its checkpoint must not have moved (checked below).
            const line = await loggedOrExited(p, 'block topic resumed');
            if (line) {
              expect(line['offset'], `projector resumed at its committed offset after ${previous.fault}`).toBe(
                String(previous.committed),
              );
              expect(line['head'], 'the store as the kill left it').toBe(previous.head);
            }
            unmoved = line === null;
            faults.push({
              target: 'projector',
              fault: previous.fault,
              at: `head ${previous.head}, committed offset ${previous.committed}`,
              resumed: line
                ? `offset ${String(line['offset'])} (block ${String(line['height'])}), head ${String(line['head'])}`
                : 'killed again before a block batch',
            });
          }
          if (step.target === undefined && step.crashAt === undefined) return;
          let fault: string;
          if (step.crashAt) {
            await p.exited;
            expect(p.output()).toContain(`crash point ${step.crashAt.split('@')[0]}`);
            fault = `crash point ${step.crashAt}`;
          } else {
            await reach('the projector', p, () => projectedBy(p), step.target!);
            await p.kill('SIGKILL');
            fault = `SIGKILL at head ≥ ${step.target}`;
          }
          const head = await storeHead();
          const committed = await committedChainOffset();
          expect(head, 'killed mid-backfill').toBeLessThan(height);
          // Offset k is block k + 1: what is committed is in the store.
          expect(head).toBeGreaterThanOrEqual(committed);
          if (previous) expect(head).toBeGreaterThanOrEqual(previous.head);
          if (previous && unmoved) expect(committed).toBe(previous.committed);
          previous = { head, committed, fault };
        }
        throw new Error('the plan ends with a run that is not killed');
      };

      const apiLoop = async (): Promise<void> => {
        let seen = 0;
        let previous: FaultRecord | null = null;
        for (let i = 0; i < 6; i++) {
          const p = start('services/api/src/main.ts', apiEnv);
          await waitForOutput(p, /Explorer API: /);
          // A store busy with the backfill may take longer than a request's time budget: a 503
          // then is the API keeping its promise, and a later request gets through.
          const body = await waitFor(
            'the restarted API to answer',
            async () => {
              const { status, body } = await getJson<{ localBlock: number }>(`http://127.0.0.1:${apiPort}/api/chain`);
              expect([200, 503]).toContain(status);
              return status === 200 ? body : undefined;
            },
            60_000,
            100,
          );
          expect(body.localBlock).toBeGreaterThanOrEqual(seen); // never behind what it served before
          seen = body.localBlock;
          if (previous) previous.resumed = `serving again, head ${seen}`;
          await new Promise((r) => setTimeout(r, rng.int(200, 3000)));
          await p.kill('SIGKILL');
          previous = { target: 'api', fault: 'SIGKILL at a random moment', at: `served head ${seen}`, resumed: '' };
          faults.push(previous);
        }
      };

      // First, the holder of the block partition, SIGKILLed while a second projector waits in the
      // group: the survivor must take the partition over at the committed offset. Both projectors
      // join before the follower publishes anything, so the first block batch goes to a holder of
      // a settled group, and the follower stops soon after the kill: what is left of the backfill
      // is for the loops below.
      const holderPhase = async (): Promise<void> => {
        const pair = [
          start('services/projector/src/main.ts', { LOG_LEVEL: 'debug' }),
          start('services/projector/src/main.ts', { LOG_LEVEL: 'debug' }),
        ] as const;
        await Promise.all(pair.map((p) => waitForOutput(p, /projector started/)));
        // Let the group settle (a member rejoins on its next heartbeat).
        await new Promise((r) => setTimeout(r, 8000));
        const follower = start('services/follower/src/main.ts', { LOG_LEVEL: 'debug' });
        const holder = await waitFor(
          'the first block batch',
          async () => pair.find((p) => logLines(p, 'projected blocks').length > 0),
          120_000,
          20,
        );
        const survivor = holder === pair[0] ? pair[1] : pair[0];
        const mark = survivor.output().length;
        await holder.kill('SIGKILL');
        await follower.kill('SIGTERM');
        const head = await storeHead();
        const committed = await committedChainOffset();
        expect(head, 'killed mid-backfill').toBeLessThan(height);
        const line = await loggedLine(survivor, 'block topic resumed', mark);
        expect(line['offset'], 'the survivor resumed at the committed offset').toBe(String(committed));
        faults.push({
          target: 'projector',
          fault: 'SIGKILL of the block partition holder (second projector in the group)',
          at: `head ${head}, committed offset ${committed}`,
          resumed: `survivor at offset ${String(line['offset'])}`,
        });
        await survivor.kill('SIGTERM');
      };
      await holderPhase();

      await Promise.all([followerLoop(), projectorLoop(), apiLoop()]);
      const api = start('services/api/src/main.ts', apiEnv);
      await waitForOutput(api, /Explorer API: /);

      await waitFor(
        'the store to reach the node head',
        async () => ((await storeHead()) === height ? true : undefined),
        300_000,
        250,
      );
      await waitFor(
        'the group to commit everything',
        async () => (totalLag(await projectorLag(log, topics, group)) === 0 ? true : undefined),
        120_000,
        250,
      );
      expect(faults.filter((f) => f.target === 'follower').length).toBeGreaterThanOrEqual(6);
      expect(faults.filter((f) => f.target === 'projector').length).toBeGreaterThanOrEqual(6);
      expect(faults.filter((f) => f.target === 'api').length).toBeGreaterThanOrEqual(6);
    }, 900_000);

    it('holds every block in the log exactly once, and republishes state and activity only after a kill', async () => {
      const read = async (topic: string): Promise<LogRecord[]> => {
        const records: LogRecord[] = [];
        const lags = await log.lag(topic, `${group}-audit`);
        const total = lags.reduce((s, l) => s + l.lag, 0);
        const sub = await log.consume({ topic, group: `${group}-audit` }, async (batch) => void records.push(...batch));
        await waitFor(`all of ${topic}`, async () => (records.length >= total ? true : undefined), 120_000, 100);
        await sub.stop();
        return records;
      };
      const heights = (await read(topics.blocks)).map((r) => BlockEvent.parse(r.value).height);
      expect(heights).toEqual(Array.from({ length: devnet.height() }, (_, i) => i + 1));
      for (const topic of [topics.state, topics.activity]) {
        const seen = new Map<string, number>();
        const duplicated: { eventId: string; height: number }[] = [];
        for (const r of await read(topic)) {
          const { eventId, height } = r.value as { eventId: string; height: number };
          if (seen.has(eventId)) duplicated.push({ eventId, height });
          seen.set(eventId, height);
        }
        // A kill between a batch's state and its checkpoint republishes that batch, nothing else.
        const explained = (h: number) => followerCheckpoints.some((c) => h > c && h <= c + BATCH);
        expect(duplicated.filter((d) => !explained(d.height))).toEqual([]);
        console.log(`[${TEST}] ${topic}: ${seen.size} events, ${duplicated.length} republished after a kill`);
      }
    }, 300_000);

    it('ends with the read models of an uninterrupted run, and today-so-far counted once', async () => {
      const faulted = await settledDump(store, devnet.height(), 'the faulted run');
      const embedded = createSqliteReadStore({ path: join(referenceDir, 'read-models.sqlite') });
      try {
        const uninterrupted = await settledDump(embedded, devnet.height(), 'the uninterrupted run');
        console.log(
          `[${TEST}] read models: faulted run sha256 ${faulted.sha256}, uninterrupted run sha256 ${uninterrupted.sha256}`,
        );
        expect(faulted).toEqual(uninterrupted);
      } finally {
        await embedded.close();
      }
      const api = start('services/api/src/main.ts', { PORT: '0', CLOCK_NOW_UNIX: String(clock), LOG_LEVEL: 'warn' });
      const url = (await waitForOutput(api, /Explorer API: (http:\/\/\S+)\/api\/chain/))[1]!;
      const want = expectedTxStats(devnet, clock, 0);
      expect(want.todaySoFar).toBeGreaterThan(0);
      expect((await getJson(`${url}/api/tx-stats`)).body).toMatchObject(want);
    }, 400_000);
  },
);
