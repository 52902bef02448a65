import { DEX010 } from '@mtc/domain';
import type { Stub } from '../../world/stub.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';
import { DEX010_PREFIX } from '../mrc010/records.ts';
import { parsePositive } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { decimalOrZero, generateKey, scaled } from '../../chaincode/util.ts';

/** CC-t `token.go` MRC010DexStatus, as dex010Status derives it from an order's fields. */
export type Dex010Status =
  'unknown' | 'sell' | 'buy' | 'cancelled' | 'soldout' | 'auction_wait' | 'auction' | 'auction_end' | 'auction_finish';

/** CC-t `token.go` dex010Status at the peer's clock `now`. */
export function dex010Status(dex: Dex010Order, now: number): Dex010Status {
  if (dex.cancel_date > 0) return 'cancelled';
  if (dex.auction_start_date === 0) {
    if (dex.sell_date !== 0) return 'soldout';
    if (dex.sell_price !== '') return 'sell';
    if (dex.buy_price !== '') return 'buy';
    return 'unknown';
  }
  if (dex.auction_start_date > now) return 'auction_wait';
  if (dex.auction_end_date > now) return 'auction';
  return dex.auction_settle_date === 0 ? 'auction_end' : 'auction_finish';
}

/** CC-t `token.go` GetDEX010: a private copy of the order; an empty min_trade_unit reads as "1". */
export function getDex010(stub: Stub, dexid: string): Dex010Order {
  if (!dexid.startsWith(DEX010_PREFIX) || dexid.length !== 40) throw new ChaincodeError('6102,invalid DEX010 ID');
  const value = stub.getState(dexid);
  if (value === undefined) throw new ChaincodeError(`6004,MRC010 [${dexid}] not exist`);
  const dex = { ...(value as Dex010Order) };
  if (dex.min_trade_unit === '') dex.min_trade_unit = '1';
  return dex;
}

/**
 * CC-t `token.go` setDEX010: stamps the job fields, sets regdate on the first write and the date
 * the job type implies (cancel_date on a cancel, sell_date once a sale or request fills, settle and
 * sell dates on a winning settlement, settle date alone on a failed auction), and writes the order.
 */
export function setDex010(stub: Stub, dex: Dex010Order, jobType: string, args: readonly string[]): void {
  if (!dex.dexid.startsWith(DEX010_PREFIX) || dex.dexid.length !== 40) {
    throw new ChaincodeError('6102,invalid DEX010 data address');
  }
  dex.job_type = jobType;
  dex.jobdate = stub.now;
  dex.job_args = JSON.stringify(args);
  if (dex.regdate === 0) dex.regdate = dex.jobdate;
  switch (jobType) {
    case DEX010.unsell:
    case DEX010.unreqsell:
    case DEX010.unauction:
      if (dex.cancel_date === 0) dex.cancel_date = dex.jobdate;
      break;
    case DEX010.buy:
    case DEX010.acceptreqsell:
      if (dex.sell_date === 0 && dex.remain_amount === '0') dex.sell_date = dex.jobdate;
      break;
    case DEX010.auctionwinning:
    case DEX010.auctionbuynow:
      if (dex.auction_settle_date === 0) {
        dex.sell_date = dex.jobdate;
        dex.auction_settle_date = dex.jobdate;
      }
      break;
    case DEX010.auctionfailure:
      if (dex.auction_settle_date === 0) dex.auction_settle_date = dex.jobdate;
      break;
  }
  stub.putState(dex.dexid, dex);
}

/**
 * The order id the chaincode generates: GenerateKey("DEX010_", call args) plus the first retry
 * digit (0–9) whose key is still free.
 */
export function newDex010Id(stub: Stub, args: readonly string[]): string {
  const base = generateKey(DEX010_PREFIX, args);
  for (let i = 0; i < 10; i++) {
    const id = `${base}${i}`;
    if (stub.getState(id) === undefined) return id;
  }
  throw new ChaincodeError('3005,Data generate error, retry again');
}

/**
 * CC-t `token.go` mrc010SubtractSubBalance: lowers the sale (or auction) amount on the token's first
 * unlockdate-0 entry, without any floor at zero, and leaves balance alone. It fails only when the
 * wallet has no such entry.
 */
export function mrc010SubtractSubBalance(
  stub: Stub,
  wallet: Wallet,
  tokenId: string,
  amount: string,
  kind: 'sell' | 'auction',
): void {
  const subtract = parsePositive(amount, `1104,${amount} is not positive integer`);
  const token = mrc010Id(stub, tokenId);
  const index = wallet.balance.findIndex((e) => e.token === token && e.unlockdate === 0);
  const entry = wallet.balance[index];
  if (!entry) throw new ChaincodeError('5000,Not enough balance');
  wallet.balance[index] =
    kind === 'sell'
      ? { ...entry, saleamount: (decimalOrZero(entry.saleamount) - subtract).toString() }
      : { ...entry, auctionamount: (decimalOrZero(entry.auctionamount) - subtract).toString() };
}

/**
 * CC-t `base.go` DexFeeCalc: floor(base × rate / 100) for a rate of up to two fraction digits. The
 * Go function returns an error for a rate that is empty, not positive or yields no fee; callers
 * treat that as "no fee", which 0 stands for here.
 */
export function dexFeeCalc(base: bigint, rate: string): bigint {
  if (!/^-?[0-9]+(\.[0-9]{1,2})?$/.test(rate)) return 0n;
  const hundredths = scaled(rate, 2);
  if (hundredths <= 0n) return 0n;
  const fee = (base * hundredths) / 10_000n;
  return fee > 0n ? fee : 0n;
}
