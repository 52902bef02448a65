/**
 * A downstream consumer of the explorer's topics, written as a third party would write one: it
 * reads `mtc.blocks.v3` (and, if asked, `mtc.state.v1` and `mtc.activity.v1`) with its own consumer
 * group, checks every message value against the published JSON Schemas (docs/schemas/, the
 * contract in docs/topics.md), reads it with the types generated from the same schemas
 * (@mtc/topic-types) and prints one line per block and per activity. It skips, without
 * failing, what the contract lets a newer producer add: an activity or a state write of a `kind` it
 * does not know. It stops after MAX_MESSAGES messages, on Ctrl-C, or at the first message that
 * breaks the contract (its offset is not committed, so a rerun meets it again).
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 ./node_modules/.bin/node examples/topic-consumer/consume.ts
 *
 * It uses kafkajs directly: it is an example for consumers, outside the product (whose services
 * reach Kafka only through the EventLog port).
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  ACTIVITY_KINDS,
  STATE_WRITE_KINDS,
  TOPICS as PUBLISHED,
  type ActivityEventV1,
  type BlockEventV3,
  type KnownActivity,
  type StateEventV1,
} from '@mtc/topic-types';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { z } from 'zod';

/** The topics this example reads, without the deployment's prefix. */
export const TOPICS = { blocks: PUBLISHED.blocks, state: PUBLISHED.state, activity: PUBLISHED.activity } as const;
export type TopicKind = keyof typeof TOPICS;

/** Where the published schemas are: `<topic>.json` in this folder. */
export const DEFAULT_SCHEMA_DIR = new URL('../../docs/schemas/', import.meta.url);

/**
 * The activity kinds this example knows: those of the schema its types were generated from
 * (docs/topics.md); newer ones are skipped.
 */
export const KNOWN_ACTIVITY_KINDS: ReadonlySet<string> = new Set(ACTIVITY_KINDS);

/** The state-write kinds this example knows; newer ones are skipped. */
export const KNOWN_WRITE_KINDS: ReadonlySet<string> = new Set(STATE_WRITE_KINDS);

/** An activity message of a kind this example knows: the only ones it hands on. */
export type KnownActivityMessage = Omit<ActivityEventV1, 'activity'> & { activity: KnownActivity };

type Where = { topic: string; partition: number; offset: string; key: string };

export type ConsumedMessage = Where &
  (
    | { kind: 'blocks'; value: BlockEventV3 }
    | { kind: 'state'; value: StateEventV1 }
    | { kind: 'activity'; value: KnownActivityMessage }
  );

/** A valid message of a kind this example does not know: a newer producer's addition, skipped. */
export type SkippedMessage = Where & { kind: 'skipped'; topic: string; reason: string };

export interface SchemaValidators {
  blocks: ValidateFunction<BlockEventV3>;
  state: ValidateFunction<StateEventV1>;
  activity: ValidateFunction<ActivityEventV1>;
}

/** A message that is not valid JSON or does not match its topic's schema. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** Compiles the published schema documents (JSON Schema draft 2020-12) of the topics. */
export async function loadValidators(schemaDir: URL = DEFAULT_SCHEMA_DIR): Promise<SchemaValidators> {
  const load = async (topic: string): Promise<object> =>
    JSON.parse(await readFile(new URL(`${topic}.json`, schemaDir), 'utf8')) as object;
  // allErrors: report every mismatch of a message, not only the first.
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  return {
    blocks: ajv.compile<BlockEventV3>(await load(TOPICS.blocks)),
    state: ajv.compile<StateEventV1>(await load(TOPICS.state)),
    activity: ajv.compile<ActivityEventV1>(await load(TOPICS.activity)),
  };
}

/**
 * Decodes one message value of a topic: the typed message, `skipped` for a kind this example does
 * not know, or a ContractViolation. The contract only ever adds kinds (docs/topics.md, "Evolving
 * the contract"): the activity schema itself accepts an activity of an unknown kind; a state write
 * of an unknown kind is recognised before validating, since the schema lists this version's kinds.
 */
export function decodeValue(
  validators: SchemaValidators,
  kind: TopicKind,
  where: Where,
  text: string,
): ConsumedMessage | SkippedMessage {
  const at = `${where.topic}[${where.partition}]@${where.offset}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ContractViolation(`${at}: the value is not JSON`);
  }
  switch (kind) {
    case 'blocks':
      if (validators.blocks(value)) return { ...where, kind, value };
      throw new ContractViolation(`${at}: ${describeErrors(validators.blocks.errors)}`);
    case 'state': {
      const writeKind = kindOf((value as { write?: unknown } | null)?.write);
      if (writeKind !== undefined && !KNOWN_WRITE_KINDS.has(writeKind))
        return { ...where, kind: 'skipped', reason: `state write kind ${writeKind}` };
      if (validators.state(value)) return { ...where, kind, value };
      throw new ContractViolation(`${at}: ${describeErrors(validators.state.errors)}`);
    }
    case 'activity':
      if (!validators.activity(value))
        throw new ContractViolation(`${at}: ${describeErrors(validators.activity.errors)}`);
      if (!isKnownActivity(value)) return { ...where, kind: 'skipped', reason: `activity kind ${value.activity.kind}` };
      return { ...where, kind, value };
  }
}

const isKnownActivity = (message: ActivityEventV1): message is KnownActivityMessage =>
  KNOWN_ACTIVITY_KINDS.has(message.activity.kind);

function kindOf(value: unknown): string | undefined {
  const kind = (value as { kind?: unknown } | null | undefined)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

export interface ConsumeOptions {
  brokers: readonly string[];
  /** The deployment's topic prefix (TOPIC_PREFIX of the explorer), e.g. `staging.`. */
  topicPrefix?: string;
  /** This consumer's group: its committed position survives restarts. */
  groupId: string;
  /** Default: only the block topic. */
  topics?: readonly TopicKind[];
  /** Where a group without a committed position starts. Default: the beginning. */
  fromBeginning?: boolean;
  /** Stop after this many messages (over all topics); 0 or unset: run until the signal. */
  maxMessages?: number;
  signal?: AbortSignal;
  schemaDir?: URL;
  /** Called with each message after it validated, before its offset may be committed. */
  onMessage?: (message: ConsumedMessage) => void | Promise<void>;
  /** Called with each message skipped as of an unknown kind (its offset is committed too). */
  onSkip?: (message: SkippedMessage) => void | Promise<void>;
  /** Receives one line per block and per activity. Default: stdout. */
  print?: (line: string) => void;
}

export interface ConsumeResult {
  /** Messages handled, the skipped ones included. */
  messages: number;
  blocks: number;
  states: number;
  activities: number;
  /** Valid messages of a kind this example does not know. */
  skipped: number;
  stoppedBy: 'max-messages' | 'signal';
}

/**
 * Consumes until `maxMessages` messages were handled or `signal` aborts; rejects with a
 * ContractViolation at the first message that breaks the contract. Offsets are committed only for
 * handled messages.
 */
export async function consume(options: ConsumeOptions): Promise<ConsumeResult> {
  const validators = await loadValidators(options.schemaDir);
  const prefix = options.topicPrefix ?? '';
  const kinds = new Map<string, TopicKind>((options.topics ?? ['blocks']).map((k) => [`${prefix}${TOPICS[k]}`, k]));
  const maxMessages = options.maxMessages ?? 0;
  const print = options.print ?? ((line: string) => console.log(line));
  const counts = { messages: 0, blocks: 0, states: 0, activities: 0, skipped: 0 };

  let stopped = false;
  let settle!: { resolve: (by: ConsumeResult['stoppedBy']) => void; reject: (error: unknown) => void };
  const finished = new Promise<ConsumeResult['stoppedBy']>((resolve, reject) => (settle = { resolve, reject }));
  const stop = (outcome: { by: ConsumeResult['stoppedBy'] } | { error: unknown }): void => {
    if (stopped) return;
    stopped = true;
    if ('error' in outcome) settle.reject(outcome.error);
    else settle.resolve(outcome.by);
  };
  const onAbort = (): void => stop({ by: 'signal' });
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const kafka = new Kafka({
    clientId: 'mtc-topic-consumer-example',
    brokers: [...options.brokers],
    logLevel: logLevel.WARN,
  });
  const consumer = kafka.consumer({ groupId: options.groupId, allowAutoTopicCreation: false });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) stop({ error: payload.error });
  });

  const decode = (topic: string, partition: number, message: KafkaMessage): ConsumedMessage | SkippedMessage => {
    const kind = kinds.get(topic);
    if (!kind) throw new ContractViolation(`${topic}[${partition}]@${message.offset}: not a subscribed topic`);
    const where = { topic, partition, offset: message.offset, key: message.key?.toString('utf8') ?? '' };
    return decodeValue(validators, kind, where, message.value?.toString('utf8') ?? '');
  };

  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...kinds.keys()], fromBeginning: options.fromBeginning ?? true });
    if (options.signal?.aborted) onAbort();
    await consumer.run({
      // Offsets are resolved one by one, after a message was handled, and committed after each
      // batch and on disconnect: a message that failed, or came after the stop, stays uncommitted.
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const { batch } = payload;
        for (const message of batch.messages) {
          if (stopped || !payload.isRunning() || payload.isStale()) return;
          try {
            const consumed = decode(batch.topic, batch.partition, message);
            switch (consumed.kind) {
              case 'skipped':
                await options.onSkip?.(consumed);
                counts.skipped++;
                break;
              case 'blocks':
                await options.onMessage?.(consumed);
                counts.blocks++;
                print(formatBlock(consumed.value));
                break;
              case 'state':
                await options.onMessage?.(consumed);
                counts.states++;
                break;
              case 'activity':
                await options.onMessage?.(consumed);
                counts.activities++;
                print(formatActivity(consumed.value));
                break;
            }
          } catch (error) {
            stop({ error });
            return;
          }
          payload.resolveOffset(message.offset);
          counts.messages++;
          if (maxMessages > 0 && counts.messages >= maxMessages) {
            stop({ by: 'max-messages' });
            return;
          }
          await payload.heartbeat();
        }
      },
    });
    // Never disconnect inside eachBatch: the disconnect waits for the batch in hand to finish.
    const stoppedBy = await finished;
    return { ...counts, stoppedBy };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await consumer.disconnect();
  }
}

/** `block 42  2025-06-01T09:30:00Z  3 txs  transfer MTa1b2c3…→MTe5f6a7… 1000 [0]; …; +1 more` */
export function formatBlock(block: BlockEventV3): string {
  const time = new Date(block.timestamp * 1000).toISOString().replace('.000Z', 'Z');
  const shown = block.txs.slice(0, 3).map((tx) => {
    const { type, from, to, amount, token } = tx.summary;
    const parties =
      from && to ? `${short(from)}→${short(to)}` : from ? `from ${short(from)}` : to ? `to ${short(to)}` : '';
    const value = amount === '0' ? '' : `${amount}${token ? ` [${token}]` : ''}`;
    return [type || '?', parties, value, tx.valid ? '' : '(invalid)'].filter(Boolean).join(' ');
  });
  const more = block.txs.length > shown.length ? `; +${block.txs.length - shown.length} more` : '';
  const txs = `${block.txs.length} tx${block.txs.length === 1 ? '' : 's'}`;
  return `block ${block.height}  ${time}  ${txs}${shown.length > 0 ? `  ${shown.join('; ')}${more}` : ''}`;
}

/** `activity 000000000042:000001:000000  transfer [0] MTa1b2c3…→MTe5f6a7… 1000` */
export function formatActivity(message: KnownActivityMessage): string {
  const { activity } = message;
  const parts = ['activity', message.pos, '', activity.kind];
  // Each kind has its own fields: these are printed by the kinds that have them.
  if ('tokenId' in activity) parts.push(`[${activity.tokenId}]`);
  if ('from' in activity && 'to' in activity && activity.from && activity.to)
    parts.push(`${short(activity.from)}→${short(activity.to)}`);
  if ('amount' in activity && activity.amount && activity.amount !== '0') parts.push(activity.amount);
  return parts.join(' ');
}

/** Amounts are integer strings in the smallest unit; addresses are shortened for the terminal. */
const short = (address: string): string => (address.length > 12 ? `${address.slice(0, 10)}…` : address);

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}

/** Raw environment → typed settings; no silent defaults for where Kafka is. */
const Env = z.object({
  KAFKA_BROKERS: z
    .string({ error: 'KAFKA_BROKERS is required, e.g. 127.0.0.1:9092' })
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1)),
  TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/)
    .default(''),
  GROUP_ID: z.string().min(1).default('mtc-topic-consumer-example'),
  /** A comma-separated list of `blocks`, `state`, `activity`. */
  TOPICS: z
    .string()
    .default('blocks')
    .transform((s) => s.split(',').map((t) => t.trim()))
    .pipe(z.array(z.enum(['blocks', 'state', 'activity'])).min(1)),
  FROM_BEGINNING: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  MAX_MESSAGES: z.coerce.number().int().nonnegative().default(0),
});

async function main(): Promise<void> {
  const parsed = Env.safeParse(process.env);
  if (!parsed.success) {
    console.error(`consume: invalid configuration\n${z.prettifyError(parsed.error)}`);
    process.exit(1);
  }
  const env = parsed.data;
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
  try {
    const result = await consume({
      brokers: env.KAFKA_BROKERS,
      topicPrefix: env.TOPIC_PREFIX,
      groupId: env.GROUP_ID,
      topics: env.TOPICS,
      fromBeginning: env.FROM_BEGINNING,
      maxMessages: env.MAX_MESSAGES,
      signal: controller.signal,
    });
    console.error(
      `consumed ${result.messages} messages (${result.blocks} blocks, ${result.states} state writes, ` +
        `${result.activities} activities, ${result.skipped} skipped as of an unknown kind), ` +
        `all valid; stopped by ${result.stoppedBy}`,
    );
  } catch (error) {
    console.error(`consume: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

if (import.meta.main) await main();
