import { expectArgs, getAddressInfo, getSigner, nonceCheck, parseInt64, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { decimalOrZero, numericDataCheck } from '../../chaincode/util.ts';
import type { Call, PlanContext } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import type { Wallet } from '../mrc010/records.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { planOrderCall, planPrice } from '../dex010/plan.ts';
import {
  DEFAULT_DURATION_SEC,
  MAX_AHEAD_SEC,
  MIN_DURATION_SEC,
  offersBuyNow,
  planDexAuctionDates,
} from './auctions.ts';
import { payment, type DexFamily, type DexOrder, type PaymentInfo } from './dex.ts';
import { cancelOrder, checkOrder, openingParty, refuse, writeNewOrder } from './order-steps.ts';
import { settleTrade } from './settle.ts';

/**
 * The four auction calls of a DEX (`<family>auction`, `…unauction`, `…bid`, `…auctionfinish`; CC-t
 * `token.go` Mrc010Auction…, `mrc402.go` Mrc402Auction…); what differs is the family's (DexFamily).
 */

/**
 * An auction of part of `available` of `item`: a start price for the whole amount, a bidding unit
 * (often "", which stays "0"), a buy-now price (or "0") and dates from planDexAuctionDates.
 */
export function planAuction<O extends DexOrder>(
  ctx: PlanContext,
  family: DexFamily<O>,
  seller: Wallet,
  available: bigint,
  item: string,
  payToken: number,
): Call {
  const { world, rng } = ctx;
  const startPrice = planPrice(rng, world.token(payToken)!.decimal);
  const bidUnit = rng.chance(0.3) ? '' : (startPrice / BigInt(rng.int(5, 100)) || 1n).toString();
  const buyNow = offersBuyNow(ctx, family.house)
    ? (startPrice * BigInt(rng.int(2, 20)) + BigInt(rng.int(0, 9))).toString()
    : '0';
  const dates = planDexAuctionDates(ctx, family.house);
  const head = [portion(rng, available, 1, 60), item, startPrice, payToken, bidUnit, buyNow, dates.start, dates.end];
  return planOrderCall(ctx, `${family.name}auction`, seller, head);
}

/**
 * `<family>auction` (seller, amount, item, startPrice, payToken, bidUnit, buyNow, start, end,
 * platformName, platformURL, platformAddress, platformCommission, sig, nonce) → an auction written
 * `<family>_auction` and the seller `<family>auction`, both [dexid, args 0–12, nonce] (no signature);
 * the amount moves into auctionamount. Prices are for the whole amount. Quirk kept: remain_amount stays "".
 */
export function openAuction<O extends DexOrder>(stub: Stub, family: DexFamily<O>, args: readonly string[]): void {
  const { name: n, types } = family;
  const [
    sellerAddress,
    ,
    ,
    startPriceArg,
    payTokenArg,
    bidUnit,
    buyNowArg,
    startArg,
    endArg,
    platformName,
    url,
    platform,
    commission,
    ,
    nonce,
  ] = expectArgs(
    args,
    15,
    `1000,${n}auction operation must include four arguments : address, amount, ${n}id, auction_start_price, selltoken, auction_bidding_unit, auction_buynow_price, auction_start_date, auction_end_date, platformName, platformURL, platformAddress, platformCommission, signature, nonce`,
  );
  const now = stub.now;
  const { wallet: seller, amount, item } = openingParty(stub, family, args, '1108');
  const dex = family.newOrder(item, {
    seller: sellerAddress,
    amount: amount.toString(),
    sell_token: payTokenArg.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, ''),
    auction_bidding_unit: '0',
    auction_start_price: '0',
  });
  dex.auction_start_price = numericDataCheck(startPriceArg, '1', '', 0, false)!;
  family.checkPayToken(stub, payTokenArg);
  dex.auction_bidding_unit = numericDataCheck(bidUnit, '1', '', 0, true) ?? dex.auction_bidding_unit;
  dex.auction_buynow_price = numericDataCheck(buyNowArg, '0', '', 0, true) ?? dex.auction_buynow_price;
  // decimal.NewFromString("") fails: an empty buy-now argument rejects the call.
  if (dex.auction_buynow_price === '') throw new ChaincodeError("can't convert  to decimal");
  const startPrice = BigInt(dex.auction_start_price);
  const buyNow = BigInt(dex.auction_buynow_price);
  if (buyNow > 0n && buyNow <= startPrice) throw new ChaincodeError('3005,Auction buynow is too small');

  const start = startArg === '' ? 0 : parseInt64(startArg, `9900,Data [${startArg}] is not integer`);
  dex.auction_start_date = auctionStart(now, start);
  const end = endArg === '' ? 0 : parseInt64(endArg, `9900,Data [${endArg}] is not integer`);
  const from = family.endFromNow(stub) ? now : dex.auction_start_date;
  dex.auction_end_date = auctionEnd(dex.auction_start_date, end, from);

  family.assignPlatform(stub, dex, [platformName, url, platform, commission]);
  nonceCheck(stub, seller, nonce);
  family.escrow(stub, seller, item, amount.toString(), 'auction');
  const params = [...args.slice(0, 13), nonce];
  writeNewOrder(stub, family, { dex, wallet: seller }, args, params, [types.auction, types.walletAuction]);
}

/** An auction's start: "" or ≤ 0 means now, else in [now, now + 21 days] (Go's messages say 7). */
export function auctionStart(now: number, start: number): number {
  if (start <= 0) return now;
  if (start < now) throw new ChaincodeError('3005,The auction start time is in the past');
  if (start - now > MAX_AHEAD_SEC) throw new ChaincodeError('3005,Auction start time must be within 7 days');
  return start;
}

/** Its end: ≤ 0 means start + 1 day, else 1 h … 21 days after `from` (DexFamily.endFromNow). */
export function auctionEnd(start: number, end: number, from: number): number {
  if (end <= 0) return start + DEFAULT_DURATION_SEC;
  if (end - from < MIN_DURATION_SEC) throw new ChaincodeError('3005,Auction duration is at least 1 hour');
  if (end - from > MAX_AHEAD_SEC) throw new ChaincodeError('3005,The auction period is up to 7 days');
  return end;
}

/**
 * `<family>unauction` (dexid, sig, nonce) → the auction written `<family>_unauction` (cancel_date set)
 * and the seller `<family>unauction`, both [dexid, seller, amount, item, sell_price (""), payToken, sig,
 * nonce]; allowed before the end while nobody has bid (amount back: DexFamily.returnAuctioned).
 */
export function withdrawAuction<O extends DexOrder>(stub: Stub, family: DexFamily<O>, args: readonly string[]): void {
  const { name: n, types } = family;
  cancelOrder(stub, family, args, {
    message: `1000,${n}unauction operation must include four arguments : ${n}dexid, signature, nonce`,
    checks: [
      refuse((o) => o.auction_start_date === 0, '3004,DEX Item is not sell item'),
      (o, now) => family.refuseAuction(o, now, ['auction', 'auction_wait']),
      refuse(
        (o) => o.auction_current_bidder !== '',
        '3004,DEX Item there is a bidder, so the auction cannot be canceled',
      ),
    ],
    party: 'seller',
    release(stub, seller, dex) {
      family.returnAuctioned(stub, seller, dex, 'unauction');
      return [dex.amount, family.item(dex), dex.sell_price, dex.sell_token];
    },
    types: [types.unauction, types.walletUnauction],
  });
}

/**
 * `<family>bid` (dexid, bidder, price, sig, nonce) → a bid (takeBid, escrowBid), the auction written
 * `<family>_auctionbid` [dexid, seller, bidder, PaymentInfo JSON, sig, nonce]; a bid at the buy-now
 * price settles at once through settleTrade (the auction written `<family>_auctionbuynow`).
 */
export function placeBid<O extends DexOrder>(stub: Stub, family: DexFamily<O>, args: readonly string[]): void {
  const { name: n, types, pay } = family;
  const [dexid, bidderAddress, price, sig, nonce] = expectArgs(
    args,
    5,
    `1000,${n}bid operation must include four arguments : ${n}dexid, address, amount, signature, nonce`,
  );
  const dex = family.getOrder(stub, dexid);
  const item = family.item(dex);
  checkOrder(dex, stub.now, bidderAddress, [
    (o, now) => family.refuseAuction(o, now, ['auction'], '3004,This is not the auction bidding period'),
    refuse((o, caller) => o.seller === caller, "3004,Seller is don't buy"),
  ]);
  const bidder = getSigner(stub, bidderAddress, nonce);

  const bid: Bid = {
    bidder,
    address: bidderAddress,
    at: dex.dexid,
    token: dex.sell_token,
    item,
    price: family.parsePositive(price),
    sig,
    nonce,
  };
  const taken = takeBid(dex, bid, pay);
  dex.auction_bid_count += 1;
  if (taken.buyingNow) {
    taken.payments.push(payment(dex.dexid, bidderAddress, '', '', dex.amount, item, pay.recvItem));
    settleTrade(stub, family, dex, bidder, taken.payments, 'auction', bid.price, dex.amount, sig, nonce);
    return;
  }
  escrowBid(stub, bid, taken, types);
  family.setOrder(stub, dex, types.auctionbid, [
    dex.dexid,
    dex.seller,
    bidderAddress,
    JSON.stringify(taken.payments),
    sig,
    nonce,
  ]);
}

/** The price fields a bid reads and moves: an auction order's, or an MRC-401 item's. */
export interface BidTarget {
  auction_start_price: string;
  auction_bidding_unit: string;
  auction_buynow_price: string;
  auction_current_price: string;
  auction_current_bidder: string;
}

/**
 * A bid: who bids what on which auction (`at`: the order or item id), in which pay token; `address`
 * is the bidder's as called (the wallet's key), `item` the id the wallet writes name.
 */
export interface Bid {
  bidder: Wallet;
  address: string;
  at: string;
  token: string;
  item: string;
  price: bigint;
  sig: string;
  nonce: string;
}

export interface TakenBid {
  payments: PaymentInfo[];
  buyingNow: boolean;
  /** The bid it beats (or the start price), and who made it ("" for none). */
  previous: bigint;
  refunded: string;
}

/**
 * The rules of the current chaincode's bids (Mrc010AuctionBid, Mrc402AuctionBid, Mrc401AuctionBid): at
 * least the start price, or the current price plus the bidding unit, and at most the buy-now price,
 * which is taken even from the current highest bidder. PaymentInfo lists the beaten bid's refund, then the bid.
 */
export function takeBid(target: BidTarget, bid: Bid, roles: { recvRefund: string; bid: string }): TakenBid {
  const bidderAddress = bid.address;
  const buyNow = decimalOrZero(target.auction_buynow_price);
  const bidUnit = decimalOrZero(target.auction_bidding_unit);
  let buyingNow = false;
  if (buyNow !== 0n) {
    if (bid.price === buyNow) buyingNow = true;
    else if (bid.price > buyNow) {
      throw new ChaincodeError('3004,The bid amount must be less than or equal to the purchase buynow price');
    }
  }
  if (!buyingNow && target.auction_current_bidder === bidderAddress) {
    throw new ChaincodeError('3004,You are already the highest bidder');
  }

  const payments: PaymentInfo[] = [];
  let previous: bigint;
  let refunded = '';
  if (isMtAddress(target.auction_current_bidder)) {
    previous = decimalOrZero(target.auction_current_price);
    if (!buyingNow && bid.price - bidUnit < previous) {
      throw new ChaincodeError('3004,The bid amount must be greater than the current bid amount plus the bid unit');
    }
    refunded = target.auction_current_bidder;
    payments.push(payment(bid.at, refunded, target.auction_current_price, bid.token, '', '', roles.recvRefund));
  } else {
    previous = decimalOrZero(target.auction_start_price);
    if (bid.price < previous) {
      throw new ChaincodeError('3004,The bid amount must be equal to or greater than the starting price');
    }
  }
  payments.push(payment(bidderAddress, bid.at, bid.price.toString(), bid.token, '', '', roles.bid));
  target.auction_current_price = bid.price.toString();
  target.auction_current_bidder = bidderAddress;
  return { payments, buyingNow, previous, refunded };
}

/**
 * A bid that does not settle leaves the bidder's balance (`transfer_…bid`), the bid it beats goes back
 * (`receive_…refund`), both written [from, to, price, token, sig, "0", "", item, nonce].
 */
export function escrowBid(
  stub: Stub,
  bid: Bid,
  { previous, refunded }: TakenBid,
  types: { transferBid: string; receiveRefund: string },
): void {
  const args = (from: string, to: string, amount: bigint) => [
    from,
    to,
    amount.toString(),
    bid.token,
    bid.sig,
    '0',
    '',
    bid.item,
    bid.nonce,
  ];
  mrc010Subtract(stub, bid.bidder, bid.token, bid.price.toString(), 'normal');
  setAddressInfo(stub, bid.bidder, types.transferBid, args(bid.address, bid.at, bid.price));
  if (isMtAddress(refunded)) {
    const refundee = getAddressInfo(stub, refunded);
    mrc010Add(stub, refundee, bid.token, previous.toString(), 0);
    setAddressInfo(stub, refundee, types.receiveRefund, args(bid.at, refunded, previous));
  }
}

/**
 * `<family>auctionfinish` (dexid), unsigned: anyone may call it after the end. With a bidder it settles
 * through settleTrade: the winner gets the item (`receive_<family>item`), the escrowed bid pays the fees
 * and the seller (`receive_<family>auction`, auctionamount lowered), the auction is written
 * `<family>_auctionwinning`; sign and nonce "" in every write. Without bids the amount goes back
 * (DexFamily.returnAuctioned), the seller and the auction written `<family>auctionfailure` /
 * `<family>_auctionfailure` [dexid, seller, amount, item].
 */
export function finishAuction<O extends DexOrder>(stub: Stub, family: DexFamily<O>, args: readonly string[]): void {
  const { name: n, types, pay } = family;
  const [dexid] = expectArgs(args, 1, `1000,${n}auctionfinish operation must include four arguments : ${n}dexid`);
  const dex = family.getOrder(stub, dexid);
  const item = family.item(dex);
  checkOrder(dex, stub.now, '', [
    (o, now) => family.refuseAuction(o, now, ['auction_end'], '3004,It cannot be closed while the auction is pending'),
  ]);
  if (dex.auction_current_bidder !== '') {
    const winner = getAddressInfo(stub, dex.auction_current_bidder);
    const price = decimalOrZero(dex.auction_current_price);
    const payments = [payment(dex.dexid, dex.auction_current_bidder, '', '', dex.amount, item, pay.recvItem)];
    settleTrade(stub, family, dex, winner, payments, 'auction', price, dex.amount, '', '');
    return;
  }
  const seller = getAddressInfo(stub, dex.seller);
  const params = [dex.dexid, dex.seller, dex.amount, item];
  family.returnAuctioned(stub, seller, dex, 'failure');
  setAddressInfo(stub, seller, types.walletAuctionfailure, params);
  family.setOrder(stub, dex, types.auctionfailure, params);
}
