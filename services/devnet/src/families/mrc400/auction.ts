import { ordNumber, parsePositiveRaw, decimalOrZero } from '../../chaincode/util.ts';
import { perVersion, stepOf } from './versions.ts';
import { MRC400, MRC400_PAYMENT as PAY } from '@mtc/domain';
import { expectArgs, getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Subtract } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  assignPlatform,
  getSigner,
  expectHeld,
  NO_AUCTION,
  NO_PLATFORM,
  getMrc400,
  getMrc401,
  percentOf,
  setMrc401,
  unmarshalList,
} from './chaincode.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Mrc401Item } from './records.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import {
  auctionFate,
  auctionOutcomes,
  bidderAttempts,
  buysNow,
  firstToEnd,
  MRC401_AUCTIONS,
  offersBuyNow,
  planAuctionTimes,
  withdraws,
  type AuctionFate,
} from '../dex/auctions.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import {
  collectionOfItem,
  findPayer,
  free,
  pickItem,
  pickToken,
  planItemPlatform,
  planner,
  planPrice,
} from './plan.ts';
import {
  checkSellToken,
  listCallOf,
  openList,
  payees,
  planListing,
  PLATFORM_FIELDS,
  priceArg,
  unlister,
  withdraw,
} from './sell.ts';
import { credit, mrc401DexProcess, payCCm, recordTrade, tradeArgs } from './settle.ts';
import { auctionEnd, auctionStart, escrowBid, takeBid } from '../dex/auction.ts';

const OLD_AUCTION_FIELDS = {
  id: 'string',
  end: 'int',
  token: 'string',
  bidding: 'string',
  start: 'string',
  buynow: 'string',
} as const;
const NEW_AUCTION_FIELDS = {
  id: 'string',
  token: 'string',
  auction_bidding_unit: 'string',
  auction_start_price: 'string',
  auction_buynow_price: 'string',
  auction_start_date: 'int',
  auction_end_date: 'int',
  ...PLATFORM_FIELDS,
} as const;

/**
 * `mrc401auction` (`mrc400.go` Mrc401Auction) → each item written `mrc401_auction` [itemId, seller,
 * startPrice, token, buyNowPrice, biddingUnit, sig, nonce], the caller's wallet `mrc401auction`
 * [itemData as sent, seller, sig, nonce]. CC-m rejects every call (claimer), so its history holds
 * no MRC-401 auction and the planner proposes none. CC-t: callers and items as for mrc401sell.
 * Start price and bidding unit ≥ 1, buy-now 0 (none) or ≥ the start price ("" keeps the item's,
 * "0"). Start date ≤ 0 means now, else within [now, now + 21 days]; end ≤ 0 means start + 1 day,
 * else 1 h to 21 days after the start. Quirk kept: the platform fields are checked and then
 * cleared, so an auction never pays a platform.
 */
export const mrc401AuctionJob: Job = {
  fcn: 'mrc401auction',
  weight: 1,
  writes: [MRC400.itemAuction, MRC400.walletItemAuction],
  outcomes: auctionOutcomes(MRC401_AUCTIONS),
  plan: planner((ctx) => {
    const { world, rng, now } = ctx;
    const listing = planListing(ctx, 'new');
    if (!listing) return null;
    const { seller, items, tokens } = listing;
    const list = items.map((item) => {
      const token = pickToken(ctx, tokens);
      const start = planPrice(rng, world.token(token)!.decimal);
      // No buy-now is "0" or "" (which keeps the item's: none, outside an auction).
      const buyNow = offersBuyNow(ctx, MRC401_AUCTIONS)
        ? (start * BigInt(rng.int(2, 20))).toString()
        : rng.chance(0.2)
          ? ''
          : '0';
      const { delay, duration } = planAuctionTimes(ctx, MRC401_AUCTIONS, 0.2);
      const startDate = delay > 0 ? now + delay : 0;
      const platform = planItemPlatform(ctx, seller);
      return {
        id: item.id,
        token: String(token),
        auction_bidding_unit: (start / BigInt(rng.int(5, 100)) || 1n).toString(),
        auction_start_price: start.toString(),
        auction_buynow_price: buyNow,
        auction_start_date: startDate,
        auction_end_date: duration === null ? 0 : (startDate === 0 ? now : startDate) + duration,
        ...platform,
      };
    });
    return listCallOf(ctx, 'mrc401auction', 'new', seller, '', JSON.stringify(list));
  }, 'new'),
  execute: perVersion({ 'v2.3': auctionCCm, current: auctionCCt }),
};

/** CC-m reads the first item and its collection, then fails (claimer). */
function auctionCCm(stub: Stub, args: readonly string[]): void {
  const { list, claim } = openList(stub, args, 'auction', (itemData) =>
    unmarshalList(itemData, OLD_AUCTION_FIELDS, 'TMRC401Auction'),
  );
  claim(list[0]!.id);
}

function auctionCCt(stub: Stub, args: readonly string[]): void {
  const { seller, itemData, sig, nonce, list, wallet, claim, collection } = openList(stub, args, 'auction', (data) =>
    unmarshalList(data, NEW_AUCTION_FIELDS, 'TMRC401Auction'),
  );
  list.forEach((ad, index) => {
    const item = claim(ad.id);
    const c = collection(item);
    expectHeld(item, ad.id);
    assignPlatform(stub, item, ad);
    if (item.transferable === 'Bound' && item.owner !== c.owner) {
      throw new ChaincodeError(`5002,MRC401 [${ad.id}] is cannot be sold`);
    }
    Object.assign(item, NO_PLATFORM);
    item.auction_start_price = priceArg(ad.auction_start_price, '1', index, 'auction_start_price')!;
    item.auction_buynow_price =
      priceArg(ad.auction_buynow_price, '0', index, 'auction_buynow_price', true) ?? item.auction_buynow_price;
    item.auction_bidding_unit = priceArg(ad.auction_bidding_unit, '1', index, 'auction_bidding_unit')!;
    const buyNow = decimalOrZero(item.auction_buynow_price);
    if (buyNow !== 0n && buyNow < decimalOrZero(item.auction_start_price)) {
      throw new ChaincodeError(
        `3005,${ordNumber(index)} item buynow price is must be greater then auction start price`,
      );
    }
    checkSellToken(c, ad.token, index, false);
    item.auction_token = ad.token;
    item.auction_current_price = '0';
    item.auction_current_bidder = '';
    item.auction_date = auctionStart(stub.now, ad.auction_start_date);
    item.auction_end = auctionEnd(item.auction_date, ad.auction_end_date, item.auction_date);
    item.last_worker = wallet.id;
    setMrc401(stub, ad.id, item, MRC400.itemAuction, [
      ad.id,
      wallet.id,
      item.auction_start_price,
      item.auction_token,
      item.auction_buynow_price,
      item.auction_bidding_unit,
      sig,
      nonce,
    ]);
  });
  setAddressInfo(stub, wallet, MRC400.walletItemAuction, [itemData, seller, sig, nonce]);
}

/**
 * `mrc401unauction` (`mrc400.go` Mrc401UnAuction) → as mrc401unsell, writing `mrc401_unauction` and
 * `mrc401unauction`, refused once someone has bid. Nothing checks the end date: an ended auction
 * without bids may be withdrawn instead of finished. CC-m's wallet job_args hold the list as sent.
 */
export const mrc401UnauctionJob: Job = {
  fcn: 'mrc401unauction',
  weight: 0.3,
  writes: [MRC400.itemUnauction, MRC400.walletItemUnauction],
  plan: planner((ctx, layout) => {
    let caller = '';
    const item = pickItem(ctx, ctx.world.mrc400.inAuction, (item) => {
      if (item.auction_current_bidder !== '' || !withdraws(ctx, MRC401_AUCTIONS, fate(ctx, item))) return false;
      caller = unlister(ctx, collectionOfItem(ctx, item), item, layout) ?? '';
      return caller !== '';
    });
    if (!item) return null;
    return listCallOf(ctx, 'mrc401unauction', layout, caller, item.mrc400, JSON.stringify([item.id]));
  }),
  execute: (stub, { args }) => withdraw(stub, args, 'unauction'),
};

/**
 * `mrc401bid` (`mrc400.go` Mrc401AuctionBid) → before the end, the bid leaves the bidder into the
 * item (`transfer_mrc401bid`), the previous bid goes back (`receive_mrc401refund`), the item is
 * written `mrc401_auctionbid` [id, bidder, PaymentInfo JSON, sig, nonce]. The owner may not bid;
 * the start date is not checked (bids may come before it).
 *
 * CC-m call: bidder, id, price, token, sig, nonce. The current highest bidder may not bid again;
 * a first bid must reach the start price, a later one exceed the current price, and the amount
 * above the previous price be a whole number of bidding units; the stored price is the argument
 * as sent. PaymentInfo lists the bid, then the refund. Quirk kept: a bid at the buy-now price
 * always fails ("6205,MRC400 [<item>] is in the wrong data": an empty buffer unmarshalled).
 *
 * CC-t call: bidder, id, price, sig, nonce. A first bid must reach the start price, a later one the
 * current price plus the bidding unit; a bid at the buy-now price (which even the highest bidder
 * may make) settles at once as mrc401DexProcess (item `mrc401_auctionbuynow`). PaymentInfo lists
 * the refund, then the bid.
 */
export const mrc401BidJob: Job = {
  fcn: 'mrc401bid',
  weight: 1.4,
  writes: [
    MRC400.itemAuctionbid,
    MRC400.transferBid,
    MRC400.receiveRefund,
    MRC400.itemAuctionbuynow,
    MRC400.receiveAuction,
    MRC400.receiveFee,
  ],
  plan: planner((ctx, layout) => {
    const { rng, now } = ctx;
    const { inAuction } = ctx.world.mrc400;
    const biddable = (item: Mrc401Item) =>
      fate(ctx, item) === 'bid' && item.auction_date <= now && item.auction_end >= now && settleable(ctx, item);
    const steered = firstToEnd(ctx, MRC401_AUCTIONS, inAuction, (id) => ctx.world.mrc400.item(id)!, endOf, biddable);
    const item = steered ?? pickItem(ctx, inAuction, biddable);
    if (!item) return null;
    const unit = decimalOrZero(item.auction_bidding_unit);
    const buyNow = decimalOrZero(item.auction_buynow_price);
    const current = item.auction_current_bidder;
    const lowest =
      current === '' ? decimalOrZero(item.auction_start_price) : decimalOrZero(item.auction_current_price) + unit;
    // CC-m: the step above the previous price must be a whole number of units.
    let price = lowest + (rng.chance(0.4) ? 0n : unit * BigInt(rng.int(1, 20)));
    if (buyNow > 0n && price >= buyNow) price = buyNow;
    // CC-m refuses bids at the buy-now price; CC-t settles them, sometimes on purpose.
    const buyingNow = buyNow > 0n && (price === buyNow || buysNow(ctx, MRC401_AUCTIONS));
    if (buyingNow) {
      if (layout === 'old') return null;
      price = buyNow;
    }
    const exclude = new Set(buyingNow ? [item.owner] : [item.owner, current]);
    const bidder = findPayer(ctx, Number(item.auction_token), price, exclude, bidderAttempts(steered !== null));
    if (!bidder) return null;
    const sig = fakeSignature(rng);
    const args =
      layout === 'old'
        ? [bidder.id, item.id, price.toString(), item.auction_token, sig, bidder.nonce]
        : [bidder.id, item.id, price.toString(), sig, bidder.nonce];
    return { fcn: 'mrc401bid', args };
  }),
  execute: perVersion({ 'v2.3': bidCCm, current: bidCCt }),
};

/**
 * The checks both versions' Mrc401AuctionBid start with. CC-m (`old`) refuses the highest bidder
 * here, CC-t later and only when the bid does not buy now (takeBid).
 */
function openBid(stub: Stub, id: string, bidderAddress: string, nonce: string, old: boolean) {
  const item = getMrc401(stub, id);
  if (item.auction_date === 0) throw new ChaincodeError(`3004,MRC401 [${id}] is not for auction`);
  if (item.auction_end < stub.now) throw new ChaincodeError(`3004,MRC401 [${id}] has completed auction`);
  if (old && item.auction_current_bidder === bidderAddress) {
    throw new ChaincodeError('3004,You are already the highest bidder');
  }
  if (item.owner === bidderAddress) throw new ChaincodeError('3004,Owners cannot bid on auctions');
  const bidder = getSigner(stub, bidderAddress, nonce);
  return { item, bidder };
}

function bidCCm(stub: Stub, args: readonly string[]): void {
  const [bidderAddress, id, amount, token, sig, nonce] = expectArgs(
    args,
    6,
    '1000,mrc401bid operation must include four arguments : buyer, mrc401id, amount, token, sign, tkey',
  );
  const { item, bidder } = openBid(stub, id, bidderAddress, nonce, true);
  if (item.auction_token !== token) throw new ChaincodeError(`3004,Only ${item.auction_token} tokens can be bid`);
  const bid = parsePositiveRaw(amount);
  const buyNow = decimalOrZero(item.auction_buynow_price);
  const first = item.auction_current_bidder === '';
  const previous = decimalOrZero(first ? item.auction_start_price : item.auction_current_price);
  if (first && bid < previous) {
    throw new ChaincodeError('3004,The bid amount must be equal to or greater than the starting price');
  }
  if (!first && bid <= previous) throw new ChaincodeError('3004,The bid amount must be greater than the current price');
  if (buyNow !== 0n && bid > buyNow) {
    throw new ChaincodeError('3004,The bid amount must be less than or equal to the purchase buynow price');
  }
  const payments: PaymentInfo[] = [payment(bidderAddress, id, amount, token, '', '', PAY.bid)];
  mrc010Subtract(stub, bidder, token, amount, 'normal');
  if (buyNow !== 0n && bid === buyNow) {
    getMrc400(stub, item.mrc400);
    // json.Unmarshal of a string never assigned ("") into the collection: a buy-now bid always fails.
    throw new ChaincodeError(`6205,MRC400 [${id}] is in the wrong data`);
  }
  const params = (from: string, to: string, price: string) => tradeArgs(from, to, price, token, sig, id, nonce);
  setAddressInfo(stub, bidder, MRC400.transferBid, params(bidderAddress, id, amount));
  if (!first) {
    const { auction_current_bidder: refunded, auction_current_price: price } = item;
    payments.push(payment(id, refunded, price, token, '', '', PAY.recvRefund));
    credit(stub, refunded, token, price, MRC400.receiveRefund, params(id, refunded, price));
  }
  item.auction_current_price = amount;
  item.auction_current_bidder = bidderAddress;
  const unit = decimalOrZero(item.auction_bidding_unit);
  if (unit === 0n || (bid - previous) % unit !== 0n) {
    throw new ChaincodeError('3004,The bid amount must be greater than the current amount plus the bid units');
  }
  setMrc401(stub, id, item, MRC400.itemAuctionbid, [id, bidderAddress, JSON.stringify(payments), sig, nonce]);
}

function bidCCt(stub: Stub, args: readonly string[]): void {
  const [address, id, amount, sig, nonce] = expectArgs(
    args,
    5,
    '1000,mrc402bid operation must include four arguments : buyer, mrc401id, amount, signature, nonce',
  );
  const { item, bidder } = openBid(stub, id, address, nonce, false);
  const token = item.auction_token;
  const bid = { bidder, address, at: id, token, item: id, price: parsePositiveRaw(amount), sig, nonce };
  const taken = takeBid(item, bid, PAY);
  if (taken.buyingNow) {
    const c = getMrc400(stub, item.mrc400);
    mrc401DexProcess(stub, c, item, null, bidder, taken.payments, 'auction', sig, nonce);
    return;
  }
  escrowBid(stub, bid, taken, MRC400);
  setMrc401(stub, id, item, MRC400.itemAuctionbid, [id, address, JSON.stringify(taken.payments), sig, nonce]);
}

/**
 * `mrc401auctionfinish` (mrc401id; `mrc400.go` Mrc401AuctionFinish), unsigned, by anyone once the
 * end is reached. Without a bid the item is written `mrc401_auctionfailure`, its auction cleared;
 * with one the escrowed bid pays out, the bidder owns it (`mrc401_auctionwinning`, last trade
 * "Auction"). CC-m: payCCm, floor(price × sell_fee / 100) unless the MRC-400 owner sells, writes
 * from the winner with sign and nonce "" and (quirk kept) the item's sell_token ("0") where the
 * auction token belongs. CC-t: mrc401DexProcess with sign and nonce "".
 */
export const mrc401AuctionFinishJob: Job = {
  fcn: 'mrc401auctionfinish',
  weight: 0.8,
  writes: [MRC400.itemAuctionwinning, MRC400.itemAuctionfailure, MRC400.receiveAuction, MRC400.receiveFee],
  plan: planner((ctx) => {
    const ends = (item: Mrc401Item) => item.auction_end <= ctx.now && settleable(ctx, item);
    const item = pickItem(ctx, ctx.world.mrc400.inAuction, ends, 12);
    return item ? { fcn: 'mrc401auctionfinish', args: [item.id] } : null;
  }),
  execute(stub, { args }) {
    const [id] = expectArgs(args, 1, '1000,mrc401auctionfinish operation must include four arguments : mrc401id');
    const item = getMrc401(stub, id);
    stepOf(stub, { 'v2.3': finishCCm, current: finishCCt })(stub, id, item);
  },
};

function finishCCm(stub: Stub, id: string, item: Mrc401Item): void {
  if (item.auction_end > stub.now) throw new ChaincodeError(`3004,MRC401 [${id}] is under auction.`);
  const seller = item.owner;
  const winner = item.auction_current_bidder;
  if (winner === '') {
    if (item.auction_date === 0 || item.auction_end === 0) {
      throw new ChaincodeError(`3004,MRC401 [${id}] is not auction`);
    }
    Object.assign(item, NO_AUCTION);
    setMrc401(stub, id, item, MRC400.itemAuctionfailure, [id, seller, '', '[]', '', '']);
    return;
  }
  const c = getMrc400(stub, item.mrc400);
  const token = item.auction_token;
  const price = decimalOrZero(item.auction_current_price);
  const fee = seller === c.owner ? 0n : percentOf(price, item.sell_fee);
  const payments: PaymentInfo[] = [];
  const sale = { jobType: MRC400.receiveAuction, role: PAY.recvAuction, creditFee: true };
  payCCm(stub, c, { id, seller, token, price, fee }, payments, sale, (_fee, to, amount) =>
    tradeArgs(winner, to, amount, item.sell_token, '', id, ''),
  );
  item.owner = winner;
  recordTrade(stub, item, 'Auction');
  Object.assign(item, NO_AUCTION);
  setMrc401(stub, id, item, MRC400.itemAuctionwinning, [id, winner, JSON.stringify(payments), '', '']);
}

function finishCCt(stub: Stub, id: string, item: Mrc401Item): void {
  if (item.auction_date === 0 || item.auction_end === 0) throw new ChaincodeError(`3004,MRC401 [${id}] is not auction`);
  if (item.auction_end > stub.now) throw new ChaincodeError('3004,It cannot be closed while the auction is pending');
  if (item.auction_current_bidder === '') {
    Object.assign(item, NO_AUCTION);
    setMrc401(stub, id, item, MRC400.itemAuctionfailure, [id, item.owner, '']);
    return;
  }
  const winner = getAddressInfo(stub, item.auction_current_bidder);
  mrc401DexProcess(stub, getMrc400(stub, item.mrc400), item, null, winner, [], 'auction', '', '');
}

/** What becomes of an auction (auctions.ts). */
function fate(ctx: PlanContext, item: Mrc401Item): AuctionFate {
  return auctionFate(ctx, MRC401_AUCTIONS, (item.id.charCodeAt(41) + item.auction_date) % 8);
}

const endOf = (item: Mrc401Item) => item.auction_end;

/** No wallet a bid on or settlement of `item` may write is busy in this block. */
function settleable(ctx: PlanContext, item: Mrc401Item): boolean {
  const bidder = item.auction_current_bidder;
  return free(ctx, ...payees(ctx, item), ...(isMtAddress(bidder) ? [bidder] : []));
}
