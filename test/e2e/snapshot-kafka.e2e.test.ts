import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterConfigSchema, openEventLog, topicsOf } from '@mtc/adapters';
import { describeWithInfra } from '@mtc/adapters/contract';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { BlockEvent } from '@mtc/domain';
import type { EventLog } from '@mtc/ports';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../support/explorer-process.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';
import { expectSnapshotOfWorldAt, runSnapshot } from '../support/snapshot-checks.ts';

/**
 * `npm run snapshot` on Kafka: the follower publishes the devnet's chain to a random topic prefix
 * on the shared broker (no projector, no store: the snapshot needs only the block topic), and
 * snapshots at the head and at an earlier height equal the devnet's ground truth at that height.
 */
describeWithInfra('snapshot at a past height (distributed: Kafka)', ['KAFKA_BROKERS'], (infra) => {
  const run = randomBytes(4).toString('hex');
  const env = {
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    TOPIC_PREFIX: `snapshot-${run}.`,
    MONGO_URL: undefined,
    REDIS_URL: undefined,
  };
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let follower: ServiceProcess | undefined;
  let log: EventLog;
  let outDir: string;

  beforeAll(async () => {
    devnet = recentDevnet(778, 1_200);
    node = await startDevnetServer(devnet, { port: 0 });
    outDir = await mkdtemp(join(tmpdir(), 'mtc-snapshot-kafka-'));
    log = await openEventLog(
      AdapterConfigSchema.parse({ KAFKA_BROKERS: infra.KAFKA_BROKERS, TOPIC_PREFIX: env.TOPIC_PREFIX }),
    );
  }, 60_000);

  afterAll(async () => {
    await follower?.kill('SIGTERM');
    await log?.close();
    await node?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('publishes the chain to Kafka with the follower', async () => {
    follower = spawnService('services/follower/src/main.ts', {
      ...env,
      CHAIN_NODE_URL: node.url,
      OPS_PORT: '0',
      FOLLOWER_BLOCK_CONCURRENCY: '8',
    });
    const topic = topicsOf(AdapterConfigSchema.parse({ TOPIC_PREFIX: env.TOPIC_PREFIX })).blocks;
    await waitFor(
      'the block topic to reach the node head',
      async () => {
        const last = await log.lastValue(topic);
        return last !== null && BlockEvent.parse(last).height === devnet.height() ? true : undefined;
      },
      300_000,
      250,
    );
  }, 320_000);

  for (const at of ['the head', 'an earlier height'] as const) {
    it(`writes the holders the raw chain gives at ${at}`, async () => {
      const height = at === 'the head' ? devnet.height() : Math.floor(devnet.height() / 3);
      await expectSnapshotOfWorldAt(env, devnet, height, outDir);
    }, 300_000);
  }

  it('refuses a height above the newest block on the topic', async () => {
    const above = await runSnapshot(env, ['--height', String(devnet.height() + 1), '--all-tokens', '--out', outDir]);
    expect(above.code).toBe(1);
    expect(above.stderr.trim()).toBe(
      `snapshot: height ${devnet.height() + 1} is above the log's newest block (${devnet.height()})`,
    );
  }, 120_000);
});
