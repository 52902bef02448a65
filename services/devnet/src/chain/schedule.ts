import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createDevnet, type Devnet } from './devnet.ts';
import { z } from 'zod';

/**
 * The devnet's chain is a pure function of its schedule: a seed, the history's start and spacing,
 * and the live block interval. The schedule is saved in the data directory on first start, so a
 * restart rebuilds exactly the chain the index already holds and then cuts the blocks that fell due
 * while it was down: the follower sees one continuous chain.
 */
const Schedule = z.object({
  seed: z.number().int(),
  genesisTime: z.number().int(),
  historyBlocks: z.number().int().positive(),
  historyIntervalSec: z.number().int().positive(),
  liveIntervalMs: z.number().int().nonnegative(),
});
type Schedule = z.infer<typeof Schedule>;

export interface DevnetClock {
  devnet: Devnet;
  schedule: Schedule;
  /** Cuts every block due by `nowMs`; returns how many were cut. */
  catchUp(nowMs: number): number;
  /** Cuts blocks as they fall due on the wall clock until the returned stop is called. */
  startLive(): () => void;
}

export async function openDevnet(
  file: string,
  wanted: { seed: number; historyBlocks: number; historyDays: number; liveIntervalMs: number },
  nowMs: number,
): Promise<DevnetClock> {
  const schedule = await loadOrCreate(file, wanted, nowMs);
  const devnet = createDevnet({
    seed: schedule.seed,
    genesisTime: schedule.genesisTime,
    historyBlocks: schedule.historyBlocks,
    blockIntervalSec: schedule.historyIntervalSec,
  });
  const liveStartMs = devnet.block(devnet.height())!.timestamp * 1000;
  let live = 0;
  const catchUp = (now: number): number => {
    if (schedule.liveIntervalMs === 0) return 0;
    const due = Math.floor((now - liveStartMs) / schedule.liveIntervalMs);
    let cut = 0;
    while (live < due) {
      live++;
      devnet.cutBlock(Math.floor((liveStartMs + live * schedule.liveIntervalMs) / 1000));
      cut++;
    }
    return cut;
  };
  catchUp(nowMs);
  const startLive = (): (() => void) => {
    if (schedule.liveIntervalMs === 0) return () => {};
    const timer = setInterval(() => catchUp(Date.now()), Math.min(schedule.liveIntervalMs, 1000));
    return () => clearInterval(timer);
  };
  return { devnet, schedule, catchUp, startLive };
}

async function loadOrCreate(
  file: string,
  wanted: { seed: number; historyBlocks: number; historyDays: number; liveIntervalMs: number },
  nowMs: number,
): Promise<Schedule> {
  let saved: Schedule | undefined;
  try {
    saved = Schedule.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (saved) {
    const differs = saved.seed !== wanted.seed || saved.liveIntervalMs !== wanted.liveIntervalMs;
    if (differs)
      throw new Error(
        `${file} holds a devnet with seed ${saved.seed} and block interval ${saved.liveIntervalMs} ms; ` +
          'use the same settings, or remove the data directory to start a new chain',
      );
    return saved;
  }
  const historyIntervalSec = Math.max(1, Math.floor((wanted.historyDays * 86_400) / wanted.historyBlocks));
  // Block gaps are random around the interval: measure the history's real span once, so that it
  // ends now rather than somewhere near now (perhaps in the future).
  const probe = createDevnet({
    seed: wanted.seed,
    genesisTime: 0,
    historyBlocks: wanted.historyBlocks,
    blockIntervalSec: historyIntervalSec,
  });
  const span = probe.block(probe.height())!.timestamp;
  const schedule: Schedule = {
    seed: wanted.seed,
    genesisTime: Math.floor(nowMs / 1000) - span,
    historyBlocks: wanted.historyBlocks,
    historyIntervalSec,
    liveIntervalMs: wanted.liveIntervalMs,
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(schedule, null, 2)}\n`);
  return schedule;
}
