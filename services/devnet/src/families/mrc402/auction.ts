import { findHolder } from '../mrc010/plan.ts';
import { MRC402 } from '@mtc/domain';
import { fakeSignature } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';
import { finishAuction, openAuction, placeBid, planAuction, withdrawAuction } from '../dex/auction.ts';
import {
  auctionOutcomes,
  bidderAttempts,
  DEX402_AUCTIONS,
  firstToEnd,
  planDexBid,
  withdraws,
} from '../dex/auctions.ts';
import { pickPayToken } from '../dex010/plan.ts';
import type { Dex402Order } from './records.ts';
import { dex402Status } from './chaincode.ts';
import { DEX402_FAMILY } from './order.ts';
import { anyBusy, fate, payees, pickDex402, pickHolding } from './plan.ts';

/**
 * `mrc402auction` → an MRC-402 auction (CC-t `mrc402.go` Mrc402Auction; dex/auction.ts
 * openAuction), its span measured as DEX402_FAMILY says (from the start, or from now under v2.3).
 */
export const mrc402AuctionJob: Job = {
  fcn: 'mrc402auction',
  weight: 0.6,
  writes: [MRC402.auction, MRC402.walletAuction],
  outcomes: auctionOutcomes(DEX402_AUCTIONS),
  plan(ctx) {
    const holding = pickHolding(ctx);
    if (!holding) return null;
    const payToken = pickPayToken(ctx, -1);
    if (payToken === null) return null;
    return planAuction(ctx, DEX402_FAMILY, holding.wallet, holding.units, holding.token.id, payToken);
  },
  execute: (stub, { args }) => openAuction(stub, DEX402_FAMILY, args),
};

/**
 * `mrc402unauction` → the auction withdrawn (CC-t `mrc402.go` Mrc402UnAuction; dex/auction.ts
 * withdrawAuction). The amount leaves auctionamount for the balance (unlike mrc010unauction, the
 * right escrow).
 */
export const mrc402UnauctionJob: Job = {
  fcn: 'mrc402unauction',
  weight: 0.3,
  writes: [MRC402.unauction, MRC402.walletUnauction],
  plan(ctx) {
    const { world, rng } = ctx;
    const order = pickDex402(
      ctx,
      'auction',
      (o, status) =>
        withdraws(ctx, DEX402_AUCTIONS, fate(ctx, o)) &&
        (status === 'auction' || status === 'auction_wait') &&
        o.auction_current_bidder === '' &&
        !anyBusy(ctx, [o.seller]),
    );
    if (!order) return null;
    return { fcn: 'mrc402unauction', args: [order.dexid, fakeSignature(rng), world.wallet(order.seller)!.nonce] };
  },
  execute: (stub, { args }) => withdrawAuction(stub, DEX402_FAMILY, args),
};

/**
 * `mrc402bid` → a bid on a running auction (CC-t `mrc402.go` Mrc402AuctionBid; dex/auction.ts
 * placeBid); a bid at the buy-now price settles at once through mrc402DexProcess.
 */
export const mrc402BidJob: Job = {
  fcn: 'mrc402bid',
  weight: 1.1,
  writes: [
    MRC402.auctionbid,
    MRC402.transferBid,
    MRC402.receiveRefund,
    MRC402.auctionbuynow,
    MRC402.receiveAuction,
    MRC402.receiveFee,
  ],
  plan(ctx) {
    const { world, rng } = ctx;
    const biddable = (o: Dex402Order) =>
      fate(ctx, o) === 'bid' &&
      dex402Status(o, ctx.now) === 'auction' &&
      !anyBusy(ctx, [o.dexid, o.mrc402, o.seller, o.auction_current_bidder]);
    const steered = firstToEnd(
      ctx,
      DEX402_AUCTIONS,
      world.openDex402.auction,
      (id) => world.dex402(id)!,
      endOf,
      biddable,
    );
    const order = steered ?? pickDex402(ctx, 'auction', biddable);
    if (!order) return null;
    const token = world.mrc402(order.mrc402)!;
    const { price, buyingNow } = planDexBid(ctx, DEX402_AUCTIONS, order);
    // A buy-now settles at once: every payee is written too.
    if (buyingNow && anyBusy(ctx, payees(token, order))) return null;
    const current = order.auction_current_bidder;
    // The current bidder may only buy now, and then not as a payee (see dex/settle.ts's quirk).
    const exclude = new Set(
      buyingNow && !payees(token, order).includes(current) ? [order.seller] : [order.seller, current],
    );
    const bidder = findHolder(ctx, Number(order.sell_token), price, exclude, bidderAttempts(steered !== null));
    if (!bidder || anyBusy(ctx, [bidder.wallet.id])) return null;
    return {
      fcn: 'mrc402bid',
      args: [order.dexid, bidder.wallet.id, price.toString(), fakeSignature(rng), bidder.wallet.nonce],
    };
  },
  execute: (stub, { args }) => placeBid(stub, DEX402_FAMILY, args),
};

/**
 * `mrc402auctionfinish` → an ended auction settled through mrc402DexProcess (the winner's item
 * write carries amount "0" unless it is also a payee), or failed, the units going back from
 * auctionamount to the balance (CC-t `mrc402.go` Mrc402AuctionFinish; dex/auction.ts finishAuction).
 */
export const mrc402AuctionFinishJob: Job = {
  fcn: 'mrc402auctionfinish',
  weight: 0.9,
  writes: [
    MRC402.auctionwinning,
    MRC402.receiveItem,
    MRC402.receiveAuction,
    MRC402.receiveFee,
    MRC402.auctionfailure,
    MRC402.walletAuctionfailure,
  ],
  plan(ctx) {
    const { world } = ctx;
    const order = pickDex402(
      ctx,
      'auction',
      (o, status) =>
        status === 'auction_end' &&
        !anyBusy(ctx, [
          o.seller,
          o.auction_current_bidder,
          ...(o.auction_current_bidder === '' ? [] : payees(world.mrc402(o.mrc402)!, o)),
        ]),
      12,
    );
    if (!order) return null;
    return { fcn: 'mrc402auctionfinish', args: [order.dexid] };
  },
  execute: (stub, { args }) => finishAuction(stub, DEX402_FAMILY, args),
};

const endOf = (order: Dex402Order) => order.auction_end_date;
