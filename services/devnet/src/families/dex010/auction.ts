import { findHolder } from '../mrc010/plan.ts';
import { DEX010 } from '@mtc/domain';
import { fakeSignature } from '../../jobs/client.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import { finishAuction, openAuction, placeBid, planAuction, withdrawAuction } from '../dex/auction.ts';
import {
  auctionFate,
  auctionOutcomes,
  bidderAttempts,
  DEX010_AUCTIONS,
  firstToEnd,
  planDexBid,
  withdraws,
  type AuctionFate,
} from '../dex/auctions.ts';
import { DEX010_PREFIX, type Dex010Order } from '../mrc010/records.ts';
import { dex010Status } from './chaincode.ts';
import { DEX010_FAMILY } from './order.ts';
import { hasOpenEntry, pickOrder, pickPayToken, pickSeller } from './plan.ts';

/**
 * `mrc010auction` → an MRC-010 auction (CC-t `token.go` Mrc010Auction; dex/auction.ts openAuction),
 * the end measured from now, not from the start. The pay token is not checked against the token
 * sold. Quirks kept: the first write has min_trade_unit "" (later writes "1") and remain_amount "".
 */
export const mrc010AuctionJob: Job = {
  fcn: 'mrc010auction',
  weight: 2,
  writes: [DEX010.auction, DEX010.walletAuction],
  outcomes: auctionOutcomes(DEX010_AUCTIONS),
  plan(ctx) {
    const seller = pickSeller(ctx);
    if (!seller) return null;
    const payToken = pickPayToken(ctx, seller.token);
    if (payToken === null) return null;
    return planAuction(ctx, DEX010_FAMILY, seller.wallet, seller.available, String(seller.token), payToken);
  },
  execute: (stub, { args }) => openAuction(stub, DEX010_FAMILY, args),
};

/**
 * `mrc010unauction` → the auction withdrawn (CC-t `token.go` Mrc010UnAuction; dex/auction.ts
 * withdrawAuction). Quirk kept: the escrow is taken off saleamount, not auctionamount, so
 * auctionamount stays too high and saleamount too low (possibly negative) by the amount.
 */
export const mrc010UnauctionJob: Job = {
  fcn: 'mrc010unauction',
  weight: 1,
  writes: [DEX010.unauction, DEX010.walletUnauction],
  plan(ctx) {
    const { world, rng, now } = ctx;
    const order = pickOrder(ctx, 'auction', (o) => {
      const status = dex010Status(o, now);
      return (
        withdraws(ctx, DEX010_AUCTIONS, fate(ctx, o)) &&
        (status === 'auction' || status === 'auction_wait') &&
        o.auction_current_bidder === ''
      );
    });
    if (!order) return null;
    return { fcn: 'mrc010unauction', args: [order.dexid, fakeSignature(rng), world.wallet(order.seller)!.nonce] };
  },
  execute: (stub, { args }) => withdrawAuction(stub, DEX010_FAMILY, args),
};

/**
 * `mrc010bid` → a bid on a running auction (CC-t `token.go` Mrc010AuctionBid; dex/auction.ts
 * placeBid); a bid at the buy-now price settles at once as mrc010DexProcess does.
 */
export const mrc010BidJob: Job = {
  fcn: 'mrc010bid',
  weight: 3,
  writes: [
    DEX010.auctionbid,
    DEX010.transferBid,
    DEX010.receiveRefund,
    DEX010.auctionbuynow,
    DEX010.receiveAuction,
    DEX010.receiveFee,
  ],
  plan(ctx) {
    const { world, rng, now } = ctx;
    const biddable = (o: Dex010Order) =>
      fate(ctx, o) === 'bid' &&
      dex010Status(o, now) === 'auction' &&
      hasOpenEntry(world.wallet(o.seller), Number(o.mrc010));
    const steered = firstToEnd(
      ctx,
      DEX010_AUCTIONS,
      world.openDex010.auction,
      (id) => world.dex010(id)!,
      endOf,
      biddable,
    );
    const order = steered ?? pickOrder(ctx, 'auction', biddable);
    if (!order) return null;
    const { price, buyingNow } = planDexBid(ctx, DEX010_AUCTIONS, order);
    // The current bidder may only buy now; a buy-now bid need not beat the current price.
    const exclude = new Set(buyingNow ? [order.seller] : [order.seller, order.auction_current_bidder]);
    const bidder = findHolder(ctx, Number(order.sell_token), price, exclude, bidderAttempts(steered !== null));
    if (!bidder) return null;
    return {
      fcn: 'mrc010bid',
      args: [order.dexid, bidder.wallet.id, price.toString(), fakeSignature(rng), bidder.wallet.nonce],
    };
  },
  execute: (stub, { args }) => placeBid(stub, DEX010_FAMILY, args),
};

/**
 * `mrc010auctionfinish` → an ended auction settled as mrc010DexProcess does, or failed (CC-t
 * `token.go` Mrc010AuctionFinish; dex/auction.ts finishAuction). Quirk kept: on failure the amount
 * is credited back to the balance but not taken off auctionamount.
 */
export const mrc010AuctionFinishJob: Job = {
  fcn: 'mrc010auctionfinish',
  weight: 2,
  writes: [
    DEX010.auctionwinning,
    DEX010.receiveItem,
    DEX010.receiveAuction,
    DEX010.receiveFee,
    DEX010.auctionfailure,
    DEX010.walletAuctionfailure,
  ],
  plan(ctx) {
    const { world, now } = ctx;
    const order = pickOrder(
      ctx,
      'auction',
      (o) =>
        dex010Status(o, now) === 'auction_end' &&
        (o.auction_current_bidder === '' || hasOpenEntry(world.wallet(o.seller), Number(o.mrc010))),
      12,
    );
    if (!order) return null;
    return { fcn: 'mrc010auctionfinish', args: [order.dexid] };
  },
  execute: (stub, { args }) => finishAuction(stub, DEX010_FAMILY, args),
};

/** What becomes of an auction (auctions.ts), from the first hex digit of its id. */
function fate(ctx: PlanContext, order: Dex010Order): AuctionFate {
  const digit = Number.parseInt(order.dexid.charAt(DEX010_PREFIX.length), 16);
  return auctionFate(ctx, DEX010_AUCTIONS, Math.floor(digit / 2));
}

const endOf = (order: Dex010Order) => order.auction_end_date;
