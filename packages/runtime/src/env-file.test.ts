import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvFile } from './env-file.ts';

describe('readEnvFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mtc-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads KEY=value lines as --env-file does: "=" inside values, quotes, comments and blanks', () => {
    const file = join(dir, 'env');
    writeFileSync(
      file,
      '# servers\nKAFKA_BROKERS=127.0.0.1:9092\n\nMONGO_URL=mongodb://h:1/?a=b\nREDIS_URL="redis://:p#w@h:6379"\nLOG_LEVEL=debug # chatty\n',
    );
    expect(readEnvFile(file)).toEqual({
      KAFKA_BROKERS: '127.0.0.1:9092',
      MONGO_URL: 'mongodb://h:1/?a=b',
      REDIS_URL: 'redis://:p#w@h:6379',
      LOG_LEVEL: 'debug',
    });
  });

  it('reads a missing file as empty', () => {
    expect(readEnvFile(join(dir, 'absent'))).toEqual({});
  });
});
