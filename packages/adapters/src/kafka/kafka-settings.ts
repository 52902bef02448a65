import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '@mtc/runtime';
import { z } from 'zod';
import { KAFKA_COMPRESSIONS, type KafkaConnectionOptions } from './kafka-log.ts';

/**
 * How every process reaches Kafka: brokers, SASL, TLS and how our topics are laid out when they are
 * created. The fields are part of AdapterConfigSchema (raw environment → zod, once at start-up);
 * `checkKafkaSettings` holds the rules that tie fields together, and `kafkaConnection` is the one
 * place that turns the parsed settings into the event log's client options. Files named here are
 * read while the configuration is parsed, so an unreadable or wrong file stops the process before
 * it connects anywhere, and their contents never change under a running process.
 */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/** A PEM file read at start-up: its path (for messages) and its text. */
export interface PemFile {
  file: string;
  pem: string;
}

/** A PEM file that holds what `kind` says, checked by parsing it the way the TLS client will. */
const pemFile = (kind: 'certificate' | 'private key') =>
  z
    .string()
    .min(1)
    .transform((file, ctx): PemFile => {
      let pem: string;
      try {
        pem = readFileSync(file, 'utf8');
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${file}: ${(error as Error).message}` });
        return z.NEVER;
      }
      try {
        if (kind === 'certificate') new X509Certificate(pem);
        else createPrivateKey(pem);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `${file} does not hold a PEM ${kind} (${(error as Error).message})`,
        });
        return z.NEVER;
      }
      return { file, pem };
    });

export const KafkaSettingsShape = {
  /** Comma-separated `host:port` list. */
  KAFKA_BROKERS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1))
    .optional(),
  KAFKA_CLIENT_ID: z.string().min(1).default('mtc-explorer'),
  /** Codec of produced record batches. */
  KAFKA_COMPRESSION: z.enum(KAFKA_COMPRESSIONS).default('gzip'),
  /** SASL: unset for none; `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512` in any case. */
  KAFKA_SASL_MECHANISM: z.string().toLowerCase().pipe(z.enum(KAFKA_SASL_MECHANISMS)).optional(),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: z.string().optional(),
  /** TLS to the brokers, verified against the system's CAs or KAFKA_TLS_CA_FILE. */
  KAFKA_TLS: z.stringbool().default(false),
  /** PEM CA certificate(s) that signed the brokers' certificates (a private CA: Aiven, MSK private CA). */
  KAFKA_TLS_CA_FILE: pemFile('certificate').optional(),
  /** Mutual TLS: the client's PEM certificate and its (unencrypted) PEM private key. */
  KAFKA_TLS_CERT_FILE: pemFile('certificate').optional(),
  KAFKA_TLS_KEY_FILE: pemFile('private key').optional(),
  /**
   * Replicas of each topic we create; unset: the cluster's `default.replication.factor`. Topics
   * that exist are left as they are.
   */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(32_767).optional(),
  /**
   * `min.insync.replicas` of each topic we create: with acks from all in-sync replicas (our
   * producer's), a write is refused while fewer replicas than this are in sync. Unset: the
   * cluster's default.
   */
  KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().min(1).max(32_767).optional(),
  /**
   * Partitions of the keyed topics (state, activity) when we create them. The block topic keeps
   * its one partition whatever this says: its order is the chain's.
   */
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(10_000).default(12),
};

/** The parsed Kafka settings (any config that holds them, such as AdapterConfig). */
export type KafkaSettings = Readonly<z.output<z.ZodObject<typeof KafkaSettingsShape>>>;

export interface KafkaSettingsIssue {
  path: keyof KafkaSettings;
  message: string;
}

/** What is wrong with the settings taken together (each field on its own is already valid). */
export function kafkaSettingsIssues(s: KafkaSettings): KafkaSettingsIssue[] {
  const issues: KafkaSettingsIssue[] = [];
  const mechanisms = KAFKA_SASL_MECHANISMS.join(', ');
  if (s.KAFKA_SASL_MECHANISM !== undefined) {
    for (const key of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const)
      if (s[key] === undefined)
        issues.push({ path: key, message: `KAFKA_SASL_MECHANISM=${s.KAFKA_SASL_MECHANISM} needs ${key}` });
  } else {
    for (const key of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const)
      if (s[key] !== undefined)
        issues.push({ path: key, message: `${key} is set but KAFKA_SASL_MECHANISM is not (${mechanisms})` });
  }
  if (!s.KAFKA_TLS) {
    for (const key of ['KAFKA_TLS_CA_FILE', 'KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_KEY_FILE'] as const)
      if (s[key] !== undefined)
        issues.push({ path: key, message: `${key} is set but KAFKA_TLS is not true: set KAFKA_TLS=true` });
  }
  const cert = s.KAFKA_TLS_CERT_FILE;
  const key = s.KAFKA_TLS_KEY_FILE;
  if (cert && !key)
    issues.push({
      path: 'KAFKA_TLS_KEY_FILE',
      message: 'KAFKA_TLS_CERT_FILE needs its private key in KAFKA_TLS_KEY_FILE',
    });
  if (key && !cert)
    issues.push({
      path: 'KAFKA_TLS_CERT_FILE',
      message: 'KAFKA_TLS_KEY_FILE needs its certificate in KAFKA_TLS_CERT_FILE',
    });
  if (cert && key && !new X509Certificate(cert.pem).checkPrivateKey(createPrivateKey(key.pem)))
    issues.push({
      path: 'KAFKA_TLS_KEY_FILE',
      message: `the private key in ${key.file} does not belong to the certificate in ${cert.file}`,
    });
  const rf = s.KAFKA_REPLICATION_FACTOR;
  const isr = s.KAFKA_MIN_INSYNC_REPLICAS;
  if (isr !== undefined && rf === undefined)
    issues.push({
      path: 'KAFKA_REPLICATION_FACTOR',
      message: `KAFKA_MIN_INSYNC_REPLICAS=${isr} needs KAFKA_REPLICATION_FACTOR (at least ${isr}), so that it can be checked`,
    });
  if (isr !== undefined && rf !== undefined && rf < isr)
    issues.push({
      path: 'KAFKA_MIN_INSYNC_REPLICAS',
      message: `KAFKA_REPLICATION_FACTOR=${rf} is below KAFKA_MIN_INSYNC_REPLICAS=${isr}: no write could ever be acknowledged`,
    });
  return issues;
}

/** The rules of `kafkaSettingsIssues` as a zod check, for a config schema that holds the Kafka fields. */
export function checkKafkaSettings(value: KafkaSettings, ctx: z.RefinementCtx): void {
  for (const issue of kafkaSettingsIssues(value))
    ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
}

/**
 * The event log's client options from the parsed settings: the one builder every process's
 * Kafka client goes through. Checks the settings again (a schema that copied the fields without
 * `checkKafkaSettings` still cannot connect with half a configuration).
 */
export function kafkaConnection(s: KafkaSettings & { KAFKA_BROKERS: string[] }): KafkaConnectionOptions {
  const issues = kafkaSettingsIssues(s);
  if (issues.length > 0)
    throw new ConfigError(
      `invalid configuration:\n${issues.map((i) => `✖ ${i.message}\n  → at ${i.path}`).join('\n')}`,
    );
  const sasl =
    s.KAFKA_SASL_MECHANISM === undefined
      ? undefined
      : { mechanism: s.KAFKA_SASL_MECHANISM, username: s.KAFKA_SASL_USERNAME!, password: s.KAFKA_SASL_PASSWORD! };
  const ssl = s.KAFKA_TLS
    ? {
        ...(s.KAFKA_TLS_CA_FILE ? { ca: s.KAFKA_TLS_CA_FILE.pem } : {}),
        ...(s.KAFKA_TLS_CERT_FILE ? { cert: s.KAFKA_TLS_CERT_FILE.pem } : {}),
        ...(s.KAFKA_TLS_KEY_FILE ? { key: s.KAFKA_TLS_KEY_FILE.pem } : {}),
      }
    : undefined;
  return {
    brokers: s.KAFKA_BROKERS,
    clientId: s.KAFKA_CLIENT_ID,
    compression: s.KAFKA_COMPRESSION,
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    ...(s.KAFKA_REPLICATION_FACTOR === undefined ? {} : { replicationFactor: s.KAFKA_REPLICATION_FACTOR }),
    ...(s.KAFKA_MIN_INSYNC_REPLICAS === undefined ? {} : { minInsyncReplicas: s.KAFKA_MIN_INSYNC_REPLICAS }),
  };
}
