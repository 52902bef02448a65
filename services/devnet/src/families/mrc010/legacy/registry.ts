import type { Job } from '../../../jobs/job.ts';
import { newWalletJob } from '../newwallet.ts';
import { exchangeJob } from './exchange.ts';
import { mrc100LogJob } from './mrc100-log.ts';
import { legacyMultiTransferJob } from './multitransfer.ts';
import { tokenSetBaseJob } from './token-base.ts';
import { tokenAddLoggerJob, tokenRemoveLoggerJob } from './token-logger.ts';
import { legacyTokenRegisterJob } from './token-register.ts';
import { legacyTokenBurningJob, legacyTokenIncreaseJob } from './token-supply.ts';
import { tokenAddTargetJob, tokenRemoveTargetJob } from './token-target.ts';
import { legacyTransferJob } from './transfer.ts';

/**
 * The legacy chaincode's functions (CC-22 `MetaCoin.go`, dispatched until ≈ 2022-08), planned while
 * a legacy version is installed (chain/eras.ts), with their share of randomly planned calls. Where a
 * function still exists today but behaved differently, this is the legacy port; `newwallet` is
 * today's job, since the two differ only in the record shape, which the installed version decides
 * when the wallet is written (codec.ts).
 */
export const LEGACY_JOBS: readonly Job[] = [
  legacyTransferJob,
  legacyMultiTransferJob,
  newWalletJob,
  legacyTokenRegisterJob,
  legacyTokenIncreaseJob,
  legacyTokenBurningJob,
  tokenSetBaseJob,
  tokenAddTargetJob,
  tokenRemoveTargetJob,
  tokenAddLoggerJob,
  tokenRemoveLoggerJob,
  exchangeJob,
  mrc100LogJob,
];
