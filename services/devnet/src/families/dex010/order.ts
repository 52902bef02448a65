import { getAddressInfo } from '../../chaincode/base.ts';
import type { Dex010Status } from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { dataAssign, MIN_TRADE_UNITS, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import type { Dex010Order } from '../mrc010/records.ts';

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
