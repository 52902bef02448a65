import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import type { Job } from '../jobs/job.ts';
import { LEGACY_JOBS } from '../families/mrc010/legacy/registry.ts';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { createDevnet, historyClock, type Devnet } from './devnet.ts';
import { DevnetOptionsSchema, MAX_TXS_PER_BLOCK, type DevnetOptions } from './options.ts';

/**
 * The version of the generation logic. Bump it with every change that makes the same schedule give
 * another chain and that the job fingerprint below does not see: block and transaction mix, clocks,
 * planners and pickers, chaincode ports, the bridge's and node's reshaping, ids.
 * 1: no fingerprints. 2: legacy era, client clocks, skewed activity. 3: history gaps from a stream
 * of their own. 4: a v2.3 era (CC-m) before the current chaincode. 5: clients go for what the chain
 * has not seen yet (jobs/job.ts `wants`, families/dex/auctions.ts); the NFT families join the job set.
 */
export const GENERATOR_VERSION = 5;

/**
 * What a schedule's chain also depends on besides the schedule: the generator version, and every
 * job (fcn, weight, the job types it writes and leads to) of the current and the legacy job sets,
 * plus the generation defaults the schedule does not pin. Saved with the schedule and compared on
 * start.
 */
export interface GeneratorFingerprint {
  version: number;
  /** sha256 over `jobs`. */
  hash: string;
  /** One line per job and default, e.g. `current transfer weight=55 writes=transfer,receive`. */
  jobs: string[];
}

export function generatorFingerprint(
  jobSets: { current: readonly Job[]; legacy: readonly Job[] } = { current: DEFAULT_JOBS, legacy: LEGACY_JOBS },
  version = GENERATOR_VERSION,
): GeneratorFingerprint {
  const defaults = DevnetOptionsSchema.parse({ seed: 0, genesisTime: 0, historyBlocks: 0, blockIntervalSec: 0 });
  const line = (set: string, j: Job) =>
    `${set} ${j.fcn} weight=${j.weight} writes=${j.writes.join(',')}` +
    (j.outcomes ? ` outcomes=${j.outcomes.join(',')}` : '');
  const jobs = [
    ...jobSets.current.map((j) => line('current', j)),
    ...jobSets.legacy.map((j) => line('legacy', j)),
    `defaults wallets=${defaults.wallets} invalidTxRate=${defaults.invalidTxRate} emptyBlockRate=${defaults.emptyBlockRate} legacyShare=${defaults.legacyShare}`,
  ];
  return { version, hash: createHash('sha256').update(jobs.join('\n')).digest('hex'), jobs };
}

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
  /** Mean transactions a block aims for; absent: the built-in mix (and in every file written before it). */
  txsPerBlock: z.number().min(1).max(MAX_TXS_PER_BLOCK).optional(),
  /** Where NFT image URLs point (options.ts imageOrigin); absent: the default origin. */
  imageOrigin: z.string().optional(),
  /** Absent in files written before fingerprints: such a file is refused like a mismatch. */
  generator: z.object({ version: z.number().int(), hash: z.string(), jobs: z.array(z.string()) }).optional(),
});
type Schedule = z.infer<typeof Schedule>;

/** What a caller asks openDevnet for; a saved schedule must agree on seed, interval and txsPerBlock. */
export interface WantedDevnet {
  seed: number;
  historyBlocks: number;
  historyDays: number;
  liveIntervalMs: number;
  /** Mean transactions a block aims for (options.ts); unset: the built-in mix. */
  txsPerBlock?: number;
  /** Where the history's files go; default: `<schedule file's name>-history/` beside it. */
  historyDir?: string;
  /**
   * Origin of NFT image URLs for a new chain (options.ts). A saved schedule keeps its own: the URLs
   * are part of the chain; serve the images there (`imageOriginPort`).
   */
  imageOrigin?: string;
}

export interface DevnetClock {
  /** Keeps its history in files (WantedDevnet.historyDir): close it when done. */
  devnet: Devnet;
  schedule: Schedule;
  /** Cuts every block due by `nowMs`; returns how many were cut. */
  catchUp(nowMs: number): number;
  /** Cuts blocks as they fall due on the wall clock until the returned stop is called. */
  startLive(): () => void;
}

/**
 * Opens the devnet whose schedule `file` holds, or starts one and saves its schedule there. Refuses a
 * file written with another seed, block interval or txsPerBlock, or by another generator (version
 * or job set), since it would serve a different chain than the one an index already holds.
 *
 * The history is regenerated from the schedule on every start (the world state it leaves behind is
 * needed anyway, and only replaying the blocks rebuilds it) and written to files afresh in the
 * history directory: files from an earlier start are replaced, never trusted.
 */
export async function openDevnet(
  file: string,
  wanted: WantedDevnet,
  nowMs: number,
  generator: GeneratorFingerprint = generatorFingerprint(),
): Promise<DevnetClock> {
  const schedule = await loadOrCreate(file, wanted, nowMs, generator);
  const devnet = createDevnet({ ...devnetOptions(schedule), historyDir: wanted.historyDir ?? historyDirBeside(file) });
  // Block timestamps are client times; the schedule runs on the peers' clock.
  const liveStartMs = devnet.clock() * 1000;
  let live = 0;
  const catchUp = (now: number): number => {
    if (schedule.liveIntervalMs === 0) return 0;
    const due = Math.floor((now - liveStartMs) / schedule.liveIntervalMs);
    const from = live;
    while (live < due) {
      live++;
      devnet.cutBlock(Math.floor((liveStartMs + live * schedule.liveIntervalMs) / 1000));
    }
    return live - from;
  };
  catchUp(nowMs);
  const startLive = (): (() => void) => {
    if (schedule.liveIntervalMs === 0) return () => {};
    const timer = setInterval(() => catchUp(Date.now()), Math.min(schedule.liveIntervalMs, 1000));
    return () => clearInterval(timer);
  };
  return { devnet, schedule, catchUp, startLive };
}

/**
 * The port a schedule's NFT image URLs name, when they point at this machine (a loopback origin):
 * the devnet must listen there for the images to resolve. Null for another host or no origin.
 */
export function imageOriginPort(schedule: Schedule): number | null {
  if (schedule.imageOrigin === undefined) return null;
  const url = new URL(schedule.imageOrigin);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return null;
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** `DATA_DIR/devnet.json` → `DATA_DIR/devnet-history`. */
export function historyDirBeside(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}-history`);
}

async function loadOrCreate(
  file: string,
  wanted: WantedDevnet,
  nowMs: number,
  generator: GeneratorFingerprint,
): Promise<Schedule> {
  let saved: Schedule | undefined;
  try {
    saved = Schedule.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (saved) {
    const differs =
      saved.seed !== wanted.seed ||
      saved.liveIntervalMs !== wanted.liveIntervalMs ||
      saved.txsPerBlock !== wanted.txsPerBlock;
    if (differs)
      throw new Error(
        `${file} holds a devnet with seed ${saved.seed}, block interval ${saved.liveIntervalMs} ms and ` +
          `${saved.txsPerBlock === undefined ? 'the built-in transactions per block' : `${saved.txsPerBlock} transactions per block`}; ` +
          'use the same settings, or remove the data directory to start a new chain',
      );
    const mismatch = generatorMismatch(saved.generator, generator);
    if (mismatch)
      throw new Error(
        `${file} holds a devnet chain made by another generator (${mismatch}); it would rebuild a different ` +
          `chain than the one already served and indexed. Remove the data directory ${dirname(file)} (and ` +
          'the index built from it) to start a new chain, or run the devnet version that wrote it',
      );
    return saved;
  }
  const schedule: Schedule = {
    seed: wanted.seed,
    genesisTime: 0,
    historyBlocks: wanted.historyBlocks,
    historyIntervalSec: Math.max(1, Math.floor((wanted.historyDays * 86_400) / wanted.historyBlocks)),
    liveIntervalMs: wanted.liveIntervalMs,
    // Written only when set, so a schedule without it reads as it always did.
    ...(wanted.txsPerBlock === undefined ? {} : { txsPerBlock: wanted.txsPerBlock }),
    ...(wanted.imageOrigin === undefined ? {} : { imageOrigin: wanted.imageOrigin }),
    generator,
  };
  // Block gaps are random around the interval, from a stream of their own: sum them, so that the
  // history ends now rather than somewhere near now (perhaps hours away, in the future or the past).
  schedule.genesisTime = Math.floor(nowMs / 1000) - historyClock(devnetOptions(schedule));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(schedule, null, 2)}\n`);
  return schedule;
}

function devnetOptions(schedule: Schedule): DevnetOptions {
  return {
    seed: schedule.seed,
    genesisTime: schedule.genesisTime,
    historyBlocks: schedule.historyBlocks,
    blockIntervalSec: schedule.historyIntervalSec,
    txsPerBlock: schedule.txsPerBlock,
    imageOrigin: schedule.imageOrigin,
  };
}

/** What differs between the saved generator and this one, in words; null when they agree. */
function generatorMismatch(saved: GeneratorFingerprint | undefined, current: GeneratorFingerprint): string | null {
  if (!saved) return `written before generator fingerprints; this is generator version ${current.version}`;
  const parts: string[] = [];
  if (saved.version !== current.version) {
    parts.push(`generator version ${saved.version}, this is version ${current.version}`);
  }
  if (saved.hash !== current.hash) {
    const before = new Set(saved.jobs);
    const now = new Set(current.jobs);
    const gone = saved.jobs.filter((j) => !now.has(j));
    const added = current.jobs.filter((j) => !before.has(j));
    parts.push(
      `job set differs: ${[...gone.map((j) => `saved "${j}"`), ...added.map((j) => `now "${j}"`)].join('; ') || 'order'}`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : null;
}
