import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMongoReadStore } from '@mtc/adapters';
import { describeWithInfra } from '@mtc/adapters/contract';
import { openDevnet, startDevnetServer, type DevnetClock } from '@mtc/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient, type SseEvent } from '../../services/api/src/routes/stream/sse-client.ts';
import { spawnExplorer } from '../support/explorer-process.ts';
import { spawnService, waitForOutput, type ServiceProcess } from '../support/service-process.ts';

/**
 * The live stream across an API restart, in both modes, on a devnet that keeps cutting blocks: a
 * client follows /api/stream from block 1, the API is killed, and the client comes back with the
 * last event id it saw to a new API process. Together the two sessions must hold every block once,
 * in order, with the devnet's hashes, and every transaction of those blocks once.
 */

const HISTORY = 40;
/** A live block this often, so that blocks are cut while the API is down. */
const LIVE_MS = 300;

interface Followed {
  events: SseEvent[];
}

/** Follows the stream until it holds block `height`, or the connection ends. */
async function follow(url: string, lastEventId: string | null, into: Followed): Promise<SseClient> {
  const client = await openSse(`${url}/api/stream`, lastEventId === null ? {} : { 'Last-Event-ID': lastEventId });
  expect(client.status).toBe(200);
  // The events land in `into` as they come: the client's own list is this session's.
  client.events = into.events;
  return client;
}

const blocksIn = (events: readonly SseEvent[]) =>
  events.filter((e) => e.event === 'block').map((e) => e.data as { height: number; hash: string; txCount: number });

/** Every block 1…n once, in order, with the devnet's hash; every transaction of them once, in order. */
function expectWholeChain(events: readonly SseEvent[], clock: DevnetClock): void {
  const blocks = blocksIn(events);
  expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: blocks.length }, (_, i) => i + 1));
  for (const b of blocks) expect(b.hash).toBe(clock.devnet.block(b.height)!.id);
  const txs = events.filter((e) => e.event === 'tx').map((e) => (e.data as { id: string }).id);
  const expected = blocks.flatMap((b) => clock.devnet.block(b.height)!.transaction.map((t) => t.id));
  expect(txs).toEqual(expected);
  const ids = events.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
}

async function liveDevnet(dir: string): Promise<{ clock: DevnetClock; url: string; stop(): Promise<void> }> {
  const clock = await openDevnet(
    join(dir, 'devnet.json'),
    { seed: 11, historyBlocks: HISTORY, historyDays: 0.02, liveIntervalMs: LIVE_MS },
    Date.now(),
  );
  const server = await startDevnetServer(clock.devnet, { port: 0 });
  const stopLive = clock.startLive();
  return {
    clock,
    url: server.url,
    async stop() {
      stopLive();
      await server.close();
      clock.devnet.close();
    },
  };
}

/**
 * Follows from block 1 past the history, restarts the API with `restart`, resumes with the last id
 * seen, and follows until blocks cut during the restart and after it have arrived.
 */
async function acrossRestart(
  clock: DevnetClock,
  startApi: () => Promise<{ url: string; stop(): Promise<void> }>,
): Promise<SseEvent[]> {
  const followed: Followed = { events: [] };
  let api = await startApi();
  const first = await follow(api.url, '0', followed);
  await first.until((events) => blocksIn(events).some((b) => b.height > HISTORY + 3), 240_000);
  await api.stop();
  await first.ended;
  const lastSeen = followed.events.at(-1)!.id;
  const heightAtStop = clock.devnet.height();
  api = await startApi();
  const second = await follow(api.url, lastSeen, followed);
  // Blocks cut while the API was down, and a few after it came back.
  const target = Math.max(heightAtStop, clock.devnet.height()) + 3;
  await second.until((events) => blocksIn(events).some((b) => b.height >= target), 240_000);
  second.close();
  await api.stop();
  expect(clock.devnet.height()).toBeGreaterThan(heightAtStop); // the chain moved during the test
  return followed.events;
}

describe('live stream across an API restart (embedded: the all-in-one explorer)', () => {
  let dir = '';
  let devnet: Awaited<ReturnType<typeof liveDevnet>>;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtc-stream-embedded-'));
    devnet = await liveDevnet(dir);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await devnet?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('delivers every block once, in order, with the devnet hashes, resuming with Last-Event-ID', async () => {
    const events = await acrossRestart(devnet.clock, async () => {
      const explorer = await spawnExplorer({
        CHAIN_NODE_URL: devnet.url,
        DATA_DIR: join(dir, 'data'),
        LOG_LEVEL: 'warn',
        STREAM_HEARTBEAT_MS: '1000',
      });
      processes.push(explorer);
      // SIGKILL: the harshest restart; the log and the read models carry over in DATA_DIR.
      return { url: explorer.apiUrl, stop: () => explorer.kill('SIGKILL') };
    });
    expectWholeChain(events, devnet.clock);
  }, 300_000);
});

/** See distributed.e2e.test.ts: the MongoDB stand-in answers some reads slowly. */
const STAND_IN_BUDGETS = { API_REQUEST_TIMEOUT_MS: '30000', STORE_READ_TIMEOUT_MS: '30000' };

describeWithInfra(
  'live stream across an API restart (distributed: follower, projector and API processes)',
  ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'],
  (infra) => {
    const run = randomBytes(4).toString('hex');
    const env = {
      ...infra,
      ...STAND_IN_BUDGETS,
      TOPIC_PREFIX: `stream-${run}.`,
      MONGO_DATABASE: `stream_${run}`,
      REDIS_PREFIX: `stream:${run}:`,
      PROJECTOR_GROUP: `stream-${run}`,
      OPS_PORT: '0',
      LOG_LEVEL: 'warn',
    };
    let dir = '';
    let devnet: Awaited<ReturnType<typeof liveDevnet>>;
    const processes: ServiceProcess[] = [];
    const start = (main: string, more: Record<string, string> = {}): ServiceProcess => {
      const p = spawnService(main, { ...env, CHAIN_NODE_URL: devnet.url, ...more });
      processes.push(p);
      return p;
    };

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'mtc-stream-distributed-'));
      devnet = await liveDevnet(dir);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill('SIGTERM')));
      const store = await createMongoReadStore({ url: infra.MONGO_URL, database: env.MONGO_DATABASE });
      await store.drop();
      await store.close();
      await devnet?.stop();
      await rm(dir, { recursive: true, force: true });
    }, 60_000);

    it('delivers every block once, in order, with the devnet hashes, from a restarted API', async () => {
      const migrate = start('services/projector/src/migrate.ts');
      expect(await migrate.exited).toBe(0);
      start('services/follower/src/main.ts');
      start('services/projector/src/main.ts');
      const events = await acrossRestart(devnet.clock, async () => {
        const api = start('services/api/src/main.ts', { PORT: '0', STREAM_HEARTBEAT_MS: '1000' });
        const url = (await waitForOutput(api, /Explorer API: (http:\/\/\S+)\/api\/chain/))[1]!;
        // Only the API restarts; the follower and the projector go on.
        return { url, stop: () => api.kill('SIGKILL') };
      });
      expectWholeChain(events, devnet.clock);
    }, 420_000);
  },
);
