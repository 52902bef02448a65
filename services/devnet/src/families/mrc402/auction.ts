import { auctionJobs } from '../dex/auction-jobs.ts';
import { pickPayToken } from '../dex010/plan.ts';
import { dex402Status } from './chaincode.ts';
import { DEX402_FAMILY } from './order.ts';
import { anyBusy, payees, pickDex402, pickHolding } from './plan.ts';
import { DEX402_PREFIX } from './records.ts';

/**
 * The MRC-402 auctions (CC-t `mrc402.go` Mrc402Auction, Mrc402UnAuction, Mrc402AuctionBid,
 * Mrc402AuctionFinish; dex/auction.ts), settled through mrc402DexProcess: a withdrawn or unsold
 * auction's units leave auctionamount for the balance; the winner's item write carries amount "0"
 * unless it is also a payee.
 */
export const [mrc402AuctionJob, mrc402UnauctionJob, mrc402BidJob, mrc402AuctionFinishJob] = auctionJobs({
  family: DEX402_FAMILY,
  prefix: DEX402_PREFIX,
  weights: [0.6, 0.3, 1.1, 0.9],
  lot(ctx) {
    const holding = pickHolding(ctx);
    // MRC-402 prices are in MRC-010 tokens: mostly MTC (pickPayToken's token -1 is never MTC).
    const payToken = holding && pickPayToken(ctx, -1);
    if (!holding || payToken === null) return null;
    return { wallet: holding.wallet, available: holding.units, item: holding.token.id, payToken };
  },
  ids: (ctx) => ctx.world.openDex402.auction,
  get: (ctx, id) => ctx.world.dex402(id)!,
  pick: (ctx, accept, attempts) => pickDex402(ctx, 'auction', accept, attempts),
  status: dex402Status,
  busy: anyBusy,
  payees: (ctx, o) => payees(ctx.world.mrc402(o.mrc402)!, o),
});
