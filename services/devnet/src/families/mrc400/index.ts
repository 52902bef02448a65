import type { Job } from '../../jobs/job.ts';
import { mrc401AuctionFinishJob, mrc401AuctionJob, mrc401BidJob, mrc401UnauctionJob } from './auction.ts';
import { mrc400CreateJob, mrc400UpdateJob } from './collection.ts';
import { mrc401CreateJob, mrc401CreateTradeJob, mrc401UpdateJob } from './create.ts';
import { mrc401BuyJob, mrc401SellJob, mrc401UnsellJob } from './sell.ts';
import { mrc401MeltJob, mrc401TransferJob } from './transfer.ts';

/**
 * MRC-400 collections and MRC-401 items (CC-m and CC-t `mrc400.go`), registered as one family. Each
 * job runs the installed version's function: CC-m's old argument layouts under `v2.3`, CC-t's
 * under `current` (mrc401createtrade exists only there).
 */
export const MRC400_JOBS: readonly Job[] = [
  mrc400CreateJob,
  mrc400UpdateJob,
  mrc401CreateJob,
  mrc401CreateTradeJob,
  mrc401UpdateJob,
  mrc401TransferJob,
  mrc401SellJob,
  mrc401UnsellJob,
  mrc401BuyJob,
  mrc401AuctionJob,
  mrc401UnauctionJob,
  mrc401BidJob,
  mrc401AuctionFinishJob,
  mrc401MeltJob,
];
