import { readFileSync } from 'node:fs';
import { AdapterConfigSchema, openCounters, openEventLog, openReadStore, topicsOf } from '@mtc/adapters';
import type { AnyDoc, Write } from '@mtc/ports';
import { createProjector, projectorLag, totalLag } from '@mtc/projector';
import { COLLECTION_SPECS } from '@mtc/read-models';
import { silentLogger } from '@mtc/runtime';

/**
 * One replay in a process of its own, so its peak RSS is the projector's and nothing else's:
 * `node bench/replay-child.ts '<json job>'`. Rebuilds fresh read models from the log (as `npm run
 * rebuild` does, with a new consumer group) and, for the ceiling, bulk-puts the same number of
 * documents of the same mean size into a fresh collection of the same store. Prints one JSON line.
 */
export interface ReplayJob {
  /** Adapter settings (DATA_DIR, KAFKA_BROKERS, MONGO_URL, REDIS_URL, prefixes …). */
  env: Record<string, string>;
  group: string;
  maxBatch: number;
  timeoutMs: number;
}

export interface ReplayResult {
  replayMs: number;
  /** CPU time of the replay (all threads): steadier than wall time on a busy machine. */
  replayCpuMs: number;
  docs: number;
  docBytes: number;
  ceilingMs: number;
  peakRssMB: number;
}

const CEILING_CHUNK = 500;
const SAMPLE = 2_000;

/** The process's peak resident set so far (Linux keeps it: VmHWM). */
export function peakRssMB(pid: number | 'self' = 'self'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

if (import.meta.main) {
  const job = JSON.parse(process.argv[2] ?? '{}') as ReplayJob;
  setTimeout(() => {
    console.error(`replay did not finish within ${job.timeoutMs} ms`);
    process.exit(1);
  }, job.timeoutMs).unref();
  const config = AdapterConfigSchema.parse(job.env);
  const logger = silentLogger();
  const log = await openEventLog(config, logger);
  const store = await openReadStore(config);
  const counters = await openCounters(config);
  const topics = topicsOf(config);
  const abort = new AbortController();

  const started = performance.now();
  const cpu = process.cpuUsage();
  const projection = await createProjector({
    log,
    store,
    counters,
    logger,
    signal: abort.signal,
    topics,
    options: { statsUtcOffsetMinutes: 0, group: job.group, maxBatch: job.maxBatch },
  }).start();
  let failed: Error | undefined;
  projection.done.catch((error: unknown) => (failed = error instanceof Error ? error : new Error(String(error))));
  while (totalLag(await projectorLag(log, topics, job.group)) > 0) {
    if (failed) throw failed;
    await new Promise((r) => setTimeout(r, 20));
  }
  const replayMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const replayCpuMs = (used.user + used.system) / 1000;
  const replayPeak = peakRssMB();
  abort.abort();
  await projection.stop();

  // What the replay built: documents per read model, and their mean JSON size from a sample.
  let docs = 0;
  let docBytes = 0;
  for (const { name } of COLLECTION_SPECS) {
    const count = await store.collection(name).count();
    const sample = await store.collection(name).find({}, { limit: SAMPLE });
    const mean = sample.reduce((sum, d) => sum + JSON.stringify(d).length, 0) / Math.max(sample.length, 1);
    docs += count;
    docBytes += count * mean;
  }

  // Ceiling: the same number of documents of the same mean size, plain puts in chunks.
  const filler = 'x'.repeat(Math.max(0, Math.round(docBytes / Math.max(docs, 1)) - 40));
  const ceilingStarted = performance.now();
  for (let i = 0; i < docs; i += CEILING_CHUNK) {
    const chunk: Write[] = [];
    for (let j = i; j < Math.min(docs, i + CEILING_CHUNK); j++) {
      const doc: AnyDoc = { _id: `c${j}`, seq: j, filler };
      chunk.push({ op: 'put', collection: 'bench_ceiling', doc });
    }
    await store.write(chunk);
  }
  const ceilingMs = performance.now() - ceilingStarted;

  // The run's database goes (an in-memory stand-in would keep every run's documents on its heap).
  if (job.env['MONGO_URL']) await store.drop();
  await Promise.all([store.close(), counters.close(), log.close()]);
  const result: ReplayResult = { replayMs, replayCpuMs, docs, docBytes, ceilingMs, peakRssMB: replayPeak };
  console.log(JSON.stringify(result));
  process.exit(0);
}
