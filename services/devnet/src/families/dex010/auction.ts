import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import {
  expectArgs,
  getAddressInfo,
  nonceCheck,
  parseInt64,
  parsePositive,
  setAddressInfo,
} from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dex010Status, getDex010, mrc010SubtractSubBalance, newDex010Id, setDex010 } from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc010 } from '../mrc010/token.ts';
import { decimalOrZero, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import { DEX010_PREFIX, type Dex010Order } from '../mrc010/records.ts';
import { fakeSignature } from '../../jobs/client.ts';
import {
  auctionFate,
  auctionOutcomes,
  bidderAttempts,
  DEFAULT_DURATION_SEC,
  DEX010_AUCTIONS,
  firstToEnd,
  MAX_AHEAD_SEC,
  MIN_DURATION_SEC,
  offersBuyNow,
  planDexAuctionDates,
  planDexBid,
  withdraws,
  type AuctionFate,
} from '../dex/auctions.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { assignPlatform, DEX010_FAMILY, expectStatus, newOrder } from './order.ts';
import { findHolder, hasOpenEntry, pickOrder, pickPayToken, pickSeller, planPlatform, planPrice } from './plan.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import { settleTrade } from '../dex/settle.ts';

/**
 * `mrc010auction` (seller, amount, tokenId, startPrice, payToken, bidUnit, buyNow, start, end,
 * platformName, platformURL, platformAddress, platformCommission, sig, nonce) → an auction written
 * `mrc010_auction`, the seller `mrc010auction`, both [dexid, args 0–12, nonce] (no signature); the
 * amount moves from balance to auctionamount (CC-t `token.go` Mrc010Auction). Start "" or ≤ 0 means
 * now, else it must lie in [now, now + 21 days]; end "" or ≤ 0 means start + 1 day, else end − now
 * must lie in [1 h, 21 days] (measured from now, not from start). The buy-now price must be given
 * ("0" for none) and exceed the start price. The pay token is not checked against the token sold.
 * Quirks kept: the first write has min_trade_unit "" (later writes "1") and remain_amount "".
 */
export const mrc010AuctionJob: Job = {
  fcn: 'mrc010auction',
  weight: 2,
  writes: [DEX010.auction, DEX010.walletAuction],
  outcomes: auctionOutcomes(DEX010_AUCTIONS),
  plan(ctx) {
    const { world, rng } = ctx;
    const seller = pickSeller(ctx);
    if (!seller) return null;
    const payToken = pickPayToken(ctx, seller.token);
    if (payToken === null) return null;
    const startPrice = planPrice(rng, world.token(payToken)!.decimal);
    const bidUnit = rng.chance(0.3) ? '' : (startPrice / BigInt(rng.int(5, 100)) || 1n).toString();
    const buyNow = offersBuyNow(ctx, DEX010_AUCTIONS)
      ? (startPrice * BigInt(rng.int(2, 20)) + BigInt(rng.int(0, 9))).toString()
      : '0';
    const dates = planDexAuctionDates(ctx, DEX010_AUCTIONS);
    return {
      fcn: 'mrc010auction',
      args: [
        seller.wallet.id,
        portion(rng, seller.available, 1, 60).toString(),
        String(seller.token),
        startPrice.toString(),
        String(payToken),
        bidUnit,
        buyNow,
        dates.start,
        dates.end,
        ...planPlatform(ctx, seller.wallet.id),
        fakeSignature(rng),
        seller.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const [
      sellerAddress,
      amountArg,
      tokenId,
      startPriceArg,
      payTokenId,
      bidUnit,
      buyNowArg,
      startArg,
      endArg,
      name,
      url,
      platform,
      commission,
      ,
      nonce,
    ] = expectArgs(
      args,
      15,
      '1000,mrc010auction operation must include four arguments : address, amount, mrc010id, auction_start_price, selltoken, auction_bidding_unit, auction_buynow_price, auction_start_date, auction_end_date, platformName, platformURL, platformAddress, platformCommission, signature, nonce',
    );
    const now = stub.now;
    const seller = getAddressInfo(stub, sellerAddress);
    const amount = parsePositive(amountArg, `1108,${amountArg} is not positive integer`);
    const { token } = getMrc010(stub, tokenId);
    const dex = newOrder({
      mrc010: token.id,
      seller: sellerAddress,
      amount: amount.toString(),
      sell_token: payTokenId.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, ''),
      auction_bidding_unit: '0',
      auction_start_price: '0',
    });
    dex.auction_start_price = numericDataCheck(startPriceArg, '1', '', 0, false)!;
    getMrc010(stub, payTokenId);
    dex.auction_bidding_unit = numericDataCheck(bidUnit, '1', '', 0, true) ?? dex.auction_bidding_unit;
    dex.auction_buynow_price = numericDataCheck(buyNowArg, '0', '', 0, true) ?? dex.auction_buynow_price;
    // decimal.NewFromString("") fails: an empty buy-now argument rejects the call.
    if (dex.auction_buynow_price === '') throw new ChaincodeError("can't convert  to decimal");
    const startPrice = BigInt(dex.auction_start_price);
    const buyNow = BigInt(dex.auction_buynow_price);
    if (buyNow > 0n && buyNow <= startPrice) throw new ChaincodeError('3005,Auction buynow is too small');

    dex.auction_start_date = startArg === '' ? 0 : parseInt64(startArg, `9900,Data [${startArg}] is not integer`);
    if (dex.auction_start_date <= 0) dex.auction_start_date = now;
    else if (dex.auction_start_date < now) throw new ChaincodeError('3005,The auction start time is in the past');
    else if (dex.auction_start_date - now > MAX_AHEAD_SEC) {
      throw new ChaincodeError('3005,Auction start time must be within 7 days');
    }
    dex.auction_end_date = endArg === '' ? 0 : parseInt64(endArg, `9900,Data [${endArg}] is not integer`);
    if (dex.auction_end_date <= 0) dex.auction_end_date = dex.auction_start_date + DEFAULT_DURATION_SEC;
    else if (dex.auction_end_date - now < MIN_DURATION_SEC) {
      throw new ChaincodeError('3005,Auction duration is at least 1 hour');
    } else if (dex.auction_end_date - now > MAX_AHEAD_SEC) {
      throw new ChaincodeError('3005,The auction period is up to 7 days');
    }

    assignPlatform(stub, dex, [name, url, platform, commission]);
    nonceCheck(stub, seller, nonce);
    mrc010Subtract(stub, seller, token.id, amount.toString(), 'auction');

    dex.dexid = newDex010Id(stub, args);
    const params = [dex.dexid, ...args.slice(0, 13), nonce];
    setDex010(stub, dex, DEX010.auction, params);
    setAddressInfo(stub, seller, DEX010.walletAuction, params);
  },
};

/**
 * `mrc010unauction` (dexid, sig, nonce) → the auction written `mrc010_unauction` (cancel_date set)
 * and the seller `mrc010unauction`, both [dexid, seller, amount, token, sell_price (""), payToken,
 * sig, nonce]; allowed before the end while nobody has bid (CC-t `token.go` Mrc010UnAuction). The
 * amount returns to the balance. Quirk kept: the escrow is taken off saleamount, not auctionamount,
 * so auctionamount stays too high and saleamount too low (possibly negative) by the amount.
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
  execute(stub, { args }) {
    const [dexid, sig, nonce] = expectArgs(
      args,
      3,
      '1000,mrc010unauction operation must include four arguments : mrc010dexid, signature, nonce',
    );
    const dex = getDex010(stub, dexid);
    if (dex.auction_start_date === 0) throw new ChaincodeError('3004,DEX Item is not sell item');
    expectStatus(dex010Status(dex, stub.now), 'auction', 'auction_wait');
    if (dex.auction_current_bidder !== '') {
      throw new ChaincodeError('3004,DEX Item there is a bidder, so the auction cannot be canceled');
    }
    const seller = getAddressInfo(stub, dex.seller);
    nonceCheck(stub, seller, nonce);
    mrc010Add(stub, seller, dex.mrc010, dex.amount, 0);
    mrc010SubtractSubBalance(stub, seller, dex.mrc010, dex.amount, 'sell');
    const params = [dex.dexid, dex.seller, dex.amount, dex.mrc010, dex.sell_price, dex.sell_token, sig, nonce];
    setDex010(stub, dex, DEX010.unauction, params);
    setAddressInfo(stub, seller, DEX010.walletUnauction, params);
  },
};

/**
 * `mrc010bid` (dexid, bidder, price, sig, nonce) → a bid on a running auction (CC-t `token.go`
 * Mrc010AuctionBid). The bid leaves the bidder's balance into the DEX (`transfer_mrc010bid`
 * [bidder, dexid, price, payToken, sig, "0", "", token, nonce]); the previous bid goes back to its
 * bidder (`receive_mrc010refund` [dexid, bidder, price, payToken, sig, "0", "", token, nonce]); the
 * auction is written `mrc010_auctionbid` [dexid, seller, bidder, PaymentInfo JSON, sig, nonce]. A
 * bid must reach the start price, or the current price plus the bidding unit, and stay at or below
 * the buy-now price; a bid equal to buy-now settles at once as mrc010DexProcess does (auction
 * written `mrc010_auctionbuynow`), and may come from the current highest bidder.
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
  execute(stub, { args }) {
    const [dexid, bidderAddress, price, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc010bid operation must include four arguments : mrc010dexid, address, amount, signature, nonce',
    );
    const dex = getDex010(stub, dexid);
    const status = dex010Status(dex, stub.now);
    if (status === 'auction_wait') throw new ChaincodeError('3004,This is not the auction bidding period');
    expectStatus(status, 'auction');
    if (dex.seller === bidderAddress) throw new ChaincodeError("3004,Seller is don't buy");
    const bidder = getAddressInfo(stub, bidderAddress);
    nonceCheck(stub, bidder, nonce);
    const bid = parsePositive(price, `1101, ${price} is not integer string`);

    const buyNow = decimalOrZero(dex.auction_buynow_price);
    const bidUnit = decimalOrZero(dex.auction_bidding_unit);
    let buyingNow = false;
    if (buyNow !== 0n) {
      if (bid === buyNow) buyingNow = true;
      else if (bid > buyNow) {
        throw new ChaincodeError('3004,The bid amount must be less than or equal to the purchase buynow price');
      }
    }
    if (!buyingNow && dex.auction_current_bidder === bidderAddress) {
      throw new ChaincodeError('3004,You are already the highest bidder');
    }

    const payments: PaymentInfo[] = [];
    let previous: bigint;
    let refunded = '';
    if (isMtAddress(dex.auction_current_bidder)) {
      previous = decimalOrZero(dex.auction_current_price);
      if (!buyingNow && bid - bidUnit < previous) {
        throw new ChaincodeError('3004,The bid amount must be greater than the current bid amount plus the bid unit');
      }
      refunded = dex.auction_current_bidder;
      payments.push(
        payment(dex.dexid, refunded, dex.auction_current_price, dex.sell_token, '', '', DEX010_PAYMENT.recvRefund),
      );
    } else {
      previous = decimalOrZero(dex.auction_start_price);
      if (bid < previous) {
        throw new ChaincodeError('3004,The bid amount must be equal to or greater than the starting price');
      }
    }
    payments.push(payment(bidderAddress, dex.dexid, bid.toString(), dex.sell_token, '', '', DEX010_PAYMENT.bid));
    dex.auction_current_price = bid.toString();
    dex.auction_current_bidder = bidderAddress;
    dex.auction_bid_count += 1;

    if (buyingNow) {
      payments.push(payment(dex.dexid, bidderAddress, '', '', dex.amount, dex.mrc010, DEX010_PAYMENT.recvItem));
      settleTrade(stub, DEX010_FAMILY, dex, bidder, payments, 'auction', bid, dex.amount, sig, nonce);
      return;
    }

    mrc010Subtract(stub, bidder, dex.sell_token, bid.toString(), 'normal');
    setAddressInfo(stub, bidder, DEX010.transferBid, [
      bidderAddress,
      dex.dexid,
      bid.toString(),
      dex.sell_token,
      sig,
      '0',
      '',
      dex.mrc010,
      nonce,
    ]);
    if (isMtAddress(refunded)) {
      const refundee = getAddressInfo(stub, refunded);
      mrc010Add(stub, refundee, dex.sell_token, previous.toString(), 0);
      setAddressInfo(stub, refundee, DEX010.receiveRefund, [
        dex.dexid,
        refunded,
        previous.toString(),
        dex.sell_token,
        sig,
        '0',
        '',
        dex.mrc010,
        nonce,
      ]);
    }
    setDex010(stub, dex, DEX010.auctionbid, [
      dex.dexid,
      dex.seller,
      bidderAddress,
      JSON.stringify(payments),
      sig,
      nonce,
    ]);
  },
};

/**
 * `mrc010auctionfinish` (dexid) — unsigned, anyone may call it once the end date has passed (CC-t
 * `token.go` Mrc010AuctionFinish). With a bidder it settles as mrc010DexProcess: the winner gets
 * the tokens (`receive_mrc010item`, amount "0"), the escrowed bid pays the platform fee
 * (`receive_mrc010fee`) and the seller (`receive_mrc010auction`, auctionamount lowered), and the
 * auction is written `mrc010_auctionwinning`; sign and nonce are "" in every write. Without bids the
 * seller and the auction are written `mrc010auctionfailure` / `mrc010_auctionfailure` [dexid,
 * seller, amount, token]. Quirk kept: on failure the amount is credited back to the balance but not
 * taken off auctionamount.
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
  execute(stub, { args }) {
    const [dexid] = expectArgs(args, 1, '1000,mrc010auctionfinish operation must include four arguments : mrc010dexid');
    const dex = getDex010(stub, dexid);
    const status = dex010Status(dex, stub.now);
    if (status === 'auction' || status === 'auction_wait') {
      throw new ChaincodeError('3004,It cannot be closed while the auction is pending');
    }
    expectStatus(status, 'auction_end');
    if (dex.auction_current_bidder !== '') {
      const winner = getAddressInfo(stub, dex.auction_current_bidder);
      const price = decimalOrZero(dex.auction_current_price);
      const payments = [
        payment(dex.dexid, dex.auction_current_bidder, '', '', dex.amount, dex.mrc010, DEX010_PAYMENT.recvItem),
      ];
      settleTrade(stub, DEX010_FAMILY, dex, winner, payments, 'auction', price, dex.amount, '', '');
      return;
    }
    const seller = getAddressInfo(stub, dex.seller);
    const params = [dex.dexid, dex.seller, dex.amount, dex.mrc010];
    mrc010Add(stub, seller, dex.mrc010, dex.amount, 0);
    setAddressInfo(stub, seller, DEX010.walletAuctionfailure, params);
    setDex010(stub, dex, DEX010.auctionfailure, params);
  },
};

/** What becomes of an auction (auctions.ts), from the first hex digit of its id. */
function fate(ctx: PlanContext, order: Dex010Order): AuctionFate {
  const digit = Number.parseInt(order.dexid.charAt(DEX010_PREFIX.length), 16);
  return auctionFate(ctx, DEX010_AUCTIONS, Math.floor(digit / 2));
}

const endOf = (order: Dex010Order) => order.auction_end_date;
