import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InfraKey } from '@mtc/adapters/contract';
import { readEnvFile } from '@mtc/runtime';
import { chooseTestInfra, serversAnswer } from './test-infra.ts';

/**
 * vitest globalSetup of the tiers that need real servers (`*.int.test.ts`, `test/e2e/`; see
 * vitest.config.ts). With Docker (test-infra.ts decides) it starts Kafka, MongoDB and Redis once
 * for the run and hands their addresses to the test workers, and to the services those spawn,
 * through the environment; otherwise the tests read the local servers from the environment or
 * .infra/env (packages/adapters/src/contract/infra.ts), and when none are named and answering it
 * starts them with infra/up.sh (its progress shown) and stops them with infra/down.sh at teardown,
 * so `npm test` alone runs every tier. Either way it sets TEST_INFRA to the choice made, `docker` or
 * `local`, which infra.ts reads.
 *
 * The containers go at teardown; a run killed before it leaves them to testcontainers' reaper
 * container, which removes them once this process is gone.
 *
 * The Docker path is not run by this repository's CI, which has no Docker engine.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const choice = await chooseTestInfra(process.env);
  process.env['TEST_INFRA'] = choice.infra;
  if (choice.infra === 'local') {
    console.log(`test servers: local, from the environment or .infra/env (${choice.reason})`);
    return startLocalServersIfNone();
  }
  const started = Date.now();
  const servers = await startContainers();
  Object.assign(process.env, servers.env);
  console.log(
    `test servers: containers (${choice.reason}), up in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
      Object.entries(servers.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
  );
  return () => servers.stop();
}

/**
 * Images: the Kafka minor and Redis major of infra/up.sh, MongoDB as docker-compose.yml runs it.
 * Kafka is Confluent's build of Kafka 3.9 because testcontainers' Kafka module drives that image's
 * start script to advertise the port Docker mapped, the address kafkajs is sent back to after its
 * first metadata request.
 */
const TEST_IMAGES = {
  kafka: 'confluentinc/cp-kafka:7.9.0',
  mongo: 'mongo:7',
  redis: 'redis:7',
} as const;

type ContainerKey = Extract<InfraKey, 'KAFKA_BROKERS' | 'MONGO_URL' | 'REDIS_URL'>;

interface Containers {
  env: Record<ContainerKey, string>;
  stop(): Promise<void>;
}

async function startContainers(): Promise<Containers> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const { RedisContainer } = await import('@testcontainers/redis');
  const KAFKA_PORT = 9093; // the module's listener for clients outside Docker

  const kafka = new KafkaContainer(TEST_IMAGES.kafka).withKraft().withEnvironment({
    // As infra/kafka/server.properties and docker-compose.yml: topics exist only as the follower
    // creates them, with their partitions and policies; one broker holds every internal topic.
    KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
  });
  // A standalone server: the read store uses no transactions or change streams, so it needs no
  // replica set (testcontainers' MongoDB module always makes one).
  const mongo = new GenericContainer(TEST_IMAGES.mongo)
    .withExposedPorts(27017)
    .withHealthCheck({
      test: ['CMD', 'mongosh', '--quiet', '--eval', "quit(db.adminCommand('ping').ok ? 0 : 1)"],
      interval: 1_000,
      timeout: 5_000,
      retries: 120,
    })
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(180_000);
  const redis = new RedisContainer(TEST_IMAGES.redis);

  const [k, m, r] = await Promise.allSettled([kafka.start(), mongo.start(), redis.start()]);
  const settled = [k, m, r];
  const stop = async (): Promise<void> => {
    await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop()] : [])));
  };
  if (k.status === 'rejected' || m.status === 'rejected' || r.status === 'rejected') {
    await stop();
    const failed = (['kafka', 'mongo', 'redis'] as const).flatMap((name, i) => {
      const s = settled[i]!;
      return s.status === 'rejected' ? [`${TEST_IMAGES[name]}: ${String(s.reason)}`] : [];
    });
    throw new Error(`test servers: a container did not start (${failed.join('; ')})`);
  }
  return {
    env: {
      KAFKA_BROKERS: `${k.value.getHost()}:${k.value.getMappedPort(KAFKA_PORT)}`,
      MONGO_URL: `mongodb://${m.value.getHost()}:${m.value.getMappedPort(27017)}`,
      REDIS_URL: r.value.getConnectionUrl(),
    },
    stop,
  };
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INFRA_ENV = `${ROOT}.infra/env`;
const SERVER_KEYS = ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL', 'MONGO_FERRETDB_URL'] as const;

/**
 * Local servers for the run: those the environment names, else those .infra/env names when they
 * all answer, else the ones infra/up.sh installs (once) and starts. Returns the teardown that
 * stops what this run started, and nothing when it started nothing.
 */
async function startLocalServersIfNone(): Promise<(() => Promise<void>) | undefined> {
  if (['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'].every((k) => process.env[k])) return undefined;
  const hadEnvFile = existsSync(INFRA_ENV);
  const named = readEnvFile(INFRA_ENV);
  if (hadEnvFile && (await serversAnswer(SERVER_KEYS.map((k) => named[k] ?? '')))) return undefined;
  const started = Date.now();
  console.log('test servers: none answering, starting them with infra/up.sh (installs them the first time)');
  await run('infra/up.sh');
  console.log(`test servers: up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (hadEnvFile) {
    console.log('test servers: some were running before this run, so they are left running after it');
    return undefined;
  }
  return async () => {
    console.log('test servers: stopping what this run started (infra/down.sh)');
    await run('infra/down.sh');
  };
}

/** Runs an infra script with its output shown; asynchronously, so the test pool is served meanwhile. */
async function run(script: string): Promise<void> {
  const child = spawn('bash', [script], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`test servers: bash ${script} failed (exit ${String(code)})`);
}
