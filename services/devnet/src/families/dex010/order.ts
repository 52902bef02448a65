import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import {
  dex010Status,
  getDex010,
  mrc010SubtractSubBalance,
  newDex010Id,
  setDex010,
  type Dex010Status,
} from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { dataAssign, MIN_TRADE_UNITS, numericDataCheck, tradePriceCalc } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';
import { getMrc010 } from '../mrc010/token.ts';
import { DEX010_AUCTIONS } from '../dex/auctions.ts';
import type { DexFamily } from '../dex/dex.ts';

/** A zero TMRC010DEX (every field at its Go zero value, in struct order) with `fields` filled in. */
export function newOrder(fields: Partial<Dex010Order>): Dex010Order {
  return {
    dexid: '',
    mrc010: '',
    seller: '',
    buyer: '',
    amount: '',
    remain_amount: '',
    min_trade_unit: '',
    platform_name: '',
    platform_url: '',
    platform_address: '',
    platform_commission: '',
    regdate: 0,
    sell_date: 0,
    cancel_date: 0,
    sell_price: '',
    sell_token: '',
    buy_price: '',
    buy_token: '',
    buy_price_total: '',
    auction_bid_count: 0,
    auction_start_date: 0,
    auction_end_date: 0,
    auction_settle_date: 0,
    auction_bidding_unit: '',
    auction_start_price: '',
    auction_buynow_price: '',
    auction_current_price: '',
    auction_current_bidder: '',
    job_type: '',
    job_args: '',
    jobdate: 0,
    ...fields,
  };
}

/**
 * The platform arguments of mrc010sell, mrc010reqsell and mrc010auction (name, URL, fee address,
 * commission 0–10 % with two decimals), each optional. A fee address must be an existing wallet
 * (the check reads it, so it joins the transaction's read set).
 */
export function assignPlatform(
  stub: Stub,
  dex: Dex010Order,
  [name, url, address, commission]: readonly [string, string, string, string],
): void {
  const wrap = (prefix: string, assign: () => void) => {
    try {
      assign();
    } catch (error) {
      if (error instanceof ChaincodeError) throw new ChaincodeError(`${prefix}${error.message}`);
      throw error;
    }
  };
  wrap('3005,Url value error : ', () => {
    dex.platform_name = dataAssign(name, 'text', 1, 256, true) ?? dex.platform_name;
  });
  wrap('3005,Url value error : ', () => {
    dex.platform_url = dataAssign(url, 'url', 1, 256, true) ?? dex.platform_url;
  });
  wrap('3005,Data value error : ', () => {
    dex.platform_address = dataAssign(address, 'address', 40, 40, true) ?? dex.platform_address;
  });
  if (isMtAddress(dex.platform_address)) {
    wrap('3005,PlatformAddress not found : ', () => getAddressInfo(stub, dex.platform_address));
  }
  wrap('3005,PlatformCommission must be 0.00~10.00 : ', () => {
    dex.platform_commission = numericDataCheck(commission, '0.00', '10.00', 2, true) ?? dex.platform_commission;
  });
}

/** The min_trade_unit argument ("" means 1); the order amount must be a multiple of it. */
export function assignMinTradeUnit(dex: Dex010Order, unit: string, amount: bigint): void {
  if (unit === '') dex.min_trade_unit = '1';
  else if (MIN_TRADE_UNITS.has(unit)) dex.min_trade_unit = unit;
  else throw new ChaincodeError(`3005,MinTradeUnit value error : ${unit}`);
  if (amount % BigInt(dex.min_trade_unit) !== 0n) {
    throw new ChaincodeError(`3005,The amount quantity must be a multiple of ${dex.min_trade_unit}`);
  }
}

/** The status switches of the DEX functions: any status but `wanted` is rejected. */
export function expectStatus(status: Dex010Status, ...wanted: Dex010Status[]): void {
  if (wanted.includes(status)) return;
  const messages: Partial<Record<Dex010Status, string>> = {
    cancelled: '3004,DEX Item is already canceled',
    soldout: '3004,DEX Item is already traded',
    auction_end: '3004,DEX Item is already end, use auction finish',
    auction_finish: '3004,DEX Item is already finished',
  };
  throw new ChaincodeError(messages[status] ?? `3004,DEX Item status is ${status}, not ${wanted.join(' or ')}`);
}

/**
 * What mrc010sell and mrc010reqsell check alike (CC-t `token.go`) before their escrow: the calling
 * party (seller or buyer), the amount, the token traded, the per-unit price (kept as sell_price or
 * buy_price), a pay token other than it, the platform and min_trade_unit, and the party's nonce.
 */
export function openOrder(
  stub: Stub,
  side: 'sell' | 'buy',
  args: readonly string[],
  message: string,
): { dex: Dex010Order; wallet: Wallet; amount: bigint; unitPrice: bigint } {
  const [address, amountArg, tokenId, price, payTokenId, name, url, platform, commission, unit, , nonce] = expectArgs(
    args,
    12,
    message,
  );
  const wallet = getAddressInfo(stub, address);
  const amount = parsePositive(amountArg, `1107,${amountArg} is not positive integer`);
  const { token } = getMrc010(stub, tokenId);
  const sell = side === 'sell';
  const dex = newOrder({
    mrc010: token.id,
    [sell ? 'seller' : 'buyer']: wallet.id,
    amount: amount.toString(),
    remain_amount: amount.toString(),
    [sell ? 'sell_token' : 'buy_token']: payTokenId,
    min_trade_unit: '1',
  });
  dex[sell ? 'sell_price' : 'buy_price'] = numericDataCheck(price, '1', '', 0, false)!;
  const unitPrice = parsePositive(price, `1101, ${price} is not integer string`);
  const { token: payToken } = getMrc010(stub, payTokenId);
  if (token.id === payToken.id) {
    throw new ChaincodeError('3005,The sale token must be different from the payment token');
  }
  assignPlatform(stub, dex, [name, url, platform, commission]);
  assignMinTradeUnit(dex, unit, amount);
  nonceCheck(stub, wallet, nonce);
  return { dex, wallet, amount, unitPrice };
}

/** A new order written with its id (md5 of the call args plus a retry digit): [dexid, …the 12 args]. */
export function writeNewOrder(
  stub: Stub,
  dex: Dex010Order,
  wallet: Wallet,
  args: readonly string[],
  [orderType, walletType]: readonly [string, string],
): void {
  dex.dexid = newDex010Id(stub, args);
  const params = [dex.dexid, ...args.slice(0, 12)];
  setDex010(stub, dex, orderType, params);
  setAddressInfo(stub, wallet, walletType, params);
}

/** How a trade against an order of one kind (a sell order, a request to sell) is checked. */
export interface TakeRule {
  /** The job types the order may last have been written with, and the message for another. */
  readonly types: readonly [string, string];
  readonly wrongType: string;
  readonly status: Dex010Status;
  /** The message for the order's own party trading against it. */
  readonly selfTrade: string;
}

/**
 * What mrc010buy and mrc010acceptreqsell check alike (CC-t `token.go`): the order's last write and
 * status, a counterparty (`address`) other than the order's party (`own`) whose nonce is right, and
 * an amount of at most remain_amount, which it lowers. Returns the counterparty's wallet, the amount
 * and its price at the order's unit price `unitPrice` (per min_trade_unit units).
 */
export function takeFromOrder(
  stub: Stub,
  dex: Dex010Order,
  rule: TakeRule,
  own: string,
  unitPrice: string,
  [address, amount, nonce]: readonly [string, string, string],
): { wallet: Wallet; amount: bigint; price: bigint } {
  if (dex.job_type !== rule.types[0] && dex.job_type !== rule.types[1]) throw new ChaincodeError(rule.wrongType);
  expectStatus(dex010Status(dex, stub.now), rule.status);
  if (own === address) throw new ChaincodeError(rule.selfTrade);
  const wallet = getAddressInfo(stub, address);
  nonceCheck(stub, wallet, nonce);
  const traded = parsePositive(amount, `1101, ${amount} is not integer string`);
  const remain = parsePositive(dex.remain_amount, `1101, ${dex.remain_amount} is not integer string`);
  if (remain < traded) throw new ChaincodeError(`3004,The quantity available for purchase is ${remain} pieces.`);
  dex.remain_amount = (remain - traded).toString();
  const unit = parsePositive(unitPrice, `1101, ${unitPrice} is not integer string`);
  return { wallet, amount: traded, price: tradePriceCalc(dex.min_trade_unit, unit, traded) };
}

/**
 * The MRC-010 DEX (CC-t `token.go`) as the shared DEX steps see it: tokens escrowed in the balance
 * entry's saleamount/auctionamount, and only the platform paid a fee. Quirks kept: a withdrawn
 * auction's amount is taken off saleamount, not auctionamount (so auctionamount stays too high and
 * saleamount too low, possibly negative), and an unsold one's is credited back without lowering
 * auctionamount at all.
 */
export const DEX010_FAMILY: DexFamily<Dex010Order> = {
  name: 'mrc010',
  types: DEX010,
  pay: DEX010_PAYMENT,
  house: DEX010_AUCTIONS,
  walletJobTypes: {
    [DEX010_PAYMENT.recvItem]: DEX010.receiveItem,
    [DEX010_PAYMENT.buy]: DEX010.transferBuy,
    [DEX010_PAYMENT.bid]: DEX010.transferBid,
    [DEX010_PAYMENT.recvSell]: DEX010.receiveSell,
    [DEX010_PAYMENT.recvAuction]: DEX010.receiveAuction,
    [DEX010_PAYMENT.recvRefund]: DEX010.receiveRefund,
    [DEX010_PAYMENT.recvFeePlatform]: DEX010.receiveFee,
    [DEX010_PAYMENT.sell]: DEX010.transferSell,
    [DEX010_PAYMENT.sendItem]: DEX010.receiveSell,
    [DEX010_PAYMENT.recvBuy]: DEX010.receiveBuy,
  },
  feeRolePrefix: 'mrc010_recv_fee_',
  item: (order) => order.mrc010,
  newOrder: (item, fields) => newOrder({ mrc010: item, ...fields }),
  getOrder: getDex010,
  newOrderId: newDex010Id,
  setOrder: setDex010,
  getItem: (stub, id) => getMrc010(stub, id).token.id,
  checkPayToken: (stub, id) => void getMrc010(stub, id),
  assignPlatform,
  expectAuction(order, now, allowed, pending) {
    const status = dex010Status(order, now);
    if (pending !== undefined && (status === 'auction_wait' || status === 'auction') && !allowed.includes(status)) {
      throw new ChaincodeError(pending);
    }
    expectStatus(status, ...allowed);
  },
  parseBid: (price) => parsePositive(price, `1101, ${price} is not integer string`),
  escrow: mrc010Subtract,
  credit: (stub, wallet, item, amount) => mrc010Add(stub, wallet, item, amount, 0),
  settleEscrow: mrc010SubtractSubBalance,
  returnAuctioned(stub, wallet, order, why) {
    mrc010Add(stub, wallet, order.mrc010, order.amount, 0);
    if (why === 'unauction') mrc010SubtractSubBalance(stub, wallet, order.mrc010, order.amount, 'sell');
  },
  endFromNow: () => true,
  fees: (_stub, order) =>
    isMtAddress(order.platform_address)
      ? [[order.platform_address, order.platform_commission, DEX010_PAYMENT.recvFeePlatform]]
      : [],
};
