import { auctionJobs } from '../dex/auction-jobs.ts';
import { DEX010_PREFIX } from '../mrc010/records.ts';
import { dex010Status } from './chaincode.ts';
import { DEX010_FAMILY } from './order.ts';
import { hasOpenEntry, pickOrder, pickPayToken, pickSeller } from './plan.ts';

/**
 * The MRC-010 auctions (CC-t `token.go` Mrc010Auction, Mrc010UnAuction, Mrc010AuctionBid,
 * Mrc010AuctionFinish; dex/auction.ts). An auction's end is measured from now, not from its start,
 * and its pay token is not checked against the token sold. Quirks kept: the first write of an
 * auction has min_trade_unit "" (later writes "1"); the escrow quirks are DEX010_FAMILY's.
 */
export const [mrc010AuctionJob, mrc010UnauctionJob, mrc010BidJob, mrc010AuctionFinishJob] = auctionJobs({
  family: DEX010_FAMILY,
  prefix: DEX010_PREFIX,
  weights: [2, 1, 3, 2],
  lot(ctx) {
    const seller = pickSeller(ctx);
    const payToken = seller && pickPayToken(ctx, seller.token);
    if (!seller || payToken === null) return null;
    return { wallet: seller.wallet, available: seller.available, item: String(seller.token), payToken };
  },
  ids: (ctx) => ctx.world.openDex010.auction,
  get: (ctx, id) => ctx.world.dex010(id)!,
  pick: (ctx, accept, attempts) => pickOrder(ctx, 'auction', accept, attempts),
  status: dex010Status,
  escrowed: (ctx, o) => hasOpenEntry(ctx.world.wallet(o.seller), Number(o.mrc010)),
});
