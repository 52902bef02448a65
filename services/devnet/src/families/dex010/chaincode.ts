import { DEX010 } from '@mtc/domain';
import type { Stub } from '../../world/stub.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';
import { DEX010_PREFIX } from '../mrc010/records.ts';
import { parsePositive } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { decimalOrZero, scaled } from '../../chaincode/util.ts';
import { readOrder, writeOrder, type OrderBook } from '../dex/order-record.ts';

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

const DEX010_BOOK: OrderBook = {
  prefix: DEX010_PREFIX,
  invalidId: '6102,invalid DEX010 ID',
  family: 'MRC010',
  invalidData: '6102,invalid DEX010 data address',
  types: DEX010,
  cancels: [DEX010.unsell, DEX010.unreqsell, DEX010.unauction],
  fills: [DEX010.buy, DEX010.acceptreqsell],
};

/** CC-t `token.go` GetDEX010: a private copy of the order; an empty min_trade_unit reads as "1". */
export function getDex010(stub: Stub, dexid: string): Dex010Order {
  const dex = readOrder<Dex010Order>(stub, DEX010_BOOK, dexid);
  if (dex.min_trade_unit === '') dex.min_trade_unit = '1';
  return dex;
}

/** CC-t `token.go` setDEX010 (order-record.ts writeOrder). */
export function setDex010(stub: Stub, dex: Dex010Order, jobType: string, args: readonly string[]): void {
  writeOrder(stub, DEX010_BOOK, dex, jobType, args);
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
  const field = kind === 'sell' ? 'saleamount' : 'auctionamount';
  wallet.balance[index] = { ...entry, [field]: (decimalOrZero(entry[field]) - subtract).toString() };
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
