import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeWithInfra } from '../contract/index.ts';
import { createKafkaEventLog, type KafkaCompression } from './kafka-log.ts';

/**
 * Record batches go to the broker compressed: proven on the broker's own segment files, which
 * `npm run infra:up` keeps under .infra/kafka/data (a broker elsewhere cannot be looked into).
 */
const KAFKA_DATA = new URL('../../../../.infra/kafka/data', import.meta.url).pathname;

const segmentBytes = (topic: string): number => {
  const dir = join(KAFKA_DATA, `${topic}-0`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
};

describeWithInfra('Kafka record batch compression', ['KAFKA_BROKERS'], ({ KAFKA_BROKERS }) => {
  it.skipIf(!existsSync(KAFKA_DATA))(
    'stores gzip batches several times smaller than plain ones',
    async () => {
      // Block-like events: the same field names and shapes over and over, as on the real topics.
      const messages = Array.from({ length: 400 }, (_, i) => ({
        key: String(i),
        value: {
          height: i,
          hash: randomUUID().replaceAll('-', '').repeat(2),
          txs: Array.from({ length: 3 }, (_, t) => ({
            index: t,
            type: 'transfer',
            amount: String(i * 1000 + t),
            valid: true,
          })),
        },
      }));
      const sizes: Record<KafkaCompression, number> = { gzip: 0, none: 0 };
      for (const compression of ['gzip', 'none'] as const) {
        const topic = `compression-${compression}-${randomUUID()}`;
        const log = await createKafkaEventLog({
          brokers: KAFKA_BROKERS.split(','),
          clientId: 'mtc-compression',
          topics: [],
          compression,
        });
        try {
          await log.publish(topic, messages);
        } finally {
          await log.close();
        }
        sizes[compression] = segmentBytes(topic);
      }
      expect(sizes.none).toBeGreaterThan(100_000);
      expect(sizes.gzip).toBeLessThan(sizes.none / 2.5);
    },
    60_000,
  );
});
