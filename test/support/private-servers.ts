import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../infra/instance.sh', import.meta.url));
const INSTANCES = fileURLToPath(new URL('../../.infra/instances/', import.meta.url));

/** The servers of a private instance (infra/instance.sh), each of which a test may stop and start. */
export type PrivateService = 'kafka' | 'ferretdb' | 'postgres' | 'redis';

/**
 * A private Kafka broker, MongoDB stand-in (FerretDB on its own PostgreSQL cluster) and Redis on
 * ports of their own, for tests that take servers down: the shared servers of `npm run infra:up`
 * serve other test files and developers at the same time and must never be restarted.
 */
export interface PrivateServers {
  name: string;
  /** Connection settings, as `.infra/env` has them for the shared servers. */
  env: { KAFKA_BROKERS: string; MONGO_URL: string; REDIS_URL: string };
  /** SIGTERM (Kafka: controlled shutdown), resolved once the process is gone. */
  stop(service: PrivateService): Promise<void>;
  /** SIGKILL, resolved once the process is gone. */
  kill(service: PrivateService): Promise<void>;
  /** Starts it again on the same port and data; resolved once it answers. */
  start(service: PrivateService): Promise<void>;
  /** Redis FLUSHALL. */
  flushAll(): Promise<void>;
  /** The last `lines` lines the server logged (since its last start), for a failure's report. */
  logTail(service: PrivateService, lines?: number): Promise<string>;
  /** Kills every server and deletes the instance's data. */
  remove(): Promise<void>;
}

/**
 * Starts a private instance with `services` (default: all). It belongs to this process: if the
 * process dies without `remove()`, the next call of this function in any process removes it.
 */
export async function startPrivateServers(
  prefix: string,
  services: readonly PrivateService[] = [],
): Promise<PrivateServers> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  const instance = async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await run('bash', [SCRIPT, ...args], {
        env: { ...process.env, INFRA_INSTANCE_OWNER: String(process.pid) },
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(`infra/instance.sh ${args.join(' ')} failed:\n${stderr ?? String(error)}`, { cause: error });
    }
  };
  await instance('prune');
  // A server that does not come up leaves the others of the instance running: take them down.
  const up = await instance('up', name, ...services).catch(async (error: unknown) => {
    await instance('down', name).catch(() => {});
    throw error;
  });
  const settings = Object.fromEntries(
    up
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1], m[2]]),
  ) as Record<string, string>;
  return {
    name,
    env: {
      KAFKA_BROKERS: settings['KAFKA_BROKERS']!,
      MONGO_URL: settings['MONGO_URL']!,
      REDIS_URL: settings['REDIS_URL']!,
    },
    stop: async (service) => void (await instance('stop', name, service)),
    kill: async (service) => void (await instance('kill', name, service)),
    start: async (service) => void (await instance('start', name, service)),
    flushAll: async () => void (await instance('flushall', name)),
    logTail: async (service, lines = 40) => {
      const text = await readFile(`${INSTANCES}${name}/logs/${service}.log`, 'utf8').catch(() => '');
      return text
        .split('\n')
        .slice(-lines - 1)
        .join('\n');
    },
    remove: async () => void (await instance('down', name)),
  };
}

/**
 * `describe` when private instances can run here (what `npm run infra:up` installs is there);
 * otherwise skipped with a notice, or a failure under REQUIRE_INFRA=1 (CI). Containers
 * (TEST_INFRA=docker) come without these installs: skipped there with a notice, as other tests of
 * servers the containers do not provide.
 */
export function describeWithPrivateServers(name: string, body: () => void): void {
  let missing: string | null = null;
  try {
    execFileSync('bash', [SCRIPT, 'check'], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    missing = String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
  if (missing === null) {
    describe(name, body);
    return;
  }
  const docker = process.env['TEST_INFRA'] === 'docker';
  if (process.env['REQUIRE_INFRA'] === '1' && !docker) throw new Error(`${name}: ${missing}`);
  console.warn(`skipping ${name}: ${docker ? 'no private server instances with TEST_INFRA=docker' : missing}`);
  describe.skip(name, body);
}
