import type { Job } from '../../../jobs/job.ts';
import { multiTransferJob } from '../multitransfer.ts';
import { newWalletJob } from '../newwallet.ts';
import { tokenBurningJob, tokenIncreaseJob } from '../token-supply.ts';
import { transferJob } from '../transfer.ts';
import { exchangeJob } from './exchange.ts';
import { mrc100LogJob } from './mrc100-log.ts';
import * as admin from './token-admin.ts';
import { legacyTokenRegisterJob } from './token-register.ts';

/**
 * CC-22 `MetaCoin.go`'s functions (dispatched until ≈ 2022-08), planned while a legacy version is installed
 * (chain/eras.ts); those that still exist are today's jobs, run with the legacy steps and shapes.
 */
export const LEGACY_JOBS: readonly Job[] = [
  transferJob,
  multiTransferJob,
  newWalletJob,
  legacyTokenRegisterJob,
  tokenIncreaseJob,
  tokenBurningJob,
  admin.tokenSetBaseJob,
  admin.tokenAddTargetJob,
  admin.tokenRemoveTargetJob,
  admin.tokenAddLoggerJob,
  admin.tokenRemoveLoggerJob,
  exchangeJob,
  mrc100LogJob,
];
