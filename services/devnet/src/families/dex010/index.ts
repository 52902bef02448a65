import type { Job } from '../../jobs/job.ts';
import { mrc010AuctionFinishJob, mrc010AuctionJob, mrc010BidJob, mrc010UnauctionJob } from './auction.ts';
import { mrc010AcceptReqSellJob, mrc010ReqSellJob, mrc010UnreqSellJob } from './reqsell.ts';
import { mrc010BuyJob, mrc010SellJob, mrc010UnsellJob } from './sell.ts';

/** The MRC-010 DEX (CC-t `token.go` Mrc010Sell … Mrc010AuctionFinish), registered as one family. */
export const DEX010_JOBS: readonly Job[] = [
  mrc010SellJob,
  mrc010UnsellJob,
  mrc010BuyJob,
  mrc010ReqSellJob,
  mrc010UnreqSellJob,
  mrc010AcceptReqSellJob,
  mrc010AuctionJob,
  mrc010UnauctionJob,
  mrc010BidJob,
  mrc010AuctionFinishJob,
];
