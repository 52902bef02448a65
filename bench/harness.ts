import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterConfigSchema, openReadStore } from '@mtc/adapters';
import { freePort, readEnvFile } from '@mtc/runtime';
import type { SectionResult } from './section.ts';
import { printTable } from './support.ts';

export { freePort };

/**
 * What the backfill and freshness benchmarks share: child processes, their memory, deadlines, and
 * printing a section standalone.
 *
 * Child processes Each is started in a process group of
 * its own (`detached`), so stopping it stops everything it started too (start-distributed's
 * services, say), and nothing outlives the benchmark: a clean stop, a timeout and this process
 * exiting all end the whole group.
 */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NODE_ARGS = ['--disable-warning=ExperimentalWarning', '--disable-warning=TimeoutNegativeWarning'];

export interface Child {
  name: string;
  child: ChildProcess;
  pid: number;
  /** The first and the last 16 KiB of its output: how it started and why it stopped. */
  output(): string;
  exited: Promise<number | null>;
  /** Whether it has exited already. */
  gone(): boolean;
}

const running = new Set<Child>();
let exitHooked = false;

export interface LaunchOptions {
  /** Called with every complete line of stdout and stderr. */
  onLine?: (line: string) => void;
  /** An IPC channel too (for `process.send` in the child). */
  ipc?: boolean;
  /** Arguments for node before the script (default NODE_ARGS). */
  execArgv?: readonly string[];
}

/** Runs `node <execArgv> <args>` in ROOT with exactly `env` (undefined values left out). */
export function launch(
  name: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  options: LaunchOptions = {},
): Child {
  const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const child = spawn(process.execPath, [...(options.execArgv ?? NODE_ARGS), ...args], {
    cwd: ROOT,
    env: clean,
    detached: true,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: could not be started`);
  let head = '';
  let tail = '';
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (head.length < 16_384) head += text;
      else tail = (tail + text).slice(-16_384);
      if (!options.onLine) return;
      const lines = (rest + text).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
    });
  }
  let exited = false;
  const started: Child = {
    name,
    child,
    pid,
    output: () => head + tail,
    exited: new Promise((resolve) =>
      child.once('exit', (code) => {
        exited = true;
        resolve(code);
      }),
    ),
    gone: () => exited,
  };
  running.add(started);
  void started.exited.then(() => running.delete(started));
  if (!exitHooked) process.on('exit', killAllNow);
  exitHooked = true;
  return started;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * SIGTERM to the child's whole group (a clean shutdown), SIGKILL to what is left after `graceMs`.
 * The group is signalled even when the child itself has exited: its own children may not have.
 */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  signalGroup(child.pid, 'SIGTERM');
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
  await Promise.race([child.exited, late]);
  signalGroup(child.pid, 'SIGKILL');
  await child.exited;
}

/** This process is ending (a crash, a timeout, Ctrl-C): nothing it started may outlive it. */
export function killAllNow(): void {
  for (const child of running) signalGroup(child.pid, 'SIGKILL');
}

/** Stops every child on Ctrl-C or SIGTERM of a standalone run (detached children miss the terminal's signal). */
export function killChildrenOnSignal(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      killAllNow();
      process.exit(130);
    });
}

/** Whether nothing listens on `port` of 127.0.0.1 yet. */
export async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A `/proc/<pid>/status` field in MiB (VmRSS: now; VmHWM: the peak so far), undefined once gone. */
export function statusMB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Peak resident memory of another process while this runs, sampled every `everyMs`. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = 0;
  const take = (): void => {
    peak = Math.max(peak, statusMB(pid, 'VmRSS') ?? 0);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/**
 * Runs `work`, and if it has not settled within `ms`, kills every child and rejects: a section must
 * end by itself. `work` gets a signal that aborts at the deadline, for loops that should stop.
 */
export async function withDeadline<T>(what: string, ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      killAllNow();
      reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`));
    }, ms);
  });
  try {
    return await Promise.race([work(abort.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A name unique to this run, usable as a topic prefix, database name, key prefix and group. */
export function runId(label: string): string {
  return `${label}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** The MongoDB to use: a faster stand-in (MONGO_JAVA_URL, else another MONGO_<X>_URL) before MONGO_URL. */
export function pickMongo(infra: Record<string, string>): { key: string; url: string } | undefined {
  const keys = Object.keys(infra).filter((k) => /^MONGO_\w+_URL$/.test(k) && infra[k]);
  const key = keys.includes('MONGO_JAVA_URL') ? 'MONGO_JAVA_URL' : (keys[0] ?? 'MONGO_URL');
  const url = infra[key];
  return url ? { key, url } : undefined;
}

/** The fixed ops ports scripts/start-distributed.ts gives follower, projectors (2) and API. */
export const DISTRIBUTED_OPS_PORTS = [9101, 9102, 9103, 9120];

/** One bench run of scripts/start-distributed.ts on the servers of .infra/env, under names of its own. */
export interface DistributedRun {
  run: string;
  mongo: { key: string; url: string };
  infra: Record<string, string>;
  /** The stack's environment: this process's, the servers, and the run's topic prefix, database, key prefix and groups. */
  env: Record<string, string | undefined>;
}

/**
 * The environment for a start-distributed stack of this run, or why there can be none: .infra/env
 * lacks a server, or another stack holds the fixed ops ports (a second one would crash-loop).
 */
export async function distributedRun(
  label: string,
  extra: Record<string, string>,
): Promise<DistributedRun | { skipped: string }> {
  const infra = readEnvFile(join(ROOT, '.infra/env'));
  const mongo = pickMongo(infra);
  const missing = ['KAFKA_BROKERS', 'REDIS_URL'].filter((k) => !infra[k]);
  if (!mongo || missing.length > 0)
    return { skipped: `.infra/env lacks ${[...missing, ...(mongo ? [] : ['MONGO_URL'])].join(', ')}` };
  const busy = [];
  for (const port of DISTRIBUTED_OPS_PORTS) if (!(await portFree(port))) busy.push(port);
  if (busy.length > 0) return { skipped: `ops port ${busy.join(', ')} in use (another start-distributed running?)` };
  const run = runId(label);
  const env: Record<string, string | undefined> = {
    ...process.env,
    KAFKA_BROKERS: infra['KAFKA_BROKERS'],
    MONGO_URL: mongo.url,
    REDIS_URL: infra['REDIS_URL'],
    TOPIC_PREFIX: `${run}.`,
    MONGO_DATABASE: run,
    REDIS_PREFIX: `${run}:`,
    PROJECTOR_GROUP: `${run}-projector`,
    KAFKA_CLIENT_ID: run,
    ...extra,
  };
  delete env['CHAIN_NODE_URL'];
  return { run, mongo, infra, env };
}

/** Drops a distributed run's database; its topics and counter keys stay until the servers are reset. */
export async function dropRunDatabase(run: DistributedRun): Promise<void> {
  const store = await openReadStore(
    AdapterConfigSchema.parse({ MONGO_URL: run.mongo.url, MONGO_DATABASE: run.run }),
  ).catch(() => undefined);
  await store?.drop().catch(() => {});
  await store?.close().catch(() => {});
}

/** A section's rows as a table, then its notes: what a standalone run prints. */
export function printSection(result: SectionResult): void {
  printTable(
    ['measure', 'value', 'unit', 'ceiling', 'ratio', 'target', 'met'],
    result.rows.map((r) => [
      r.name,
      r.value,
      r.unit,
      r.ceiling ?? '',
      r.ratio ?? '',
      r.target ?? '',
      r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    ]),
  );
  for (const note of result.notes) console.log(`- ${note}`);
}

/**
 * The environment of an all-in-one explorer (`npm start`'s process) on embedded adapters and its
 * built-in devnet with a history of `blocks` and no live blocks, serving on `port`: the caller's
 * environment without any server address (Kafka, MongoDB, Redis), plus `extra`.
 */
export async function embeddedExplorerEnv(
  blocks: number,
  dataDir: string,
  port: number,
  extra: Record<string, string> = {},
): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(await freePort()),
    DEVNET_HISTORY_BLOCKS: String(blocks),
    DEVNET_BLOCK_INTERVAL_MS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  };
  for (const key of ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL']) delete env[key];
  return env;
}
