import { parseConfig } from '@mtc/runtime';
import { describe, expect, it } from 'vitest';
import { ExplorerConfigSchema } from './config.ts';

describe('ExplorerConfigSchema', () => {
  it('holds the Kafka settings to the rules that tie them together', () => {
    expect(() => parseConfig(ExplorerConfigSchema, { KAFKA_BROKERS: 'k:9092', KAFKA_SASL_USERNAME: 'svc' })).toThrow(
      /KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not/,
    );
  });
});
