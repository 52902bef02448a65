import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readEnvFile } from '@mtc/runtime';
import { describe, expect, it, vi } from 'vitest';
import { describeWithInfra, infraSetting } from './infra.ts';

const ENV_FILE = fileURLToPath(new URL('../../../../.infra/env', import.meta.url));
const KEYS = ['TEST_INFRA', 'REQUIRE_INFRA', 'KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL', 'MONGO_JAVA_URL'] as const;

/** Runs `body` with exactly these of KEYS set, then puts the environment back. */
function withEnv<T>(env: Partial<Record<(typeof KEYS)[number], string>>, body: () => T): T {
  const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  for (const k of KEYS) {
    const v = env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return body();
  } finally {
    for (const k of KEYS) {
      const v = saved[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('infraSetting', () => {
  it('takes the environment first', () => {
    withEnv({ MONGO_URL: 'mongodb://from-env:1' }, () =>
      expect(infraSetting('MONGO_URL')).toBe('mongodb://from-env:1'),
    );
    withEnv({ TEST_INFRA: 'docker', MONGO_URL: 'mongodb://container:1' }, () =>
      expect(infraSetting('MONGO_URL')).toBe('mongodb://container:1'),
    );
  });

  const file = readEnvFile(ENV_FILE);
  it.skipIf(!existsSync(ENV_FILE) || !file['MONGO_JAVA_URL'])(
    'reads .infra/env for the local servers, never for a run on containers',
    () => {
      withEnv({}, () => expect(infraSetting('MONGO_JAVA_URL')).toBe(file['MONGO_JAVA_URL']));
      withEnv({ TEST_INFRA: 'local' }, () => expect(infraSetting('MONGO_JAVA_URL')).toBe(file['MONGO_JAVA_URL']));
      withEnv({ TEST_INFRA: 'docker' }, () => expect(infraSetting('MONGO_JAVA_URL')).toBeUndefined());
    },
  );
});

describe('describeWithInfra on containers (TEST_INFRA=docker)', () => {
  const body = vi.fn();

  // Collected here, with the environment of a run on containers under REQUIRE_INFRA=1.
  const warnings: string[] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((line: string) => void warnings.push(line));
  const noContainer = withEnv({ TEST_INFRA: 'docker', REQUIRE_INFRA: '1' }, () => {
    try {
      describeWithInfra('a mongo-java-server suite', ['MONGO_JAVA_URL'], body);
      return undefined;
    } catch (error) {
      return error;
    }
  });
  const containerMissing = withEnv({ TEST_INFRA: 'docker', REQUIRE_INFRA: '1' }, () => {
    try {
      describeWithInfra('a MongoDB suite', ['MONGO_URL'], body);
      return undefined;
    } catch (error) {
      return error;
    }
  });
  warn.mockRestore();

  it('skips, with a notice, a suite of a server no container provides, REQUIRE_INFRA or not', () => {
    expect(noContainer).toBeUndefined();
    expect(warnings).toContain(
      'skipping a mongo-java-server suite: no container runs MONGO_JAVA_URL (TEST_INFRA=docker)',
    );
  });

  it('still fails under REQUIRE_INFRA=1 when a container server has no address', () => {
    expect(containerMissing).toBeInstanceOf(Error);
    expect((containerMissing as Error).message).toBe(
      'a MongoDB suite: MONGO_URL not configured (TEST_INFRA=docker, and no container address in the environment)',
    );
  });
});
