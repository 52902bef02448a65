import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDevnet,
  FAULT_KINDS,
  startDevnetServer,
  type Devnet,
  type DevnetServer,
  type FaultKind,
} from '@mtc/devnet';
import type { ReadModelDump } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/explorer-process.ts';
import type { ServiceProcess } from '../support/service-process.ts';
import { unwrittenJobTypes } from './support/chaos.ts';
import {
  metric,
  readyz,
  scrape,
  spawnFollower,
  spawnProjector,
  watchPipeline,
  type FollowerProcess,
  type Sample,
} from './support/follower-pipeline.ts';

/**
 * Node faults: the follower and a projector, each its own process on the embedded adapters, index a
 * chain that covers every job family through a devnet that fails a fifth of the node requests with
 * every kind it knows — the node's own transient answers (`GET /block` → 0, a listed transaction
 * 404, a block under the head 404 for a while) and a proxy's or the network's (500, 502, no answer,
 * a slow body, JSON cut short, a reset connection). The read models must hash the same as those of
 * a run against the same chain served without faults. Then a block under the head goes missing
 * for longer than the stall limit while the chain moves on: the stall is logged and counted, the
 * follower is not ready while its lag is over READY_MAX_LAG, and all is well again, without a
 * restart, once the block is back.
 */

/** Share of node requests that fail. */
const RATE = 0.2;
/** The follower's deadline per request: the devnet's `timeout` holds an answer twice as long, its slow bodies come well within. */
const NODE_TIMEOUT_MS = 1_500;
/** Every retry reason the faults must show in the follower's /metrics (`slow-body` is slow, not failed). */
const REASONS_OF: Record<Exclude<FaultKind, 'slow-body'>, string> = {
  'height-zero': 'head_regressed',
  'tx-not-found': 'tx_missing',
  'block-missing': 'block_missing',
  'proxy-500': 'http_500',
  'proxy-502': 'http_502',
  timeout: 'timeout',
  'truncated-json': 'truncated',
  reset: 'network',
};

describe('node faults (follower and projector processes on the embedded adapters)', () => {
  const dirs: string[] = [];
  const servers: DevnetServer[] = [];
  const processes: ServiceProcess[] = [];

  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'mtc-node-faults-'));
    dirs.push(dir);
    return dir;
  };
  const serve = async (devnet: Devnet, options: Parameters<typeof startDevnetServer>[1]): Promise<DevnetServer> => {
    const server = await startDevnetServer(devnet, options);
    servers.push(server);
    return server;
  };
  const follow = async (env: Record<string, string>): Promise<FollowerProcess> => {
    const follower = await spawnFollower(env);
    processes.push(follower);
    return follower;
  };
  /**
   * Polls `check` until it returns a value, like `waitFor`, but fails at once, with its output, if
   * one of `services` exits meanwhile: a crashed follower must not pass for a slow one.
   */
  const until = async <T>(
    what: string,
    services: ServiceProcess[],
    check: () => Promise<T | undefined>,
    timeoutMs = 60_000,
    everyMs = 100,
  ): Promise<T> => {
    let died: ServiceProcess | undefined;
    const value = await waitFor(
      what,
      async () => {
        died = services.find((s) => s.child.exitCode !== null || s.child.signalCode !== null);
        return died ? null : check();
      },
      timeoutMs,
      everyMs,
    );
    if (died) throw new Error(`a service exited while waiting for ${what}:\n${died.output().slice(-4000)}`);
    return value as T;
  };

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await Promise.all(servers.map((s) => s.close()));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  describe('a fifth of the requests failing, every kind', () => {
    let devnet: Devnet;
    let healthy: DevnetServer;
    let faulty: DevnetServer;

    beforeAll(async () => {
      // Pinned, in time too: the same chain, so the same hash, in every run. Its last job family
      // first shows at block 704 (the first test keeps that true).
      devnet = createDevnet({ seed: 777, genesisTime: 1_760_000_000, historyBlocks: 900, blockIntervalSec: 150 });
      healthy = await serve(devnet, { port: 0 });
      faulty = await serve(devnet, {
        port: 0,
        faultRate: RATE,
        faultKinds: [...FAULT_KINDS],
        faultSeed: 2024,
        faultTimeoutMs: 2 * NODE_TIMEOUT_MS,
        faultSlowBodyMs: 400,
        faultBlockMissingMs: 1_000,
      });
    }, 60_000);

    /**
     * Indexes the whole chain from `nodeUrl` with a follower and a projector process in a fresh data
     * directory; resolves once the log holds every block, the projector has committed all of it and
     * the follower's metrics are `settled`.
     */
    const indexThrough = async (
      nodeUrl: string,
      settled: (metrics: Sample[]) => boolean = () => true,
    ): Promise<{ dump: ReadModelDump; metrics: Sample[]; seconds: number }> => {
      const started = Date.now();
      const dir = await tempDir();
      const follower = await follow({
        CHAIN_NODE_URL: nodeUrl,
        DATA_DIR: dir,
        FOLLOWER_NODE_TIMEOUT_MS: String(NODE_TIMEOUT_MS),
      });
      const projector = spawnProjector({ DATA_DIR: dir });
      processes.push(projector);
      const pipeline = await watchPipeline(dir);
      try {
        const height = devnet.height();
        const metrics = await until(
          `the read models to hold all ${height} blocks`,
          [follower, projector],
          async () => {
            const p = await pipeline.progress();
            if (p.published !== height || p.lag !== 0 || p.head !== height) return undefined;
            const samples = await scrape(follower.opsUrl);
            return settled(samples) ? samples : undefined;
          },
          200_000,
          250,
        );
        return { dump: await pipeline.dump(), metrics, seconds: Math.round((Date.now() - started) / 1000) };
      } finally {
        await pipeline.close();
        await Promise.all([follower.kill('SIGTERM'), projector.kill('SIGTERM')]);
      }
    };

    it('has a history that covers every job family', () => {
      expect(unwrittenJobTypes(devnet)).toEqual([]);
    });

    it('builds the read models of an uninterrupted run, through every fault, and says so in /metrics', async () => {
      // The two runs read the same chain at once: a faulty run mostly waits (deadlines, backoff).
      // A backfill asks for the head once a batch, so the head's own fault (`0`) may not have come up
      // by its end; the follower then polls the head at the tip, where it comes up within seconds.
      const everyReason = (metrics: Sample[]): boolean =>
        Object.values(REASONS_OF).every(
          (reason) => (metric(metrics, 'mtc_follower_retries_total', { reason }) ?? 0) > 0,
        );
      const [clean, hurt] = await Promise.all([indexThrough(healthy.url), indexThrough(faulty.url, everyReason)]);

      const injected = faulty.faultCounts();
      const retries: Record<string, number> = {};
      for (const s of hurt.metrics) if (s.name === 'mtc_follower_retries_total') retries[s.labels['reason']!] = s.value;
      console.log(
        `node faults injected at ${RATE * 100} % of requests: ${JSON.stringify(injected)}\n` +
          `follower retries by reason: ${JSON.stringify(retries)}\n` +
          `read models sha256: uninterrupted ${clean.dump.sha256} (${clean.seconds} s), ` +
          `through faults ${hurt.dump.sha256} (${hurt.seconds} s)`,
      );

      for (const kind of FAULT_KINDS) expect(injected[kind], kind).toBeGreaterThan(0);
      expect(Object.values(healthy.faultCounts()).every((n) => n === 0)).toBe(true);
      for (const [kind, reason] of Object.entries(REASONS_OF))
        expect(metric(hurt.metrics, 'mtc_follower_retries_total', { reason }), `${reason} (${kind})`).toBeGreaterThan(
          0,
        );

      expect(clean.dump.counts['blocks']).toBe(devnet.height());
      expect(hurt.dump).toEqual(clean.dump);
    }, 240_000);
  });

  it('logs and counts a stall while a block under the head stays missing, is not ready while the lag is over READY_MAX_LAG, and recovers by itself', async () => {
    const devnet = createDevnet({
      seed: 31,
      genesisTime: Math.floor(Date.now() / 1000) - 40 * 10,
      historyBlocks: 40,
      blockIntervalSec: 10,
    });
    const node = await serve(devnet, { port: 0 });
    const follower = await follow({
      CHAIN_NODE_URL: node.url,
      DATA_DIR: await tempDir(),
      FOLLOWER_STALL_AFTER_MS: '2000',
      READY_MAX_LAG: '5',
    });
    const { opsUrl } = follower;
    const metrics = (): Promise<Sample[]> => scrape(opsUrl);

    await until('the follower to catch up', [follower], async () =>
      (await readyz(opsUrl)).status === 200 ? true : undefined,
    );
    expect(metric(await metrics(), 'mtc_follower_published_height')).toBe(40);

    // Block 41 goes missing as soon as it is cut; the chain moves on to 51 meanwhile.
    const missing = devnet.height() + 1;
    node.hideBlock(missing);
    devnet.cutBlock();
    await until('the follower to ask for the missing block', [follower], async () =>
      node.faultCounts()['block-missing'] > 0 ? true : undefined,
    );
    for (let i = 0; i < 10; i++) devnet.cutBlock();
    const head = devnet.height();

    await until('the stall to be counted', [follower], async () =>
      metric(await metrics(), 'mtc_follower_stalls_total') === 1 ? true : undefined,
    );
    const stalledAt = await metrics();
    expect(metric(stalledAt, 'mtc_follower_stalled')).toBe(1);
    expect(metric(stalledAt, 'mtc_follower_retries_total', { reason: 'block_missing' })).toBeGreaterThan(0);
    expect(follower.output()).toMatch(/"published":40,"head":\d+,"idleMs":\d+,"msg":"follower stalled/);

    const red = await until('/readyz to fail on the lag', [follower], async () => {
      const r = await readyz(opsUrl);
      return r.status === 503 && r.body['head'] === head ? r : undefined;
    });
    expect(red.body).toMatchObject({ published: 40, head, lag: head - 40, stalled: true });
    expect(red.body['reason']).toMatch(new RegExp(`lag of ${head - 40} blocks is over READY_MAX_LAG \\(5\\)`));
    expect(metric(await metrics(), 'mtc_follower_lag_blocks')).toBe(head - 40);

    node.revealBlock(missing);
    await until('/readyz to pass again, every block published', [follower], async () =>
      (await readyz(opsUrl)).status === 200 && metric(await metrics(), 'mtc_follower_published_height') === head
        ? true
        : undefined,
    );
    const after = await metrics();
    expect(metric(after, 'mtc_follower_stalled')).toBe(0);
    expect(metric(after, 'mtc_follower_stalls_total')).toBe(1);
    expect(follower.output()).toContain('follower progressing again');
    // The same process all along.
    expect(follower.output().match(/"msg":"follower started"/g)).toHaveLength(1);
  }, 120_000);
});
