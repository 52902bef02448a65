import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AdapterConfigSchema } from '@mtc/adapters';
import { ConfigError, parseConfig, readEnvFile } from '@mtc/runtime';

/**
 * `npm run start:distributed`: the services as separate processes against Kafka, MongoDB and
 * Redis (KAFKA_BROKERS, MONGO_URL, REDIS_URL; taken from .infra/env when unset, as written by
 * `npm run infra:up`). A devnet node is started unless CHAIN_NODE_URL is set. A process that dies
 * is restarted after a second, as a supervisor would: each resumes from its committed position.
 * Ctrl-C stops them all.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const env: Record<string, string | undefined> = {
  ...readEnvFile(fileURLToPath(new URL('../.infra/env', import.meta.url))),
  ...process.env,
};
for (const key of ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL']) {
  if (!env[key]) {
    console.error(`start:distributed: ${key} is not set (run npm run infra:up, or set it)`);
    process.exit(1);
  }
}
// The servers' settings (Kafka's SASL and TLS files among them) are checked once here, as every
// service will check them: a bad one stops the start instead of restarting each service for ever.
try {
  parseConfig(AdapterConfigSchema, env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`start:distributed: ${error.message}`);
  process.exit(1);
}
const projectors = Number(env['PROJECTORS'] ?? '2');
if (!Number.isInteger(projectors) || projectors < 1 || projectors > 16) {
  console.error('start:distributed: PROJECTORS must be an integer from 1 to 16');
  process.exit(1);
}
const apis = Number(env['API_PROCESSES'] ?? '1');
if (!Number.isInteger(apis) || apis < 1 || apis > 16) {
  console.error('start:distributed: API_PROCESSES must be an integer from 1 to 16');
  process.exit(1);
}
const dataDir = env['DATA_DIR'] ?? './data/distributed';
const nodeUrl = env['CHAIN_NODE_URL'] ?? `http://127.0.0.1:${env['DEVNET_PORT'] ?? '20922'}`;
// The devnet started here serves its NFTs' images on loopback: the API may fetch them (and only them).
const imageHosts =
  env['NFT_IMAGE_ALLOW_HOSTS'] ??
  (env['CHAIN_NODE_URL'] ? undefined : new URL(env['DEVNET_IMAGE_ORIGIN'] ?? nodeUrl).host);

interface Service {
  name: string;
  main: string;
  env: Record<string, string>;
}
const services: Service[] = [
  ...(env['CHAIN_NODE_URL']
    ? []
    : [
        {
          name: 'devnet',
          main: 'services/devnet/src/main.ts',
          env: { DEVNET_HOST: '127.0.0.1', DEVNET_SCHEDULE_FILE: `${dataDir}/devnet.json` },
        },
      ]),
  { name: 'follower', main: 'services/follower/src/main.ts', env: { CHAIN_NODE_URL: nodeUrl, OPS_PORT: '9101' } },
  ...Array.from({ length: projectors }, (_, i) => ({
    name: `projector-${i + 1}`,
    main: 'services/projector/src/main.ts',
    env: { OPS_PORT: String(9102 + i) },
  })),
  // Several API processes share PORT through SO_REUSEPORT; each has its own ops port.
  ...Array.from({ length: apis }, (_, i) => ({
    name: apis === 1 ? 'api' : `api-${i + 1}`,
    main: 'services/api/src/main.ts',
    env: {
      CHAIN_NODE_URL: nodeUrl,
      OPS_PORT: String(9120 + i),
      API_REUSE_PORT: apis > 1 ? 'true' : 'false',
      ...(imageHosts === undefined ? {} : { NFT_IMAGE_ALLOW_HOSTS: imageHosts }),
    },
  })),
];

const running = new Map<string, ChildProcess>();
let stopping = false;

function start(service: Service): void {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--disable-warning=TimeoutNegativeWarning', service.main],
    {
      cwd: root,
      env: { ...env, ...service.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.set(service.name, child);
  const prefix = `${service.name.padEnd(12)}|`;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) console.log(`${prefix} ${line}`);
    });
  }
  child.once('exit', (code, signal) => {
    running.delete(service.name);
    if (stopping) return;
    console.log(`${prefix} exited (${signal ?? code}); restarting in 1 s`);
    setTimeout(() => start(service), 1000);
  });
}

function stopAll(): void {
  if (stopping) return;
  stopping = true;
  for (const child of running.values()) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const child of running.values()) child.kill('SIGKILL');
  }, 15_000);
  const wait = setInterval(() => {
    if (running.size === 0) {
      clearInterval(wait);
      clearTimeout(deadline);
      process.exit(0);
    }
  }, 100);
}

process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
// Collections and indexes first, once: then the projectors start without racing DDL.
const migrate = spawn(
  process.execPath,
  ['--disable-warning=ExperimentalWarning', 'services/projector/src/migrate.ts'],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);
const migrated = await new Promise<number | null>((resolve) => migrate.once('exit', resolve));
if (migrated !== 0) {
  console.error('start:distributed: migrate failed');
  process.exit(1);
}
for (const service of services) start(service);
console.log(
  `started ${services.map((s) => s.name).join(', ')}; API on http://127.0.0.1:${env['PORT'] ?? '3000'}/api/chain`,
);
