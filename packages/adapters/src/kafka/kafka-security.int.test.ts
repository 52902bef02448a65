import type { EventLog } from '@mtc/ports';
import { parseConfig } from '@mtc/runtime';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithInfra, uniqueName, waitFor } from '../contract/index.ts';
import { AdapterConfigSchema, openEventLog, topicsOf } from '../select.ts';
import { isTransientKafkaError } from './transient.ts';

/**
 * The event log on a broker that listens as managed clusters do (infra/up.sh): SASL_SSL with
 * SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN, and SSL requiring a client certificate. Every log here is
 * opened the way the services open theirs, from environment variables through AdapterConfigSchema
 * and openEventLog; what the broker made of our topics is read back over its PLAINTEXT listener.
 */
describeWithInfra(
  'Kafka event log over SASL_SSL and mutual TLS',
  [
    'KAFKA_BROKERS',
    'KAFKA_SASL_BROKERS',
    'KAFKA_SCRAM_USER',
    'KAFKA_SCRAM_PASSWORD',
    'KAFKA_TLS_BROKERS',
    'KAFKA_TEST_CA_FILE',
    'KAFKA_TEST_CLIENT_CERT_FILE',
    'KAFKA_TEST_CLIENT_KEY_FILE',
  ],
  (infra) => {
    const admin = new Kafka({ brokers: [infra.KAFKA_BROKERS], logLevel: logLevel.NOTHING }).admin();
    const opened: EventLog[] = [];

    beforeAll(() => admin.connect());
    afterAll(async () => {
      for (const log of opened) await log.close();
      await admin.disconnect();
    }, 60_000);

    const open = async (env: Record<string, string>): Promise<EventLog> => {
      const log = await openEventLog(parseConfig(AdapterConfigSchema, { TOPIC_PREFIX: uniqueName('sec'), ...env }));
      opened.push(log);
      return log;
    };
    const sasl = (mechanism: string, password = infra.KAFKA_SCRAM_PASSWORD) => ({
      KAFKA_BROKERS: infra.KAFKA_SASL_BROKERS,
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_USERNAME: infra.KAFKA_SCRAM_USER,
      KAFKA_SASL_PASSWORD: password,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: infra.KAFKA_TEST_CA_FILE,
    });
    const mutualTls = {
      KAFKA_BROKERS: infra.KAFKA_TLS_BROKERS,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: infra.KAFKA_TEST_CA_FILE,
      KAFKA_TLS_CERT_FILE: infra.KAFKA_TEST_CLIENT_CERT_FILE,
      KAFKA_TLS_KEY_FILE: infra.KAFKA_TEST_CLIENT_KEY_FILE,
    };

    /** Publishes three messages and reads them back with a consumer group. */
    const roundTrip = async (log: EventLog): Promise<unknown[]> => {
      const topic = uniqueName('round-trip');
      const sent = [1, 2, 3].map((n) => ({ key: `k${n}`, value: { n } }));
      await log.publish(topic, sent);
      const got: unknown[] = [];
      const sub = await log.consume({ topic, group: uniqueName('group') }, async (batch) => {
        got.push(...batch.map((r) => r.value));
      });
      await waitFor(() => got.length >= sent.length, { timeoutMs: 30_000, what: `3 messages of ${topic}` });
      await sub.stop();
      return got;
    };

    describe('SASL_SSL', () => {
      for (const mechanism of ['SCRAM-SHA-512', 'SCRAM-SHA-256', 'PLAIN'])
        it(`publishes and consumes after a ${mechanism} login`, async () => {
          expect(await roundTrip(await open(sasl(mechanism)))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
        }, 60_000);

      it('fails at once with an authentication error on a wrong password, without retrying', async () => {
        const started = Date.now();
        const error: unknown = await open(sasl('SCRAM-SHA-512', `${infra.KAFKA_SCRAM_PASSWORD}-wrong`)).then(
          () => new Error('opened with a wrong password'),
          (e: unknown) => e,
        );
        expect((error as Error).name).toBe('KafkaJSSASLAuthenticationError');
        expect((error as Error).message).toMatch(/SCRAM SHA512 authentication failed.*invalid credentials/i);
        expect(isTransientKafkaError(error)).toBe(false);
        // Retried as kafkajs retries a connection (8 times, 0.2 s doubling to 10 s), it would take about half a minute.
        expect(Date.now() - started).toBeLessThan(10_000);
      }, 60_000);
    });

    describe('mutual TLS', () => {
      it('publishes and consumes with a client certificate', async () => {
        expect(await roundTrip(await open(mutualTls))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      }, 60_000);

      it('is refused by the broker without a client certificate', async () => {
        const { KAFKA_TLS_CERT_FILE: _cert, KAFKA_TLS_KEY_FILE: _key, ...serverOnly } = mutualTls;
        await expect(open(serverOnly)).rejects.toThrow();
      }, 60_000);
    });

    describe('topics created with the configured layout', () => {
      it('have the replication factor, min.insync.replicas and partitions the broker reports', async () => {
        const prefix = uniqueName('layout');
        const log = await open({
          ...sasl('SCRAM-SHA-512'),
          TOPIC_PREFIX: prefix,
          KAFKA_REPLICATION_FACTOR: '1',
          KAFKA_MIN_INSYNC_REPLICAS: '1',
          KAFKA_PARTITIONS: '3',
        });
        const topics = topicsOf(parseConfig(AdapterConfigSchema, { TOPIC_PREFIX: prefix }));
        await log.publish(topics.state, [{ key: 'a', value: 1 }]);
        await log.publish(topics.blocks, [{ key: '1', value: 1 }]);

        const { topics: meta } = await admin.fetchTopicMetadata({ topics: [topics.state, topics.blocks] });
        const byName = new Map(meta.map((t) => [t.name, t.partitions]));
        expect(byName.get(topics.state)).toHaveLength(3);
        expect(byName.get(topics.blocks)).toHaveLength(1);
        for (const partitions of byName.values()) for (const p of partitions) expect(p.replicas).toHaveLength(1);

        const { resources } = await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: ConfigResourceTypes.TOPIC, name: topics.state, configNames: ['min.insync.replicas'] }],
        });
        // Set on the topic itself (the broker's default would be reported as a default).
        expect(resources[0]?.configEntries).toEqual([
          expect.objectContaining({ configName: 'min.insync.replicas', configValue: '1', isDefault: false }),
        ]);
      }, 60_000);

      it('asks the broker for the configured replication factor, which one broker cannot give', async () => {
        const log = await open({ ...sasl('SCRAM-SHA-512'), KAFKA_REPLICATION_FACTOR: '2' });
        const topic = uniqueName('rf2');
        await expect(log.publish(topic, [{ key: 'a', value: 1 }])).rejects.toThrow(
          /refused to create topic .*replication factor 2.*INVALID_REPLICATION_FACTOR/,
        );
        expect(await admin.listTopics()).not.toContain(topic);
      }, 60_000);
    });
  },
);
