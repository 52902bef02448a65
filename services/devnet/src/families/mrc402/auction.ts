import { MRC402, MRC402_PAYMENT as PAY } from '@mtc/domain';
import {
  expectArgs,
  getAddressInfo,
  nonceCheck,
  parseInt64,
  parsePositive,
  setAddressInfo,
} from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  dex402Status,
  getDex402,
  getMrc402,
  mrc402Add,
  mrc402Subtract,
  newGeneratedId,
  parsePositiveRaw,
  setDex402,
} from './chaincode.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { decimalOrZero, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import { DEX402_PREFIX, newDex402, type Dex402Order } from './records.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { findHolder, pickPayToken, planPlatform, planPrice } from '../dex010/plan.ts';
import type { Job } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import {
  auctionOutcomes,
  bidderAttempts,
  DEFAULT_DURATION_SEC,
  DEX402_AUCTIONS,
  firstToEnd,
  MAX_AHEAD_SEC,
  MIN_DURATION_SEC,
  offersBuyNow,
  planDexAuctionDates,
  planDexBid,
  withdraws,
} from '../dex/auctions.ts';
import { assignPlatform, DEX402_FAMILY, expectStatus, STATUS_MESSAGES } from './order.ts';
import { anyBusy, fate, payees, pickDex402, pickHolding } from './plan.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import { settleTrade } from '../dex/settle.ts';

const NOT_AUCTION_ITEM = '3004,DEX Item is not auction item';

/**
 * `mrc402auction` (seller, amount, id, startPrice, payToken, bidUnit, buyNow, start, end,
 * platformName, platformURL, platformAddress, platformCommission, sig, nonce) → an auction written
 * `mrc402_auction` and the seller `mrc402auction`, both [dexid, args 0–12, nonce] (no signature);
 * the amount moves from the holding's balance into its auctionamount (CC-t `mrc402.go`
 * Mrc402Auction). Prices are for the whole amount. Start "" or ≤ 0 means now, else it must lie in
 * [now, now + 21 days]; end "" or ≤ 0 means start + 1 day, else the auction must last 1 h … 21 days.
 * The current chaincode measures that span from the start; v2.3 (CC-m) measured it from now (end −
 * now), the one difference between the two versions' MRC-402 code. The buy-now price must be given
 * ("0" for none) and exceed the start price; a bidding unit of "" stays "0". Quirk kept: the order's
 * remain_amount stays "".
 */
export const mrc402AuctionJob: Job = {
  fcn: 'mrc402auction',
  weight: 0.6,
  writes: [MRC402.auction, MRC402.walletAuction],
  outcomes: auctionOutcomes(DEX402_AUCTIONS),
  plan(ctx) {
    const { world, rng } = ctx;
    const holding = pickHolding(ctx);
    if (!holding) return null;
    const payToken = pickPayToken(ctx, -1);
    if (payToken === null) return null;
    const startPrice = planPrice(rng, world.token(payToken)!.decimal);
    const bidUnit = rng.chance(0.3) ? '' : (startPrice / BigInt(rng.int(5, 100)) || 1n).toString();
    const buyNow = offersBuyNow(ctx, DEX402_AUCTIONS)
      ? (startPrice * BigInt(rng.int(2, 20)) + BigInt(rng.int(0, 9))).toString()
      : '0';
    const dates = planDexAuctionDates(ctx, DEX402_AUCTIONS);
    return {
      fcn: 'mrc402auction',
      args: [
        holding.wallet.id,
        portion(rng, holding.units, 1, 60).toString(),
        holding.token.id,
        startPrice.toString(),
        String(payToken),
        bidUnit,
        buyNow,
        dates.start,
        dates.end,
        ...planPlatform(ctx, holding.wallet.id),
        fakeSignature(rng),
        holding.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const [
      sellerAddress,
      amountArg,
      id,
      startPriceArg,
      payTokenArg,
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
      '1000,mrc402auction operation must include four arguments : address, amount, mrc402id, auction_start_price, selltoken, auction_bidding_unit, auction_buynow_price, auction_start_date, auction_end_date, platformName, platformURL, platformAddress, platformCommission, signature, nonce',
    );
    const now = stub.now;
    const seller = getAddressInfo(stub, sellerAddress);
    const amount = parsePositive(amountArg, `1108,${amountArg} is not positive integer`);
    const token = getMrc402(stub, id);
    const dex = newDex402({
      mrc402: token.id,
      seller: sellerAddress,
      amount: amount.toString(),
      sell_token: payTokenArg.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, ''),
      auction_bidding_unit: '0',
      auction_start_price: '0',
    });
    dex.auction_start_price = numericDataCheck(startPriceArg, '1', '', 0, false)!;
    mrc010Id(stub, payTokenArg);
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
    const from = stub.chaincode === 'v2.3' ? now : dex.auction_start_date;
    if (dex.auction_end_date <= 0) dex.auction_end_date = dex.auction_start_date + DEFAULT_DURATION_SEC;
    else if (dex.auction_end_date - from < MIN_DURATION_SEC) {
      throw new ChaincodeError('3005,Auction duration is at least 1 hour');
    } else if (dex.auction_end_date - from > MAX_AHEAD_SEC) {
      throw new ChaincodeError('3005,The auction period is up to 7 days');
    }

    assignPlatform(stub, dex, [name, url, platform, commission]);
    nonceCheck(stub, seller, nonce);
    mrc402Subtract(stub, seller, token.id, amount.toString(), 'auction');

    dex.dexid = newGeneratedId(stub, DEX402_PREFIX, args);
    const params = [dex.dexid, ...args.slice(0, 13), nonce];
    setDex402(stub, dex, MRC402.auction, params);
    setAddressInfo(stub, seller, MRC402.walletAuction, params);
  },
};

/**
 * `mrc402unauction` (dexid, sig, nonce) → the auction written `mrc402_unauction` (cancel_date set)
 * and the seller `mrc402unauction`, both [dexid, seller, amount, id, sell_price (""), payToken,
 * sig, nonce]; allowed before the end while nobody has bid (CC-t `mrc402.go` Mrc402UnAuction). The
 * amount leaves auctionamount for the balance (unlike mrc010unauction, the right escrow).
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
  execute(stub, { args }) {
    const [dexid, sig, nonce] = expectArgs(
      args,
      3,
      '1000,mrc402unauction operation must include four arguments : mrc402dexid, signature, nonce',
    );
    const dex = getDex402(stub, dexid);
    if (dex.auction_start_date === 0) throw new ChaincodeError('3004,DEX Item is not sell item');
    expectStatus(dex402Status(dex, stub.now), ['auction', 'auction_wait'], {
      ...STATUS_MESSAGES,
      sale: NOT_AUCTION_ITEM,
      soldout: NOT_AUCTION_ITEM,
    });
    if (dex.auction_current_bidder !== '') {
      throw new ChaincodeError('3004,DEX Item there is a bidder, so the auction cannot be canceled');
    }
    const seller = getAddressInfo(stub, dex.seller);
    nonceCheck(stub, seller, nonce);
    mrc402Add(stub, seller, dex.mrc402, dex.amount, 'auction');
    const params = [dex.dexid, dex.seller, dex.amount, dex.mrc402, dex.sell_price, dex.sell_token, sig, nonce];
    setDex402(stub, dex, MRC402.unauction, params);
    setAddressInfo(stub, seller, MRC402.walletUnauction, params);
  },
};

/**
 * `mrc402bid` (dexid, bidder, price, sig, nonce) → a bid on a running auction (CC-t `mrc402.go`
 * Mrc402AuctionBid). The bid leaves the bidder's balance for the DEX (`transfer_mrc402bid`
 * [bidder, dexid, price, payToken, sig, "0", "", id, nonce]); the previous bid goes back to its
 * bidder (`receive_mrc402refund` [dexid, bidder, price, payToken, sig, "0", "", id, nonce]); the
 * auction is written `mrc402_auctionbid` [dexid, seller, bidder, PaymentInfo JSON, sig, nonce]. A
 * bid must reach the start price, or the current price plus the bidding unit, and stay at or below
 * the buy-now price; a bid equal to buy-now settles at once through mrc402DexProcess (the auction
 * written `mrc402_auctionbuynow`), and may come from the current highest bidder.
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
  execute(stub, { args }) {
    const [dexid, bidderAddress, price, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc402bid operation must include four arguments : mrc402dexid, address, amount, signature, nonce',
    );
    const dex = getDex402(stub, dexid);
    expectStatus(dex402Status(dex, stub.now), ['auction'], {
      ...STATUS_MESSAGES,
      sale: NOT_AUCTION_ITEM,
      soldout: NOT_AUCTION_ITEM,
      auction_wait: '3004,This is not the auction bidding period',
    });
    if (dex.seller === bidderAddress) throw new ChaincodeError("3004,Seller is don't buy");
    const bidder = getAddressInfo(stub, bidderAddress);
    nonceCheck(stub, bidder, nonce);
    const bid = parsePositiveRaw(price);

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
      payments.push(payment(dex.dexid, refunded, dex.auction_current_price, dex.sell_token, '', '', PAY.recvRefund));
    } else {
      previous = decimalOrZero(dex.auction_start_price);
      if (bid < previous) {
        throw new ChaincodeError('3004,The bid amount must be equal to or greater than the starting price');
      }
    }
    payments.push(payment(bidderAddress, dex.dexid, bid.toString(), dex.sell_token, '', '', PAY.bid));
    dex.auction_current_price = bid.toString();
    dex.auction_current_bidder = bidderAddress;
    dex.auction_bid_count += 1;

    if (buyingNow) {
      payments.push(payment(dex.dexid, bidderAddress, '', '', dex.amount, dex.mrc402, PAY.recvItem));
      settleTrade(stub, DEX402_FAMILY, dex, bidder, payments, 'auction', bid, dex.amount, sig, nonce);
      return;
    }

    mrc010Subtract(stub, bidder, dex.sell_token, bid.toString(), 'normal');
    setAddressInfo(stub, bidder, MRC402.transferBid, [
      bidderAddress,
      dex.dexid,
      bid.toString(),
      dex.sell_token,
      sig,
      '0',
      '',
      dex.mrc402,
      nonce,
    ]);
    if (isMtAddress(refunded)) {
      const refundee = getAddressInfo(stub, refunded);
      mrc010Add(stub, refundee, dex.sell_token, previous.toString(), 0);
      setAddressInfo(stub, refundee, MRC402.receiveRefund, [
        dex.dexid,
        refunded,
        previous.toString(),
        dex.sell_token,
        sig,
        '0',
        '',
        dex.mrc402,
        nonce,
      ]);
    }
    setDex402(stub, dex, MRC402.auctionbid, [
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
 * `mrc402auctionfinish` (dexid) — unsigned, anyone may call it once the end date has passed (CC-t
 * `mrc402.go` Mrc402AuctionFinish). With a bidder it settles through mrc402DexProcess: the winner
 * gets the units (`receive_mrc402item`, amount "0" unless it is also a payee), the escrowed bid
 * pays the fees (`receive_mrc402fee`) and the seller (`receive_mrc402auction`, auctionamount
 * lowered), and the auction is written `mrc402_auctionwinning`; sign and nonce are "" in every
 * write. Without bids the units go back from auctionamount to the balance and the seller and the
 * auction are written `mrc402auctionfailure` / `mrc402_auctionfailure` [dexid, seller, amount, id].
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
  execute(stub, { args }) {
    const [dexid] = expectArgs(args, 1, '1000,mrc402auctionfinish operation must include four arguments : mrc402dexid');
    const dex = getDex402(stub, dexid);
    expectStatus(dex402Status(dex, stub.now), ['auction_end'], {
      ...STATUS_MESSAGES,
      sale: NOT_AUCTION_ITEM,
      soldout: NOT_AUCTION_ITEM,
      auction_wait: '3004,It cannot be closed while the auction is pending',
      auction: '3004,It cannot be closed while the auction is pending',
    });
    if (dex.auction_current_bidder !== '') {
      const winner = getAddressInfo(stub, dex.auction_current_bidder);
      const payments = [payment(dex.dexid, dex.auction_current_bidder, '', '', dex.amount, dex.mrc402, PAY.recvItem)];
      settleTrade(
        stub,
        DEX402_FAMILY,
        dex,
        winner,
        payments,
        'auction',
        decimalOrZero(dex.auction_current_price),
        dex.amount,
        '',
        '',
      );
      return;
    }
    const seller = getAddressInfo(stub, dex.seller);
    const params = [dex.dexid, dex.seller, dex.amount, dex.mrc402];
    mrc402Add(stub, seller, dex.mrc402, dex.amount, 'auction');
    setAddressInfo(stub, seller, MRC402.walletAuctionfailure, params);
    setDex402(stub, dex, MRC402.auctionfailure, params);
  },
};

const endOf = (order: Dex402Order) => order.auction_end_date;
