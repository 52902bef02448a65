import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, parseConfig } from '@mtc/runtime';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AdapterConfigSchema } from '../select.ts';
import { kafkaConnection, KafkaSettingsShape } from './kafka-settings.ts';

/** Test-only certificates: a CA, a client certificate it signed, its key, and an unrelated key. */
const file = (name: string): string => fileURLToPath(new URL(`./testdata/${name}`, import.meta.url));
const CA = file('ca.pem');
const CERT = file('client.pem');
const KEY = file('client.key');
const OTHER_KEY = file('other.key');

const BROKERS = { KAFKA_BROKERS: 'b-1.example.com:9096,b-2.example.com:9096' };

/** The client options the services would connect with, from these environment variables. */
const connect = (env: Record<string, string>) =>
  kafkaConnection(parseConfig(AdapterConfigSchema, { ...BROKERS, ...env }) as Parameters<typeof kafkaConnection>[0]);

/** The configuration error these variables give, as printed at start-up. */
const refusal = (env: Record<string, string>): string => {
  try {
    parseConfig(AdapterConfigSchema, { ...BROKERS, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
};

const SCRAM = { KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 's3cret' };

describe('Kafka settings', () => {
  it('connects with brokers only, in plain text, when nothing else is set', () => {
    expect(connect({})).toEqual({
      brokers: ['b-1.example.com:9096', 'b-2.example.com:9096'],
      clientId: 'mtc-explorer',
      compression: 'gzip',
    });
  });

  describe('SASL', () => {
    for (const [given, mechanism] of [
      ['PLAIN', 'plain'],
      ['SCRAM-SHA-256', 'scram-sha-256'],
      ['scram-sha-512', 'scram-sha-512'],
    ] as const)
      it(`logs in with ${given} as kafkajs's ${mechanism}`, () => {
        expect(
          connect({ KAFKA_SASL_MECHANISM: given, KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'p=w:d' }).sasl,
        ).toEqual({ mechanism, username: 'svc', password: 'p=w:d' });
      });

    it('refuses a mechanism it does not speak', () => {
      expect(refusal({ ...SCRAM, KAFKA_SASL_MECHANISM: 'OAUTHBEARER' })).toMatch(/KAFKA_SASL_MECHANISM/);
    });

    it('refuses a username without a password', () => {
      const { KAFKA_SASL_PASSWORD: _, ...noPassword } = SCRAM;
      expect(refusal(noPassword)).toMatch(/KAFKA_SASL_MECHANISM=scram-sha-512 needs KAFKA_SASL_PASSWORD/);
    });

    it('refuses a password without a username', () => {
      const { KAFKA_SASL_USERNAME: _, ...noUser } = SCRAM;
      expect(refusal(noUser)).toMatch(/KAFKA_SASL_MECHANISM=scram-sha-512 needs KAFKA_SASL_USERNAME/);
    });

    it('refuses credentials without a mechanism', () => {
      const { KAFKA_SASL_MECHANISM: _, ...noMechanism } = SCRAM;
      const message = refusal(noMechanism);
      expect(message).toMatch(/KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not/);
      expect(message).toMatch(/KAFKA_SASL_PASSWORD is set but KAFKA_SASL_MECHANISM is not/);
    });

    it('never prints the password in a refusal', () => {
      expect(refusal({ ...SCRAM, KAFKA_SASL_USERNAME: '', KAFKA_REPLICATION_FACTOR: '0' })).not.toContain('s3cret');
    });
  });

  describe('TLS', () => {
    it('verifies brokers against the system CAs when only KAFKA_TLS is set', () => {
      expect(connect({ KAFKA_TLS: 'true' }).ssl).toEqual({});
    });

    it('trusts the CA of KAFKA_TLS_CA_FILE, read at start-up', () => {
      expect(connect({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: CA }).ssl).toEqual({ ca: readFileSync(CA, 'utf8') });
    });

    it('presents the client certificate and key of mutual TLS', () => {
      expect(
        connect({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: CA, KAFKA_TLS_CERT_FILE: CERT, KAFKA_TLS_KEY_FILE: KEY }).ssl,
      ).toEqual({ ca: readFileSync(CA, 'utf8'), cert: readFileSync(CERT, 'utf8'), key: readFileSync(KEY, 'utf8') });
    });

    it('goes with SASL (SASL_SSL)', () => {
      const options = connect({ ...SCRAM, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: CA });
      expect(options.sasl?.mechanism).toBe('scram-sha-512');
      expect(options.ssl?.ca).toBe(readFileSync(CA, 'utf8'));
    });

    it('refuses an unreadable CA file, naming it', () => {
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' })).toMatch(
        /cannot read \/nonexistent\/ca\.pem: ENOENT[\s\S]*KAFKA_TLS_CA_FILE/,
      );
    });

    it('refuses a CA file that holds no certificate', () => {
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: KEY })).toMatch(
        /client\.key does not hold a PEM certificate[\s\S]*KAFKA_TLS_CA_FILE/,
      );
    });

    it('refuses a key file that holds no private key', () => {
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: CERT, KAFKA_TLS_KEY_FILE: CERT })).toMatch(
        /client\.pem does not hold a PEM private key[\s\S]*KAFKA_TLS_KEY_FILE/,
      );
    });

    it('refuses a client certificate without its key, and a key without its certificate', () => {
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: CERT })).toMatch(
        /KAFKA_TLS_CERT_FILE needs its private key in KAFKA_TLS_KEY_FILE/,
      );
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_KEY_FILE: KEY })).toMatch(
        /KAFKA_TLS_KEY_FILE needs its certificate in KAFKA_TLS_CERT_FILE/,
      );
    });

    it('refuses a key that does not belong to the certificate', () => {
      expect(refusal({ KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: CERT, KAFKA_TLS_KEY_FILE: OTHER_KEY })).toMatch(
        /the private key in .*other\.key does not belong to the certificate in .*client\.pem/,
      );
    });

    it('refuses TLS files while TLS is off', () => {
      expect(refusal({ KAFKA_TLS_CA_FILE: CA })).toMatch(/KAFKA_TLS_CA_FILE is set but KAFKA_TLS is not true/);
      expect(refusal({ KAFKA_TLS: 'false', KAFKA_TLS_CERT_FILE: CERT, KAFKA_TLS_KEY_FILE: KEY })).toMatch(
        /KAFKA_TLS_CERT_FILE is set but KAFKA_TLS is not true/,
      );
    });

    it('refuses a KAFKA_TLS that is not a boolean', () => {
      expect(refusal({ KAFKA_TLS: 'maybe' })).toMatch(/KAFKA_TLS/);
    });
  });

  describe('topic layout', () => {
    it("leaves the replication factor and min.insync.replicas to the cluster's defaults when unset", () => {
      const options = connect({});
      expect(options.replicationFactor).toBeUndefined();
      expect(options.minInsyncReplicas).toBeUndefined();
    });

    it('creates topics with the configured replication factor and min.insync.replicas', () => {
      expect(connect({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' })).toMatchObject({
        replicationFactor: 3,
        minInsyncReplicas: 2,
      });
    });

    it('refuses a replication factor below min.insync.replicas', () => {
      expect(refusal({ KAFKA_REPLICATION_FACTOR: '2', KAFKA_MIN_INSYNC_REPLICAS: '3' })).toMatch(
        /KAFKA_REPLICATION_FACTOR=2 is below KAFKA_MIN_INSYNC_REPLICAS=3/,
      );
    });

    it('refuses min.insync.replicas without a replication factor to check it against', () => {
      expect(refusal({ KAFKA_MIN_INSYNC_REPLICAS: '2' })).toMatch(
        /KAFKA_MIN_INSYNC_REPLICAS=2 needs KAFKA_REPLICATION_FACTOR/,
      );
    });

    it('refuses counts below one', () => {
      for (const key of ['KAFKA_REPLICATION_FACTOR', 'KAFKA_MIN_INSYNC_REPLICAS', 'KAFKA_PARTITIONS'])
        expect(refusal({ [key]: '0' })).toMatch(new RegExp(key));
    });

    it('takes the keyed topics’ partitions from KAFKA_PARTITIONS (12 when unset)', () => {
      expect(parseConfig(AdapterConfigSchema, {}).KAFKA_PARTITIONS).toBe(12);
      expect(parseConfig(AdapterConfigSchema, { KAFKA_PARTITIONS: '6' }).KAFKA_PARTITIONS).toBe(6);
    });
  });

  it('checks the settings again when a schema copied the fields without their rules', () => {
    const copied = parseConfig(z.object(KafkaSettingsShape), { ...BROKERS, KAFKA_SASL_USERNAME: 'svc' });
    expect(() => kafkaConnection({ ...copied, KAFKA_BROKERS: copied.KAFKA_BROKERS! })).toThrow(
      /KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not/,
    );
  });
});
