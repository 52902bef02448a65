import { fileURLToPath } from 'node:url';
import { readEnvFile } from '@mtc/runtime';
import { describe } from 'vitest';

/**
 * Addresses of the real servers for `*.int.test.ts`: from the environment, else from the file
 * `npm run infra:up` writes (.infra/env). Without them the integration tier is skipped with a
 * notice, unless REQUIRE_INFRA=1 (as in CI), where a missing server is a failure.
 *
 * MONGO_URL is the FerretDB stand-in, MONGO_JAVA_URL the mongo-java-server one (benchmarks).
 */
export type InfraKey = 'KAFKA_BROKERS' | 'MONGO_URL' | 'REDIS_URL' | 'MONGO_JAVA_URL';

const ENV_FILE = fileURLToPath(new URL('../../../../.infra/env', import.meta.url));

export function infraSetting(key: InfraKey): string | undefined {
  return process.env[key] || readEnvFile(ENV_FILE)[key] || undefined;
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
  if (process.env['REQUIRE_INFRA'] === '1')
    throw new Error(`${name}: ${missing.join(', ')} not configured (run npm run infra:up)`);
  console.warn(`skipping ${name}: ${missing.join(', ')} not configured (run npm run infra:up)`);
  describe.skip(name, () => body(settings as Record<InfraKey, string>));
}
