import { connect } from 'node:net';
import { z } from 'zod';

/**
 * Which real servers the integration and end-to-end tiers use (read by global-infra.ts):
 *
 * - `docker`: Kafka, MongoDB and Redis in containers that testcontainers starts for the run;
 * - `local`: servers someone runs already — the environment's KAFKA_BROKERS, MONGO_URL, REDIS_URL,
 *   else `.infra/env` as `npm run infra:up` writes it;
 * - `auto` (default): `docker` when a Docker engine answers, else `local`; servers named in the
 *   environment (all three) count as a choice of `local`, so they are never shadowed by containers.
 *
 * The engine is found by testcontainers' own strategies (DOCKER_HOST, ~/.testcontainers.properties,
 * the usual socket paths), so a run uses exactly the engine testcontainers would then start
 * containers on, within DOCKER_PROBE_TIMEOUT_MS: an engine that does not answer is no engine.
 */
export const TestInfraSettingSchema = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .enum(['auto', 'docker', 'local'], {
      error: (i) => `TEST_INFRA must be auto, docker or local, not '${String(i.input)}'`,
    })
    .default('auto'),
);
export type TestInfraSetting = z.infer<typeof TestInfraSettingSchema>;
export type TestInfra = 'docker' | 'local';

export interface TestInfraChoice {
  infra: TestInfra;
  /** One line on why, for the run's output. */
  reason: string;
}

export type DockerProbeResult = { found: true; engine: string } | { found: false; reason: string };
export type DockerProbe = () => Promise<DockerProbeResult>;

export const DOCKER_PROBE_TIMEOUT_MS = 10_000;
const SERVER_KEYS = ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'] as const;

/** Decides from TEST_INFRA (and the probe, asked only when the setting leaves it open). */
export async function chooseTestInfra(
  env: Readonly<Record<string, string | undefined>>,
  probe: DockerProbe = () => probeDocker(),
): Promise<TestInfraChoice> {
  const parsed = TestInfraSettingSchema.safeParse(env['TEST_INFRA']);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('; '));
  const setting = parsed.data;
  if (setting === 'local') return { infra: 'local', reason: 'TEST_INFRA=local' };
  if (setting === 'auto' && SERVER_KEYS.every((k) => env[k]))
    return { infra: 'local', reason: `TEST_INFRA=auto, and ${SERVER_KEYS.join(', ')} are set` };
  const docker = await probe();
  if (docker.found) return { infra: 'docker', reason: `TEST_INFRA=${setting}, Docker engine ${docker.engine}` };
  if (setting === 'docker')
    throw new Error(
      `TEST_INFRA=docker, but no Docker engine answered (${docker.reason}). ` +
        'Start Docker (or set DOCKER_HOST), or run the local servers: npm run infra:up, then TEST_INFRA=local',
    );
  return { infra: 'local', reason: `TEST_INFRA=auto, no Docker engine (${docker.reason})` };
}

/**
 * Asks testcontainers for a working container runtime. Its answer is cached per process (the
 * configuration it reads, and a runtime once found), so a second probe in one process with another
 * DOCKER_HOST would see the first one's: run probes that must differ in separate processes.
 */
export async function probeDocker(timeoutMs = DOCKER_PROBE_TIMEOUT_MS): Promise<DockerProbeResult> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DockerProbeResult>((resolve) => {
    timer = setTimeout(() => resolve({ found: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const found = getContainerRuntimeClient().then(
    (client): DockerProbeResult => {
      const { serverVersion, host } = client.info.containerRuntime;
      return { found: true, engine: `${serverVersion} (containers reached at ${host})` };
    },
    (error: unknown): DockerProbeResult => ({
      found: false,
      reason: error instanceof Error ? error.message : String(error),
    }),
  );
  try {
    return await Promise.race([found, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * True when every address answers a TCP connect within timeoutMs: Kafka's `host:port[,…]` (each
 * broker) and `scheme://[user@]host:port/…` URLs. An empty or unreadable address answers false.
 */
export async function serversAnswer(addresses: readonly string[], timeoutMs = 1_000): Promise<boolean> {
  const endpoints = addresses.flatMap((address) => address.split(',').map(endpointOf));
  if (endpoints.some((e) => e === null)) return false;
  const answers = await Promise.all(endpoints.map((e) => connects(e!, timeoutMs)));
  return answers.every(Boolean);
}

function endpointOf(address: string): { host: string; port: number } | null {
  const match = /^(?:[a-z+]+:\/\/(?:[^@/]*@)?)?(\[[^\]]+\]|[^:/,]+):(\d+)/i.exec(address.trim());
  if (!match) return null;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

function connects(endpoint: { host: string; port: number }, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(endpoint);
    const done = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
