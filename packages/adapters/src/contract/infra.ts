import { fileURLToPath } from 'node:url';
import { readEnvFile } from '@mtc/runtime';
import { describe } from 'vitest';

/**
 * Addresses of the real servers for `*.int.test.ts`: from the environment, else from the file
 * `npm run infra:up` writes (.infra/env). Without them the integration tier is skipped with a
 * notice, unless REQUIRE_INFRA=1 (as in CI), where a missing server is a failure.
 *
 * When the run's servers are containers (test/support/global-infra.ts set TEST_INFRA=docker and
 * put their addresses in the environment), .infra/env is not read: a run uses one set of servers.
 * The containers are Kafka, MongoDB and Redis only, so a test of another server is skipped there
 * with a notice, REQUIRE_INFRA or not.
 *
 * MONGO_URL is the default stand-in, mongo-java-server (or MongoDB itself in containers), also
 * named MONGO_JAVA_URL; MONGO_FERRETDB_URL is FerretDB, a second stand-in the contract suite holds
 * to the same behaviour.
 *
 * The local broker also listens as managed clusters do (infra/up.sh): SASL_SSL on
 * KAFKA_SASL_BROKERS for the SCRAM/PLAIN user KAFKA_SCRAM_USER, and mutual TLS on KAFKA_TLS_BROKERS
 * with the client certificate KAFKA_TEST_CLIENT_CERT_FILE; both present certificates of the CA
 * in KAFKA_TEST_CA_FILE. No container runs those listeners.
 */
export type InfraKey =
  | 'KAFKA_BROKERS'
  | 'MONGO_URL'
  | 'REDIS_URL'
  | 'MONGO_JAVA_URL'
  | 'MONGO_FERRETDB_URL'
  | 'KAFKA_SASL_BROKERS'
  | 'KAFKA_SCRAM_USER'
  | 'KAFKA_SCRAM_PASSWORD'
  | 'KAFKA_TLS_BROKERS'
  | 'KAFKA_TEST_CA_FILE'
  | 'KAFKA_TEST_CLIENT_CERT_FILE'
  | 'KAFKA_TEST_CLIENT_KEY_FILE';

/** The servers test/support/global-infra.ts starts in containers. */
export const CONTAINER_KEYS: readonly InfraKey[] = ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'];

const ENV_FILE = fileURLToPath(new URL('../../../../.infra/env', import.meta.url));

/** True when this run's servers are the containers of test/support/global-infra.ts. */
export function usesContainers(): boolean {
  return process.env['TEST_INFRA'] === 'docker';
}

export function infraSetting(key: InfraKey): string | undefined {
  return process.env[key] || (usesContainers() ? undefined : readEnvFile(ENV_FILE)[key]) || undefined;
}

/** `describe` when every key is configured; otherwise skip (or fail under REQUIRE_INFRA=1). */
export function describeWithInfra(
  name: string,
  keys: readonly InfraKey[],
  body: (settings: Record<InfraKey, string>) => void,
): void {
  const settings = Object.fromEntries(keys.map((k) => [k, infraSetting(k)])) as Record<InfraKey, string | undefined>;
  const missing = keys.filter((k) => !settings[k]);
  if (missing.length === 0) {
    describe(name, () => body(settings as Record<InfraKey, string>));
    return;
  }
  if (usesContainers() && missing.some((k) => !CONTAINER_KEYS.includes(k))) {
    console.warn(`skipping ${name}: no container runs ${missing.join(', ')} (TEST_INFRA=docker)`);
  } else {
    const hint = usesContainers()
      ? 'TEST_INFRA=docker, and no container address in the environment'
      : 'run npm run infra:up';
    if (process.env['REQUIRE_INFRA'] === '1')
      throw new Error(`${name}: ${missing.join(', ')} not configured (${hint})`);
    console.warn(`skipping ${name}: ${missing.join(', ')} not configured (${hint})`);
  }
  describe.skip(name, () => body(settings as Record<InfraKey, string>));
}
