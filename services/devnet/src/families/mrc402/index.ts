import type { Job } from '../../jobs/job.ts';
import { mrc402AuctionFinishJob, mrc402AuctionJob, mrc402BidJob, mrc402UnauctionJob } from './auction.ts';
import { mrc402CreateJob, mrc402UpdateJob } from './create.ts';
import { mrc402BuyJob, mrc402SellJob, mrc402UnsellJob } from './sell.ts';
import { mrc402BurnJob, mrc402MeltJob, mrc402MintJob } from './supply.ts';
import { mrc402TransferJob } from './transfer.ts';

/**
 * MRC-402 multi-supply NFTs and their DEX (CC-t `mrc402.go`, all of `MetaCoin.go`'s dispatch but the
 * `mrc402get` query), on the non-legacy chaincodes (v2.3 and current); about 7 % of planned calls.
 */
export const MRC402_JOBS: readonly Job[] = [
  mrc402CreateJob,
  mrc402UpdateJob,
  mrc402TransferJob,
  mrc402MintJob,
  mrc402BurnJob,
  mrc402MeltJob,
  mrc402SellJob,
  mrc402UnsellJob,
  mrc402BuyJob,
  mrc402AuctionJob,
  mrc402UnauctionJob,
  mrc402BidJob,
  mrc402AuctionFinishJob,
];
