import type { Rng } from '../rng.ts';
import type { World } from '../world/world.ts';
import type { Job } from './job.ts';
import { DEX010_JOBS } from '../families/dex010/index.ts';
import { MRC400_JOBS } from '../families/mrc400/index.ts';
import { MRC402_JOBS } from '../families/mrc402/index.ts';
import { multiTransferJob } from '../families/mrc010/multitransfer.ts';
import { newWalletJob } from '../families/mrc010/newwallet.ts';
import { tokenBurningJob, tokenIncreaseJob } from '../families/mrc010/token-supply.ts';
import { tokenRegisterJob } from '../families/mrc010/token-register.ts';
import { tokenUpdateJob } from '../families/mrc010/token-update.ts';
import { transferJob } from '../families/mrc010/transfer.ts';

/** The non-legacy chaincodes' functions. A family added here changes every seed's chain (the fingerprint). */
export const DEFAULT_JOBS: readonly Job[] = [
  transferJob,
  multiTransferJob,
  newWalletJob,
  tokenRegisterJob,
  tokenIncreaseJob,
  tokenBurningJob,
  tokenUpdateJob,
  ...DEX010_JOBS,
  ...MRC402_JOBS,
  ...MRC400_JOBS,
];

const NEW_TYPE_BOOST = 4;

/**
 * A job drawn by weight, NEW_TYPE_BOOST times more while `world` misses a type it writes or leads to
 * (Job.outcomes), so a short history holds every type; a long one has the weights' mix.
 */
export function pickJob(rng: Rng, jobs: readonly Job[], world?: Pick<World, 'hasWritten'>): Job {
  const missing = (type: string) => !world!.hasWritten(type);
  return rng.weighted(
    jobs.map((job) => {
      const fresh = world !== undefined && (job.writes.some(missing) || (job.outcomes?.some(missing) ?? false));
      return [job, fresh ? job.weight * NEW_TYPE_BOOST : job.weight] as const;
    }),
  );
}

export function jobFor(jobs: readonly Job[], fcn: string): Job {
  const job = jobs.find((j) => j.fcn === fcn);
  if (!job) throw new Error(`no job registered for chaincode function ${fcn}`);
  return job;
}
