import { getAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { dataAssign, generateKey, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import type { DexJobTypes, DexOrder } from './dex.ts';

/**
 * A zero order (CC-t `token.go` TMRC010DEX, `mrc402.go` TMRC402DEX: Go zero values in struct order)
 * with `fields` filled in; the family's own fields go after `item` (second), remain_amount and sell_token.
 */
export function zeroOrder<O extends DexOrder>(
  item: string,
  own: { afterRemain?: object; afterSellToken?: object },
  fields: Partial<O>,
): O {
  return {
    dexid: '',
    [item]: '',
    seller: '',
    buyer: '',
    amount: '',
    remain_amount: '',
    ...own.afterRemain,
    platform_name: '',
    platform_url: '',
    platform_address: '',
    platform_commission: '',
    regdate: 0,
    sell_date: 0,
    cancel_date: 0,
    sell_price: '',
    sell_token: '',
    ...own.afterSellToken,
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
  } as O;
}

/** Where a family keeps its orders and how its reads and writes fail. */
export interface OrderBook {
  /** `DEX010_`, `DEX402_`: ids are the prefix, 32 hex digits and a retry digit (40 characters). */
  readonly prefix: string;
  /** GetDEX's and setDEX's messages for a malformed id, and the family named in "not exist". */
  readonly invalidId: string;
  readonly family: 'MRC010' | 'MRC402';
  readonly invalidData: string;
  readonly types: DexJobTypes;
  /** The job types that cancel an order (cancel_date) and that fill some of a sale (sell_date at 0). */
  readonly cancels: readonly string[];
  readonly fills: readonly string[];
}

/** CC-t GetDEX010 / GetDEX402: a private copy of the order. */
export function readOrder<O extends DexOrder>(stub: Stub, book: OrderBook, dexid: string): O {
  if (!dexid.startsWith(book.prefix) || dexid.length !== 40) throw new ChaincodeError(book.invalidId);
  const value = stub.getState(dexid);
  if (value === undefined) throw new ChaincodeError(`6004,${book.family} [${dexid}] not exist`);
  return { ...(value as O) };
}

/**
 * CC-t setDEX010 / setDEX402: stamps the job fields, sets regdate on the first write and the date
 * the job type implies (cancel_date on a cancel, sell_date once a sale or request fills, settle and
 * sell dates on a winning settlement, settle date alone on a failed auction), and writes the order.
 */
export function writeOrder(stub: Stub, book: OrderBook, dex: DexOrder, jobType: string, args: readonly string[]) {
  if (!dex.dexid.startsWith(book.prefix) || dex.dexid.length !== 40) throw new ChaincodeError(book.invalidData);
  dex.job_type = jobType;
  dex.jobdate = stub.now;
  dex.job_args = JSON.stringify(args);
  if (dex.regdate === 0) dex.regdate = dex.jobdate;
  const { types } = book;
  if (book.cancels.includes(jobType)) {
    if (dex.cancel_date === 0) dex.cancel_date = dex.jobdate;
  } else if (book.fills.includes(jobType)) {
    if (dex.sell_date === 0 && dex.remain_amount === '0') dex.sell_date = dex.jobdate;
  } else if (jobType === types.auctionwinning || jobType === types.auctionbuynow) {
    if (dex.auction_settle_date === 0) {
      dex.sell_date = dex.jobdate;
      dex.auction_settle_date = dex.jobdate;
    }
  } else if (jobType === types.auctionfailure && dex.auction_settle_date === 0) {
    dex.auction_settle_date = dex.jobdate;
  }
  stub.putState(dex.dexid, dex);
}

/** The id of a new order (or MRC-402): GenerateKey(prefix, call args) plus the first free retry digit (0–9). */
export function newGeneratedId(stub: Stub, prefix: string, args: readonly string[]): string {
  const base = generateKey(prefix, args);
  for (let i = 0; i < 10; i++) {
    const id = `${base}${i}`;
    if (stub.getState(id) === undefined) return id;
  }
  throw new ChaincodeError('3005,Data generate error, retry again');
}

/**
 * Runs a util check whose error the chaincode re-raises behind `prefix` (`errors.New(prefix +
 * err.Error())`), or with `replace` as `prefix` alone (`errors.New("3005,Name must be …")`).
 */
export function prefixed<T>(prefix: string, check: () => T, replace = false): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ChaincodeError) throw new ChaincodeError(replace ? prefix : `${prefix}${error.message}`);
    throw error;
  }
}

/**
 * The optional platform arguments of a sale, request or auction: name and URL of up to `maxLength`
 * bytes, a commission 0–10 % with two decimals (else `commissionError`), and a fee address that must
 * be an existing wallet (the check reads it, so it joins the transaction's read set).
 */
export function assignPlatform(
  stub: Stub,
  dex: DexOrder,
  [name, url, address, commission]: readonly [string, string, string, string],
  maxLength: number,
  commissionError: string,
): void {
  const urlError = '3005,Url value error : ';
  dex.platform_name = prefixed(urlError, () => dataAssign(name, 'text', 1, maxLength, true)) ?? dex.platform_name;
  dex.platform_url = prefixed(urlError, () => dataAssign(url, 'url', 1, maxLength, true)) ?? dex.platform_url;
  dex.platform_address =
    prefixed('3005,Data value error : ', () => dataAssign(address, 'address', 40, 40, true)) ?? dex.platform_address;
  if (isMtAddress(dex.platform_address)) {
    prefixed('3005,PlatformAddress not found : ', () => getAddressInfo(stub, dex.platform_address));
  }
  dex.platform_commission =
    prefixed(commissionError, () => numericDataCheck(commission, '0.00', '10.00', 2, true)) ?? dex.platform_commission;
}
