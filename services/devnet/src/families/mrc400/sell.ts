import { ordNumber, sortedEntries, decimalOrZero, numericDataCheck } from '../../chaincode/util.ts';
import { mrc400Version, stepOf } from './versions.ts';
import { MRC400, MRC400_PAYMENT as PAY } from '@mtc/domain';
import { expectArgs, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  assignPlatform,
  getSigner,
  MAX_PRICE,
  type Platform,
  NO_AUCTION,
  NO_PLATFORM,
  NO_SALE,
  expectHeld,
  expectToken,
  expectUnique,
  getMrc400,
  getMrc401,
  guard,
  permissionCheck,
  percentOf,
  SELLS,
  setMrc401,
  unmarshalList,
  unmarshalStrings,
  type Mrc401Action,
} from './chaincode.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Mrc400Collection, Mrc401Item } from './records.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { payment } from '../dex/dex.ts';
import type { Call, Job, PlanContext } from '../../jobs/job.ts';
import {
  allowedTokens,
  collectionOfItem,
  findPayer,
  free,
  planItemPlatform,
  planner,
  type Layout,
  movable,
  pickId,
  pickItem,
  pickToken,
  planPrice,
} from './plan.ts';
import { mrc401DexProcess, payCCm, recordTrade, tradeArgs } from './settle.ts';

/** The platform fields CC-t's sell and auction lists end with. */
export const PLATFORM_FIELDS = {
  platform_name: 'string',
  platform_url: 'string',
  platform_address: 'string',
  platform_commission: 'string',
} as const;

const OLD_SELL_FIELDS = { id: 'string', amount: 'string', token: 'string' } as const;
const NEW_SELL_FIELDS = { ...OLD_SELL_FIELDS, ...PLATFORM_FIELDS } as const;

/**
 * `mrc401sell` → each item written `mrc401_sell` [itemId, seller, price, token, sig, nonce] with
 * sell_date, sell_price (normalised) and sell_token set; the caller's wallet `mrc401sell` [JSON of
 * the sell list, seller, sig, nonce] (CC-m `mrc400.go` Mrc401Sell; CC-t the same name). Items on
 * sale or in auction are refused, Bound items unless the MRC-400 owner holds them; the price is an
 * integer ≥ 1 in the collection's allow_token or MTC (CC-t: any token when allow_token is "0" or
 * ""). The token's existence is not checked (a buy would fail on it).
 *
 * CC-m call: seller, mrc400id, JSON [{id, amount, token}] (≤ 100, all of that collection), sig,
 * nonce; only the owner sells. CC-t call: seller, JSON [{id, amount, token, platform_name,
 * platform_url, platform_address, platform_commission}] (≤ 1000, any collections), sig, nonce; the
 * owner sells, or a partner (role partner or seller) an item the MRC-400 owner holds, and is
 * recorded as last_worker; the platform fields replace the item's.
 */
export const mrc401SellJob: Job = {
  fcn: 'mrc401sell',
  weight: 1.4,
  writes: [MRC400.itemSell, MRC400.walletItemSell],
  plan: planner((ctx, layout) => {
    const listing = planListing(ctx, layout);
    if (!listing) return null;
    const { c, seller, items, tokens } = listing;
    const list = items.map((item) => {
      const token = pickToken(ctx, tokens);
      const amount = planPrice(ctx.rng, ctx.world.token(token)!.decimal).toString();
      const sale = { id: item.id, amount, token: String(token) };
      return layout === 'old' ? sale : { ...sale, ...planItemPlatform(ctx, seller) };
    });
    return listCallOf(ctx, 'mrc401sell', layout, seller, c.id, JSON.stringify(list));
  }),
  execute(stub, { args }) {
    const { seller, sig, nonce, old, list, wallet, claim, collection } = openList(stub, args, 'sell', (itemData, old) =>
      unmarshalList(itemData, old ? OLD_SELL_FIELDS : NEW_SELL_FIELDS, 'TMRC401Sell'),
    );
    list.forEach((sd, index) => {
      const item = claim(sd.id);
      const c = collection(item);
      expectHeld(item, sd.id);
      if (item.transferable === 'Bound' && item.owner !== c.owner) {
        throw new ChaincodeError(`5002,MRC401 [${sd.id}] is cannot be sold`);
      }
      item.sell_price = priceArg(sd.amount, '1', index, 'SellPrice')!;
      checkSellToken(c, sd.token, index, old);
      if (!old) {
        Object.assign(item, NO_PLATFORM);
        assignPlatform(stub, item, sd as typeof sd & Platform);
        item.last_worker = wallet.id;
      }
      item.sell_token = sd.token;
      item.sell_date = stub.now;
      setMrc401(stub, sd.id, item, MRC400.itemSell, [sd.id, seller, sd.amount, sd.token, sig, nonce]);
    });
    setAddressInfo(stub, wallet, MRC400.walletItemSell, [JSON.stringify(list), seller, sig, nonce]);
  },
};

/**
 * `mrc401unsell` (`mrc400.go` Mrc401UnSell) → each item written `mrc401_unsell` [itemId, seller,
 * sig, nonce] with its sale cleared; the caller's wallet `mrc401unsell` [JSON of the ids, seller,
 * sig, nonce]. Calls as mrc401sell's with a JSON [ids]; CC-t lets the partner who last worked on
 * an item the MRC-400 owner holds withdraw it, clears the platform fields and records the caller
 * as last_worker. Quirk kept: CC-t does not refuse an id listed twice (both writes land on the one
 * key, the log lists it twice).
 */
export const mrc401UnsellJob: Job = {
  fcn: 'mrc401unsell',
  weight: 0.4,
  writes: [MRC400.itemUnsell, MRC400.walletItemUnsell],
  plan: planner((ctx, layout) => {
    const { onSale } = ctx.world.mrc400;
    let caller = '';
    const first = pickItem(ctx, onSale, (item) => {
      caller = unlister(ctx, collectionOfItem(ctx, item), item, layout) ?? '';
      return caller !== '';
    });
    if (!first) return null;
    const c = collectionOfItem(ctx, first);
    const more = moreItems(ctx, onSale, c, first, (item) => unlister(ctx, c, item, layout) === caller);
    const ids = JSON.stringify([first, ...more].map((item) => item.id));
    return listCallOf(ctx, 'mrc401unsell', layout, caller, c.id, ids);
  }),
  execute: (stub, { args }) => withdraw(stub, args, 'unsell'),
};

/**
 * `mrc401buy` (buyer, mrc401id, sig, nonce; both versions `mrc400.go` Mrc401Buy) → the item sold at
 * its sale price to the buyer, last trade "Sell". CC-m: the buyer pays (`transfer_mrc401buy`), then
 * payCCm with floor(price × rate / 100) unless the seller is the MRC-400 owner (a buyer who is the
 * MRC-400 owner keeps it in its transfer write); item `mrc401_buy` [id, seller, buyer, PaymentInfo
 * JSON, sig, nonce]. Quirk kept: the rate is the item's melting fee, not its sell fee. CC-t:
 * mrc401DexProcess (settle.ts), the sell fee paid even when the MRC-400 owner sells.
 */
export const mrc401BuyJob: Job = {
  fcn: 'mrc401buy',
  weight: 1.4,
  writes: [MRC400.itemBuy, MRC400.transferBuy, MRC400.receiveSell, MRC400.receiveFee],
  plan: planner((ctx) => {
    const item = pickItem(ctx, ctx.world.mrc400.onSale, (item) => free(ctx, ...payees(ctx, item)));
    if (!item) return null;
    const buyer = findPayer(ctx, Number(item.sell_token), BigInt(item.sell_price), new Set([item.owner]));
    if (!buyer) return null;
    return { fcn: 'mrc401buy', args: [buyer.id, item.id, fakeSignature(ctx.rng), buyer.nonce] };
  }),
  execute(stub, { args }) {
    const [buyerAddress, id, sig, nonce] = expectArgs(
      args,
      4,
      '1000,mrc401buy operation must include four arguments : buyer, mrc401id, sign, tkey',
    );
    stepOf(stub, { 'v2.3': buyCCm, current: buyCCt })(stub, buyerAddress, id, sig, nonce);
  },
};

function buyCCt(stub: Stub, buyerAddress: string, id: string, sig: string, nonce: string): void {
  const buyer = getSigner(stub, buyerAddress, nonce);
  const item = getMrc401(stub, id);
  if (item.sell_date === 0) throw new ChaincodeError(`3004,MRC401 [${item.id}] is not for sale`);
  if (buyer.id === item.owner) throw new ChaincodeError('3004,You cannot purchase items sold by yourself');
  const c = getMrc400(stub, item.mrc400);
  const payments = [payment(buyer.id, item.id, item.sell_price, item.sell_token, '', '', PAY.buy)];
  mrc401DexProcess(stub, c, item, null, buyer, payments, 'buy', sig, nonce);
}

function buyCCm(stub: Stub, buyerAddress: string, id: string, sig: string, nonce: string): void {
  const item = getMrc401(stub, id);
  if (item.sell_date === 0) throw new ChaincodeError(`3004,MRC401 [${id}] is not for sale`);
  if (buyerAddress === item.owner) throw new ChaincodeError('3004,You cannot purchase items sold by yourself');
  const seller = item.owner;
  const price = decimalOrZero(item.sell_price);
  const token = item.sell_token;
  const buyer = getSigner(stub, buyerAddress, nonce);
  const c = getMrc400(stub, item.mrc400);

  const payments = [payment(buyerAddress, id, price.toString(), token, '', '', PAY.buy)];
  mrc010Subtract(stub, buyer, token, price.toString(), 'normal');
  const fee = seller === c.owner ? 0n : percentOf(price, item.melting_fee);
  if (buyerAddress === c.owner && fee > 0n) mrc010Add(stub, buyer, token, fee.toString(), 0);
  setAddressInfo(stub, buyer, MRC400.transferBuy, tradeArgs(buyerAddress, id, price, token, sig, id, nonce));
  const sale = { jobType: MRC400.receiveSell, role: PAY.recvSell, creditFee: buyerAddress !== c.owner };
  payCCm(stub, c, { id, seller, token, price, fee }, payments, sale, (isFee, to, amount) =>
    tradeArgs(isFee ? seller : buyerAddress, to, amount, token, sig, id, nonce),
  );
  item.owner = buyerAddress;
  recordTrade(stub, item, 'Sell');
  Object.assign(item, NO_SALE);
  setMrc401(stub, id, item, MRC400.itemBuy, [id, seller, buyerAddress, JSON.stringify(payments), sig, nonce]);
}

// ---------------------------------------------------------------- shared with auction.ts

/** The arguments of a list call (mrc400id null under CC-t); CC-t's unauction message says mrc401unsell. */
function listCall(stub: Stub, args: readonly string[], fcn: string, ccTName = fcn) {
  if (mrc400Version(stub.chaincode).layout === 'old') {
    const message = `1000,${fcn} operation must include four arguments : seller, mrc400id, itemData, sign, tkey`;
    const [seller, mrc400id, itemData, sig, nonce] = expectArgs(args, 5, message);
    return { seller, mrc400id: mrc400id as string | null, itemData, sig, nonce };
  }
  const message = `1000,${ccTName} operation must include four arguments : seller, itemData, sign, tkey`;
  const [seller, itemData, sig, nonce] = expectArgs(args, 4, message);
  return { seller, mrc400id: null, itemData, sig, nonce };
}

/** A list call's list: at most 100 items under CC-m (`old`), 1000 under CC-t, and not empty. */
function listArg<T>(parse: () => T[], old: boolean, what: string): T[] {
  const list = guard(parse, (inner) => `3004,Selldata is in the wrong data ${inner}`);
  const limit = old ? 100 : 1000;
  if (list.length > limit) throw new ChaincodeError(`3002,There must be ${limit} or fewer ${what} item`);
  if (list.length < 1) throw new ChaincodeError('3002,There is no item information');
  return list;
}

/** The head of both versions' Mrc401Sell and Mrc401Auction; `claim` then checks each item. */
export function openList<T>(
  stub: Stub,
  args: readonly string[],
  action: 'sell' | 'auction',
  parse: (itemData: string, old: boolean) => T[],
) {
  const call = listCall(stub, args, `mrc401${action}`);
  const old = call.mrc400id !== null;
  const list = listArg(() => parse(call.itemData, old), old, 'sell');
  const wallet = getSigner(stub, call.seller, call.nonce);
  const collection = lastCollection(stub);
  const claim = claimer(stub, call.seller, call.mrc400id, action, collection);
  return { ...call, old, list, wallet, collection, claim };
}

/**
 * The checks of each item of a list call: a repeated id is refused (not by CC-t's unsell and
 * unauction); CC-m lets only the owner list, reading the collection first in Mrc401Sell, and
 * failing every Mrc401Auction (it unmarshals a string never assigned, "", into the collection).
 */
function claimer(
  stub: Stub,
  caller: string,
  mrc400id: string | null,
  action: Mrc401Action,
  collection: (item: Mrc401Item) => Mrc400Collection,
): (id: string) => Mrc401Item {
  const seen = new Set<string>();
  const unique = mrc400id !== null || action === 'sell' || action === 'auction';
  return (id) => {
    if (unique) expectUnique(seen, id);
    const item = guard(
      () => getMrc401(stub, id),
      (inner) => `3004,MRC401 [${id}] - ${inner}`,
    );
    if (mrc400id === null) {
      permissionCheck(collection(item), item, caller, action);
      return item;
    }
    if (mrc400id !== item.mrc400) throw new ChaincodeError(`3004,MRC401 [${id}] is not MRC400 ${mrc400id} item`);
    if (action === 'sell' || action === 'auction') collection(item);
    if (action === 'auction') throw new ChaincodeError(`3004,MRC400 [${item.mrc400}] is in the wrong data`);
    if (item.owner !== caller) throw new ChaincodeError(`3004,MRC401 [${id}] is not your item`);
    return item;
  };
}

/**
 * Both versions' Mrc401UnSell and Mrc401UnAuction. CC-m reads the list before the wallet, CC-t after
 * checking the nonce; CC-m's unauction logs the list as sent, the rest re-encode it.
 */
export function withdraw(stub: Stub, args: readonly string[], what: 'unsell' | 'unauction'): void {
  const { seller, mrc400id, itemData, sig, nonce } = listCall(stub, args, `mrc401${what}`, 'mrc401unsell');
  const old = mrc400id !== null;
  const idList = () => listArg(() => unmarshalStrings(itemData), old, what);
  const early = old ? idList() : null;
  const wallet = getSigner(stub, seller, nonce);
  const ids = early ?? idList();
  const claim = claimer(stub, seller, mrc400id, what, lastCollection(stub));
  for (const id of ids) {
    const item = claim(id);
    if (what === 'unsell') {
      if (item.sell_date === 0) throw new ChaincodeError(`3004,MRC401 [${id}] is not sale`);
      Object.assign(item, NO_SALE);
    } else {
      if (item.auction_date === 0) throw new ChaincodeError(`3004,MRC401 [${id}] is not auction item`);
      if (item.auction_current_bidder !== '') {
        throw new ChaincodeError(`3004,MRC401 [${id}] there is a bidder, so the auction cannot be canceled`);
      }
      Object.assign(item, NO_AUCTION);
    }
    if (!old) {
      Object.assign(item, NO_PLATFORM);
      item.last_worker = wallet.id;
    }
    setMrc401(stub, id, item, what === 'unsell' ? MRC400.itemUnsell : MRC400.itemUnauction, [id, seller, sig, nonce]);
  }
  const log = old && what === 'unauction' ? itemData : JSON.stringify(ids);
  const walletType = what === 'unsell' ? MRC400.walletItemUnsell : MRC400.walletItemUnauction;
  setAddressInfo(stub, wallet, walletType, [log, seller, sig, nonce]);
}

/** A listed price (an integer from `min` to MAX_PRICE; none for "" when `empty`), its error naming the item and field. */
export function priceArg(value: string, min: string, index: number, field: string, empty = false): string | undefined {
  return guard(
    () => numericDataCheck(value, min, MAX_PRICE, 0, empty),
    (inner) => `3005,${ordNumber(index)} item ${field} error : ${inner}`,
  );
}

/** The pay token of a listed item (expectToken); CC-t also refuses "". */
export function checkSellToken(c: Mrc400Collection, token: string, index: number, old: boolean): void {
  const at = `3005,${ordNumber(index)} item SellToken`;
  if (!old && token === '') throw new ChaincodeError(`${at} not define`);
  expectToken(c, token, old, at);
}

/** CC-t's list loops read an item's collection only when it differs from the previous item's. */
function lastCollection(stub: Stub): (item: Mrc401Item) => Mrc400Collection {
  let last: Mrc400Collection | null = null;
  return (item) => {
    if (last === null || last.id !== item.mrc400) last = getMrc400(stub, item.mrc400);
    return last;
  };
}

/** A list call as `layout` sends it, signed, with the caller's nonce. */
export function listCallOf(
  ctx: PlanContext,
  fcn: string,
  layout: Layout,
  caller: string,
  mrc400id: string,
  data: string,
): Call {
  const sig = fakeSignature(ctx.rng);
  const nonce = ctx.world.wallet(caller)!.nonce;
  return { fcn, args: layout === 'old' ? [caller, mrc400id, data, sig, nonce] : [caller, data, sig, nonce] };
}

/** Idle items of one owner and collection to list at once, and their tokens; null if nobody is free. */
export function planListing(ctx: PlanContext, layout: Layout) {
  const { idle } = ctx.world.mrc400;
  const first = pickItem(ctx, idle, (item) => movable(ctx, item));
  if (!first) return null;
  const c = collectionOfItem(ctx, first);
  const seller = pickSeller(ctx, c, first, layout);
  if (seller === null) return null;
  const more = moreItems(ctx, idle, c, first, (item) => item.owner === first.owner && movable(ctx, item));
  return { c, seller, items: [first, ...more], tokens: allowedTokens(ctx, c, layout) };
}

/** A free wallet to list `item`: its owner, or (CC-t, sometimes) a selling partner when the MRC-400 owner holds it. */
export function pickSeller(ctx: PlanContext, c: Mrc400Collection, item: Mrc401Item, layout: Layout): string | null {
  if (layout === 'new' && item.owner === c.owner && ctx.rng.chance(0.4)) {
    const partners = sortedEntries(c.partner).filter(([a, role]) => SELLS.includes(role) && free(ctx, a));
    if (partners.length > 0) return ctx.rng.pick(partners)[0];
  }
  return free(ctx, item.owner) ? item.owner : null;
}

/** Who may withdraw `item`: its owner, or (CC-t) the still-selling partner who listed it for the MRC-400 owner. */
export function unlister(ctx: PlanContext, c: Mrc400Collection, item: Mrc401Item, layout: Layout): string | null {
  const role = c.partner?.[item.last_worker];
  const partner =
    layout === 'new' && item.owner === c.owner && item.last_worker !== item.owner && SELLS.includes(role ?? '');
  const caller = partner ? item.last_worker : item.owner;
  return free(ctx, caller) ? caller : null;
}

/** Up to three more items of `c` from `ids` (an index list) that `accept` takes. */
export function moreItems(
  ctx: PlanContext,
  ids: readonly string[],
  c: Mrc400Collection,
  first: Mrc401Item,
  accept: (item: Mrc401Item) => boolean,
): Mrc401Item[] {
  const { rng, world } = ctx;
  const out: Mrc401Item[] = [];
  if (rng.chance(0.7)) return out;
  const takes = (id: string) => {
    const item = world.mrc400.item(id)!;
    return id !== first.id && item.mrc400 === c.id && free(ctx, id) && !out.some((x) => x.id === id) && accept(item);
  };
  for (let i = rng.int(1, 3); i > 0; i--) {
    const id = pickId(rng, ids, takes, 4);
    if (id !== null) out.push(world.mrc400.item(id)!);
  }
  return out;
}

/** Every wallet a settlement of `item` may pay: seller, MRC-400 owner, platform, shareholders. */
export function payees(ctx: PlanContext, item: Mrc401Item): string[] {
  const out = [item.id, item.owner, collectionOfItem(ctx, item).owner];
  if (isMtAddress(item.platform_address)) out.push(item.platform_address);
  for (const [address] of sortedEntries(item.shareholder)) out.push(address);
  return out;
}
