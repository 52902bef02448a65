import { randomInt } from 'node:crypto';
import { DEFAULT_JOBS, type Devnet } from '@mtc/devnet';
import type { ReadStore } from '@mtc/ports';
import { dumpReadModels, openModels, type ReadModelDump } from '@mtc/read-models';
import { waitFor } from '../../support/explorer-process.ts';
import { validEntries } from '../../support/fungible-truth.ts';
import type { ServiceProcess } from '../../support/service-process.ts';

/**
 * What the fault tests share: a seeded random source (the seed is printed, and `FAULT_SEED` replays
 * a run), the structured lines a service logged, and a printed record of every fault injected.
 */
export interface Rng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
}

export function faultRng(test: string): Rng {
  const given = process.env['FAULT_SEED'];
  const seed = given ? Number(given) : randomInt(1, 2 ** 31);
  console.log(`[${test}] FAULT_SEED=${seed} (set it to replay this run's fault points)`);
  // mulberry32: small, fast, good enough to place faults.
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    seed,
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as never,
  };
}

/** `count` increasing integers in [from, to], one drawn in each of `count` equal slices of it. */
export function spreadTargets(rng: Rng, count: number, from: number, to: number): number[] {
  const width = (to - from + 1) / count;
  return Array.from({ length: count }, (_, i) => {
    const lo = Math.ceil(from + i * width);
    const hi = Math.max(lo, Math.floor(from + (i + 1) * width) - 1);
    return rng.int(lo, hi);
  });
}

export type LogLine = Record<string, unknown> & { msg?: string };

/** The pino JSON lines a service printed (from output offset `since`), optionally only those with `msg`. */
export function logLines(service: ServiceProcess, msg?: string, since = 0): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of service.output().slice(since).split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      const line = JSON.parse(text) as LogLine;
      if (msg === undefined || line.msg === msg) lines.push(line);
    } catch {
      // a line still being written, or not ours
    }
  }
  return lines;
}

/**
 * The first line `service` logs with `msg` (after output offset `since`), or null once the service
 * has exited without logging it.
 */
export async function loggedOrExited(
  service: ServiceProcess,
  msg: string,
  since = 0,
  timeoutMs = 120_000,
): Promise<LogLine | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logLines(service, msg, since)[0];
    if (line) return line;
    if (service.child.exitCode !== null || service.child.signalCode !== null)
      return logLines(service, msg, since)[0] ?? null;
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${msg}":\n${service.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One injected fault and what the restart proved, printed as a table at the end of a test. */
export interface FaultRecord {
  target: string;
  fault: string;
  /** Where the target stood when it died (its checkpoint). */
  at: string;
  /** What the restarted target resumed from. */
  resumed: string;
}

export function printFaults(test: string, faults: readonly FaultRecord[]): void {
  console.log(`[${test}] ${faults.length} faults injected:`);
  console.table(faults);
}

/**
 * The read models of a run once it is done: its head at `height`, then two dumps two seconds apart
 * alike (the state topic is projected alongside the block topic and may trail it). Polls the head,
 * not the dump, while waiting: a dump is a full read.
 */
export async function settledDump(store: ReadStore, height: number, what: string): Promise<ReadModelDump> {
  await waitFor(
    `${what} to reach the node head`,
    async () => ((await openModels(store).head.get('indexed'))?.height === height ? true : undefined),
    600_000,
    500,
  );
  let last = await dumpReadModels(store);
  return waitFor(
    `${what} to settle`,
    async () => {
      await new Promise((r) => setTimeout(r, 2000));
      const next = await dumpReadModels(store);
      const settled = next.sha256 === last.sha256;
      last = next;
      return settled ? next : undefined;
    },
    300_000,
    0,
  );
}

/** The job types of every family the devnet runs that its valid history never wrote (none, for a fault test's history). */
export function unwrittenJobTypes(devnet: Devnet): string[] {
  const seen = new Set([...validEntries(devnet)].map(({ entry }) => entry.type));
  return [...new Set(DEFAULT_JOBS.flatMap((j) => j.writes))].filter((t) => !seen.has(t));
}

/**
 * Polls `check` until it returns a value; runs `alive` first each time (it throws when a service
 * exited, failing at once), else fails after `timeoutMs`, with the last error `check` threw and
 * what `context` adds (the services' recent logs, say).
 */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs: number; everyMs: number; alive: () => void; context?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    options.alive();
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const extra = options.context ? `\n${options.context()}` : '';
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}${extra}`);
    }
    await new Promise((r) => setTimeout(r, options.everyMs));
  }
}
