import { join } from 'node:path';
import { AdapterConfigSchema, createSqliteReadStore, openEventLog } from '@mtc/adapters';
import { BlockEvent, TOPICS } from '@mtc/domain';
import type { EventLog, ReadStore } from '@mtc/ports';
import { DEFAULT_PROJECTOR_GROUP, projectorLag, totalLag } from '@mtc/projector';
import { dumpReadModels, openModels, type ReadModelDump } from '@mtc/read-models';
import { spawnService, waitForOutput, type ServiceProcess } from '../../support/service-process.ts';

/** Embedded adapters (file log, SQLite) in DATA_DIR, whatever servers this process has configured. */
export const EMBEDDED = { KAFKA_BROKERS: undefined, MONGO_URL: undefined, REDIS_URL: undefined };

/** The follower service (`services/follower/src/main.ts`) as a child process, with its ops URL. */
export interface FollowerProcess extends ServiceProcess {
  opsUrl: string;
}

/** Starts the follower on the file log in `env.DATA_DIR`; resolves once its ops server listens. */
export async function spawnFollower(env: Record<string, string>): Promise<FollowerProcess> {
  const service = spawnService('services/follower/src/main.ts', {
    ...EMBEDDED,
    OPS_PORT: '0',
    LOG_LEVEL: 'info',
    ...env,
  });
  const [, opsUrl] = await waitForOutput(service, /"ops":"(http:\/\/[^"]+)"[^\n]*"msg":"follower started"/);
  return { ...service, opsUrl: opsUrl! };
}

/** Starts a projector service on the file log and SQLite store in `env.DATA_DIR`. */
export function spawnProjector(env: Record<string, string>): ServiceProcess {
  return spawnService('services/projector/src/main.ts', { ...EMBEDDED, OPS_PORT: '0', ...env });
}

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads `/metrics` of an ops server. */
export async function scrape(opsUrl: string): Promise<Sample[]> {
  const res = await fetch(`${opsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of `name` whose labels include `labels`; undefined when there is none. */
export function metric(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

/** `/readyz` of an ops server: its status and JSON body. */
export async function readyz(opsUrl: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** How far the embedded pipeline in a data directory got, read beside its processes. */
export interface PipelineProgress {
  /** Newest block on the file log's block topic. */
  published: number;
  /** Records of both projector subscriptions not yet committed by the default group. */
  lag: number;
  /** The read models' indexed head (read once `lag` is 0; 0 before). */
  head: number;
}

/** Opens the file log and SQLite store of `dataDir` to watch an embedded pipeline and dump its read models. */
export async function watchPipeline(dataDir: string): Promise<{
  progress(): Promise<PipelineProgress>;
  dump(): Promise<ReadModelDump>;
  close(): Promise<void>;
}> {
  const log: EventLog = await openEventLog(AdapterConfigSchema.parse({ DATA_DIR: dataDir }));
  let store: ReadStore | undefined;
  // The projector creates the store; open it once it exists.
  const opened = (): ReadStore => (store ??= createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') }));
  return {
    async progress() {
      const last = await log.lastValue(TOPICS.blocks);
      const published = last == null ? 0 : BlockEvent.parse(last).height;
      const lag = totalLag(await projectorLag(log, TOPICS, DEFAULT_PROJECTOR_GROUP));
      // The store only once the projector has it all: fewer reads beside its writes.
      const head = published === 0 || lag > 0 ? 0 : ((await openModels(opened()).head.get('indexed'))?.height ?? 0);
      return { published, lag, head };
    },
    dump: () => dumpReadModels(opened()),
    async close() {
      await store?.close();
      await log.close();
    },
  };
}
