import type { Rng } from '../rng.ts';
import type { Job } from './job.ts';
import { DEX010_JOBS } from './dex010/index.ts';
import { MRC400_JOBS } from './mrc400/index.ts';
import { MRC402_JOBS } from './mrc402/index.ts';
import { multiTransferJob } from './multitransfer.ts';
import { newWalletJob } from './newwallet.ts';
import { tokenBurningJob, tokenIncreaseJob } from './token-supply.ts';
import { tokenRegisterJob } from './token-register.ts';
import { tokenUpdateJob } from './token-update.ts';
import { transferJob } from './transfer.ts';

/**
 * The chaincode functions the devnet calls, with their share of randomly planned calls. Register a
 * new family by adding its jobs here (every seed's chain changes with it: the schedule fingerprint
 * sees the job set).
 */
export const DEFAULT_JOBS: readonly Job[] = [
  transferJob,
  multiTransferJob,
  newWalletJob,
  tokenRegisterJob,
  tokenIncreaseJob,
  tokenBurningJob,
  tokenUpdateJob,
  ...DEX010_JOBS,
];

/**
 * The NFT families (MRC-402 with DEX402; MRC-400/401 in both argument layouts), complete and tested
 * in histories of their own (`createDevnet(options, { current: [...DEFAULT_JOBS, ...NFT_JOBS] })`).
 * They join DEFAULT_JOBS — and so every seed's chain, `npm start` and the end-to-end tests — with
 * the NFT endpoints and the ground truth those tests check them against.
 */
export const NFT_JOBS: readonly Job[] = [...MRC402_JOBS, ...MRC400_JOBS];

export function pickJob(rng: Rng, jobs: readonly Job[]): Job {
  return rng.weighted(jobs.map((job) => [job, job.weight] as const));
}

export function jobFor(jobs: readonly Job[], fcn: string): Job {
  const job = jobs.find((j) => j.fcn === fcn);
  if (!job) throw new Error(`no job registered for chaincode function ${fcn}`);
  return job;
}
