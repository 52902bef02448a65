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
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import type { EventLog, ReadStore } from '@mtc/ports';
import { projectorLag, totalLag } from '@mtc/projector';
import { dumpReadModels, openModels } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import { expectedTxStats } from '../support/ground-truth.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { startPrivateServers, type PrivateServers } from '../support/private-servers.ts';
import { spawnService, waitForOutput, type ServiceProcess } from '../support/service-process.ts';
import {
  logLines,
  pollUntil,
  printFaults,
  unwrittenJobTypes,
  type FaultRecord,
  type LogLine,
} from './support/chaos.ts';

/**
 * The servers restarted under a running distributed deployment: during one backfill of a history
 * that covers every job family (the follower, two projectors in one group and the API as separate
 * processes, the chain growing by a block every two seconds meanwhile), the Kafka broker is stopped
 * and started, the MongoDB stand-in is killed and started, the broker is SIGKILLed and started,
 * Redis is flushed (FLUSHALL) in the middle of a block batch, and Redis is stopped and started. Each
 * time the services must notice, wait, and move on by themselves: none of them is ever restarted,
 * and none may exit.
 * At the end the read models must equal an uninterrupted run of the same chain (the embedded mode)
 * by their canonical hash, and the today-so-far figures (Redis, which lost them twice) must be the
 * chain's.
 *
 * The servers are a private instance (infra/instance.sh): the shared ones serve other tests and
 * developers at the same time and must never be restarted. The MongoDB stand-in is FerretDB in
 * front of its own PostgreSQL: FerretDB keeps no state, so restarting it is the stand-in's restart.
 */

const TEST = 'infra restarts';
const HISTORY_BLOCKS = 1_200;
/** Generous: each wait is for a process to notice or get past an outage, not a timing target. */
const NOTICE_MS = 120_000;
const MOVE_ON_MS = 240_000;
/** The chain grows by a block this often while the servers go down and up. */
const LIVE_BLOCK_MS = 2_000;

describe(`Kafka, the MongoDB stand-in and Redis restarted mid-run (${TEST})`, () => {
  const run = randomBytes(4).toString('hex');
  const group = `restarts-${run}`;
  let servers: PrivateServers;
  let base: Record<string, string>;
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let live: NodeJS.Timeout | undefined;
  let log: EventLog;
  let store: ReadStore;
  let reference: ExplorerProcess;
  let referenceDir = '';
  let clock = 0;
  let apiUrl = '';
  /** The projectors' height when Redis was flushed. */
  let flushedAt = 0;
  /** Set when the run got through every fault: otherwise the servers' logs are printed. */
  let survived = false;
  const services = new Map<string, ServiceProcess>();
  const faults: FaultRecord[] = [];

  const start = (name: string, main: string, env: Record<string, string>): ServiceProcess => {
    const p = spawnService(main, { ...base, CHAIN_NODE_URL: node.url, ...env });
    services.set(name, p);
    return p;
  };
  const service = (name: string): ServiceProcess => services.get(name)!;
  /** Every service is still the process started at the beginning: none exited, none was restarted. */
  const expectAllRunning = (): void => {
    for (const [name, p] of services) {
      if (name === 'migrate') continue;
      if (p.child.exitCode !== null || p.child.signalCode !== null)
        throw new Error(`${name} exited (${p.child.exitCode ?? p.child.signalCode}):\n${p.output().slice(-6000)}`);
    }
  };
  /** What each service logged last (above debug), for a failure's message. */
  const recentLogs = (): string =>
    [...services]
      .filter(([name]) => name !== 'migrate')
      .map(([name, p]) => {
        const lines = p
          .output()
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('{"level":20'));
        return `--- ${name}:\n${lines
          .slice(-12)
          .map((l) => l.slice(0, 600))
          .join('\n')}`;
      })
      .join('\n');
  /** Polls `check` until it returns a value; fails at once when a service exits, else after `timeoutMs`. */
  const until = <T>(
    what: string,
    check: () => Promise<T | undefined> | T | undefined,
    timeoutMs: number,
    everyMs = 250,
  ): Promise<T> => pollUntil(what, check, { timeoutMs, everyMs, alive: expectAllRunning, context: recentLogs });
  const projectors = (): ServiceProcess[] => [service('projector-1'), service('projector-2')];
  const maxOf = (lines: LogLine[], field: string): number => Math.max(0, ...lines.map((l) => Number(l[field])));
  const published = (): number => maxOf(logLines(service('follower'), 'published blocks'), 'to');
  const projected = (): number =>
    Math.max(...projectors().map((p) => maxOf(logLines(p, 'projected blocks'), 'height')));
  const served = async (): Promise<number> => {
    const { status, body } = await getJson<{ localBlock: number }>(`${apiUrl}/api/chain`);
    if (status !== 200) throw new Error(`/api/chain answered ${status}`);
    return body.localBlock;
  };
  /** Output offsets of every service now, so that later checks read only what came after. */
  const marks = (): Map<string, number> => new Map([...services].map(([n, p]) => [n, p.output().length]));
  /** Log lines logged after `since` by the services named, with `msg` if given (and matching `where`). */
  const loggedSince = (
    since: Map<string, number>,
    names: readonly string[],
    msg: string | undefined,
    where: (line: LogLine) => boolean = () => true,
  ): { name: string; line: LogLine }[] =>
    names.flatMap((name) =>
      logLines(service(name), msg, since.get(name) ?? 0)
        .filter(where)
        .map((line) => ({ name, line })),
    );
  /** kafkajs's own warnings and errors (a broker gone), as a service logs them. */
  const kafkaTrouble = (line: LogLine): boolean => line['component'] === 'kafkajs' && Number(line['level']) >= 40;

  /**
   * One fault: `down` takes a server down, `noticed` says (from the services' logs since then) that
   * they met it, then `up` brings it back; the services must then all move past where they stood
   * by themselves: the follower publishes, the projectors project, and the API serves a newer head.
   */
  const inject = async (
    target: string,
    fault: string,
    down: () => Promise<void>,
    noticed: (since: Map<string, number>) => string | undefined,
    up: () => Promise<void> = async () => {},
  ): Promise<void> => {
    expectAllRunning();
    const at = { published: published(), projected: projected() };
    const since = marks();
    const t0 = Date.now();
    await down();
    let how: string;
    try {
      how = await until(`the services to notice: ${fault}`, () => noticed(since), NOTICE_MS, 100);
    } finally {
      await up();
    }
    const noticedAfter = (Date.now() - t0) / 1000;
    const upAt = Date.now();
    const restarted = { published: published(), projected: projected(), served: await served().catch(() => 0) };
    const moved = await until(
      `the services to move on by themselves after: ${fault}`,
      async () => {
        const now = { published: published(), projected: projected(), served: await served() };
        return now.published > restarted.published &&
          now.projected > restarted.projected &&
          now.served > restarted.served
          ? now
          : undefined;
      },
      MOVE_ON_MS,
    );
    const record = {
      target,
      fault,
      at: `published ${at.published}, projected ${at.projected}`,
      resumed:
        `noticed within ${noticedAfter.toFixed(1)} s (${how}); ` +
        `${((Date.now() - upAt) / 1000).toFixed(1)} s after the server was back: published ${moved.published}, ` +
        `projected ${moved.projected}, API head ${moved.served}`,
    };
    faults.push(record);
    console.log(`[${TEST}] ${record.target}: ${record.fault} at ${record.at}; ${record.resumed}`);
  };
  /** The first line of `names` since the marks (with `msg`, matching `where`), described for the record. */
  const first = (
    since: Map<string, number>,
    names: readonly string[],
    msg: string | undefined,
    where?: (line: LogLine) => boolean,
  ): string | undefined => {
    const hit = loggedSince(since, names, msg, where)[0];
    if (!hit) return undefined;
    const err = hit.line['err'] as { type?: string; message?: string } | undefined;
    const cause = err ? ` (${err.type ?? 'error'}: ${String(err.message).slice(0, 100)})` : '';
    return `${hit.name} logged "${String(hit.line.msg).slice(0, 100)}"${cause}`;
  };

  beforeAll(async () => {
    const now = Math.floor(Date.now() / 1000);
    devnet = recentDevnet(1010, HISTORY_BLOCKS);
    // Inside the history's last day, and after every block the run will cut.
    clock = now + 1_200;
    node = await startDevnetServer(devnet, { port: 0 });
    servers = await startPrivateServers('restarts');
    base = {
      ...servers.env,
      TOPIC_PREFIX: `restarts-${run}.`,
      MONGO_DATABASE: `restarts_${run}`,
      REDIS_PREFIX: `restarts:${run}:`,
      PROJECTOR_GROUP: group,
      PROJECTOR_MAX_BATCH: '100',
      FOLLOWER_BATCH_BLOCKS: '50',
      OPS_PORT: '0',
    };
    log = await openEventLog(AdapterConfigSchema.parse(base));
    store = await createMongoReadStore({ url: servers.env.MONGO_URL, database: base['MONGO_DATABASE']! });
    // The uninterrupted run: the embedded mode indexing the same chain, alongside.
    referenceDir = await mkdtemp(join(tmpdir(), 'mtc-restarts-reference-'));
    reference = await spawnExplorer({ CHAIN_NODE_URL: node.url, DATA_DIR: referenceDir });
  }, 180_000);

  afterAll(async () => {
    printFaults(TEST, faults);
    if (servers && !survived)
      for (const service of ['kafka', 'ferretdb', 'postgres', 'redis'] as const)
        console.log(`[${TEST}] ${service} log:\n${await servers.logTail(service, 30)}`);
    clearInterval(live);
    await Promise.all([...services.values()].map((p) => p.kill('SIGTERM')));
    await reference?.kill('SIGTERM');
    await store?.close();
    await log?.close();
    await node?.close();
    await servers?.remove();
    if (referenceDir) await rm(referenceDir, { recursive: true, force: true });
  }, 120_000);

  it('backfills a history that covers every job family', () => {
    expect(unwrittenJobTypes(devnet)).toEqual([]);
  });

  it('recovers by itself from Kafka, MongoDB stand-in and Redis restarts and a FLUSHALL', async () => {
    const migrate = start('migrate', 'services/projector/src/migrate.ts', {});
    expect(await migrate.exited).toBe(0);
    start('follower', 'services/follower/src/main.ts', { LOG_LEVEL: 'debug' });
    start('projector-1', 'services/projector/src/main.ts', { LOG_LEVEL: 'debug' });
    start('projector-2', 'services/projector/src/main.ts', { LOG_LEVEL: 'debug' });
    // The stand-in answers /api/chain's reads with whole-table scans, seconds long on this machine:
    // over the API's own budgets (a 503 each time), which are not what this test is about.
    const api = start('api', 'services/api/src/main.ts', {
      PORT: '0',
      CLOCK_NOW_UNIX: String(clock),
      API_REQUEST_TIMEOUT_MS: '30000',
      STORE_READ_TIMEOUT_MS: '30000',
    });
    apiUrl = (await waitForOutput(api, /Explorer API: (http:\/\/\S+)\/api\/chain/))[1]!;
    // A live chain: the follower has blocks to publish whenever the broker goes away.
    live = setInterval(() => devnet.cutBlock(), LIVE_BLOCK_MS);
    const all = ['follower', 'projector-1', 'projector-2'];
    const projectorNames = ['projector-1', 'projector-2'];
    const reach = (height: number) =>
      until(`the projectors to reach block ${height}`, () => (projected() >= height ? true : undefined), MOVE_ON_MS);

    // The servers of the log and the store early on; the counters' server late, when the buckets
    // hold the history's last day (today so far and yesterday at the same time), so that what it
    // loses shows in those figures unless it is refilled.
    await reach(100);
    await inject(
      'kafka',
      'broker stopped (SIGTERM, controlled shutdown) and started',
      () => servers.stop('kafka'),
      (since) => first(since, all, 'publish failed, retrying') ?? first(since, all, undefined, kafkaTrouble),
      () => servers.start('kafka'),
    );

    await reach(300);
    // SIGKILL: FerretDB stopped by SIGTERM answers the commands it is running with InternalError
    // ("context canceled"), which nobody can tell from a real fault (MongoDB answers those with
    // InterruptedAtShutdown, a retryable code); killed, it drops their connections instead.
    await inject(
      'mongodb',
      'FerretDB (the MongoDB stand-in) SIGKILLed and started',
      () => servers.kill('ferretdb'),
      (since) => first(since, projectorNames, 'write failed, retrying'),
      () => servers.start('ferretdb'),
    );

    await reach(500);
    await inject(
      'kafka',
      'broker SIGKILLed and started',
      () => servers.kill('kafka'),
      (since) => first(since, all, 'publish failed, retrying') ?? first(since, all, undefined, kafkaTrouble),
      () => servers.start('kafka'),
    );

    await reach(HISTORY_BLOCKS - 450);
    await inject(
      'redis',
      'FLUSHALL in the middle of a block batch',
      async () => {
        // Halfway through a batch (as long as the one before it took): between the batch's check of
        // the counters and its counting, where a projector that checked only at the start of a
        // batch would count that batch over the emptied buckets and never refill them.
        const ends = (): number[] =>
          projectorNames
            .flatMap((n) => logLines(service(n), 'projected blocks').map((l) => Number(l['time'])))
            .sort((a, b) => a - b);
        const before = ends().length;
        const [previous, last] = await until(
          'a block batch to end',
          () => (ends().length > before ? ends().slice(-2) : undefined),
          MOVE_ON_MS,
          20,
        );
        await new Promise((r) => setTimeout(r, Math.min(5_000, (last! - (previous ?? last!)) / 2)));
        flushedAt = projected();
        await servers.flushAll();
      },
      (since) => first(since, projectorNames, 'today-so-far counters were empty: restored from the store'),
    );

    await reach(HISTORY_BLOCKS - 200);
    await inject(
      'redis',
      'server stopped and started (no persistence: its counters are gone)',
      () => servers.stop('redis'),
      (since) => first(since, projectorNames, 'write failed, retrying', (l) => l['what'] === 'counters'),
      () => servers.start('redis'),
    );

    // The chain stops growing; everything must get to its head.
    clearInterval(live);
    live = undefined;
    const height = devnet.height();
    await until(
      `the API to serve the node head ${height}`,
      async () => ((await served()) === height ? true : undefined),
      MOVE_ON_MS,
    );
    const topics = topicsOf(AdapterConfigSchema.parse(base));
    await until(
      'the group to commit everything',
      async () => (totalLag(await projectorLag(log, topics, group)) === 0 ? true : undefined),
      MOVE_ON_MS,
    );
    expect((await openModels(store).head.get('indexed'))?.height).toBe(height);
    expectAllRunning();
    expect(faults.map((f) => f.target)).toEqual(['kafka', 'mongodb', 'kafka', 'redis', 'redis']);
    survived = true;
  }, 900_000);

  it('ends with the read models of an uninterrupted run', async () => {
    const faulted = await dumpReadModels(store);
    expect(faulted.counts['blocks']).toBe(devnet.height());
    const embedded = createSqliteReadStore({ path: join(referenceDir, 'read-models.sqlite') });
    try {
      const same = await waitFor(
        'the uninterrupted run to reach the same read models',
        async () => ((await dumpReadModels(embedded)).sha256 === faulted.sha256 ? true : undefined),
        MOVE_ON_MS,
        1000,
      ).catch(() => false);
      const uninterrupted = await dumpReadModels(embedded);
      console.log(
        `[${TEST}] read models: faulted run sha256 ${faulted.sha256}, uninterrupted run sha256 ${uninterrupted.sha256}`,
      );
      if (!same) expect(uninterrupted).toEqual(faulted);
    } finally {
      await embedded.close();
    }
  }, 300_000);

  it('serves the chain’s today-so-far figures after Redis lost them twice', async () => {
    const want = expectedTxStats(devnet, clock, 0);
    expect(want.todaySoFar).toBeGreaterThan(0);
    expect(want.yesterdaySameTime).toBeGreaterThan(0);
    // The FLUSHALL erased buckets these figures read: yesterday's midnight came before that height.
    const yesterday = (Math.floor(clock / 86_400) - 1) * 86_400;
    let firstRead = 1;
    while (devnet.block(firstRead)!.timestamp < yesterday) firstRead++;
    expect(firstRead).toBeLessThan(flushedAt);
    const { body } = await getJson<typeof want>(`${apiUrl}/api/tx-stats`);
    const { todaySoFar, yesterdaySameTime } = body;
    console.log(
      `[${TEST}] today so far: served ${JSON.stringify({ todaySoFar, yesterdaySameTime })}, chain ${JSON.stringify(want)}`,
    );
    expect(body).toMatchObject(want);
    expectAllRunning();
  });
});
