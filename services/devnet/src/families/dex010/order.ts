import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { parsePositive } from '../../chaincode/base.ts';
import { dex010Status, getDex010, mrc010SubtractSubBalance, setDex010, type Dex010Status } from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { MIN_TRADE_UNITS, tradePriceCalc } from '../../chaincode/util.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { DEX010_PREFIX, type Dex010Order } from '../mrc010/records.ts';
import { getMrc010 } from '../mrc010/token.ts';
import { DEX010_AUCTIONS } from '../dex/auctions.ts';
import { CLOSED_MESSAGES, platformFees, sharedWalletJobTypes, type DexFamily } from '../dex/dex.ts';
import { assignPlatform, newGeneratedId, zeroOrder } from '../dex/order-record.ts';
import type { OrderCheck, SaleOpening } from '../dex/order-steps.ts';

/** The min_trade_unit argument ("" means 1); the order amount must be a multiple of it. */
function assignMinTradeUnit(dex: Dex010Order, unit: string, amount: bigint): void {
  if (unit === '') dex.min_trade_unit = '1';
  else if (MIN_TRADE_UNITS.has(unit)) dex.min_trade_unit = unit;
  else throw new ChaincodeError(`3005,MinTradeUnit value error : ${unit}`);
  if (amount % BigInt(dex.min_trade_unit) !== 0n) {
    throw new ChaincodeError(`3005,The amount quantity must be a multiple of ${dex.min_trade_unit}`);
  }
}

function refuseStatus(status: Dex010Status, ...wanted: Dex010Status[]): string | undefined {
  if (wanted.includes(status)) return undefined;
  const messages: Partial<Record<Dex010Status, string>> = CLOSED_MESSAGES;
  return messages[status] ?? `3004,DEX Item status is ${status}, not ${wanted.join(' or ')}`;
}

/** A DEX function's status switch (order-steps.ts): any status but `wanted` is refused. */
export const status =
  (...wanted: Dex010Status[]): OrderCheck<Dex010Order> =>
  (order, now) =>
    refuseStatus(dex010Status(order, now), ...wanted);

/** What mrc010sell and mrc010reqsell (CC-t `token.go`) check besides openSale's: another pay token, min_trade_unit. */
export function dex010Opening(side: 'sell' | 'buy', message: string): SaleOpening<Dex010Order> {
  return {
    count: 12,
    message,
    side,
    payToken(stub, id, item) {
      if (getMrc010(stub, id).token.id === item) {
        throw new ChaincodeError('3005,The sale token must be different from the payment token');
      }
    },
    afterPlatform: (dex, args, amount) => assignMinTradeUnit(dex, args[9]!, amount),
  };
}

/**
 * The MRC-010 DEX (CC-t `token.go`) for the shared DEX steps: tokens escrowed in the balance entry's
 * saleamount/auctionamount, only the platform paid a fee. Quirks kept: a withdrawn auction's amount is
 * taken off saleamount, not auctionamount (auctionamount too high, saleamount too low, maybe negative),
 * and an unsold one's is credited back without lowering auctionamount at all.
 */
export const DEX010_FAMILY: DexFamily<Dex010Order> = {
  name: 'mrc010',
  types: DEX010,
  pay: DEX010_PAYMENT,
  house: DEX010_AUCTIONS,
  walletJobTypes: {
    ...sharedWalletJobTypes(DEX010_PAYMENT, DEX010),
    [DEX010_PAYMENT.sell]: DEX010.transferSell,
    [DEX010_PAYMENT.sendItem]: DEX010.receiveSell,
    [DEX010_PAYMENT.recvBuy]: DEX010.receiveBuy,
  },
  item: (order) => order.mrc010,
  newOrder: (item, fields) =>
    zeroOrder<Dex010Order>(
      'mrc010',
      { afterRemain: { min_trade_unit: '' }, afterSellToken: { buy_price: '', buy_token: '', buy_price_total: '' } },
      { mrc010: item, ...fields },
    ),
  getOrder: getDex010,
  newOrderId: (stub, args) => newGeneratedId(stub, DEX010_PREFIX, args),
  setOrder: setDex010,
  getItem: (stub, id) => getMrc010(stub, id).token.id,
  checkPayToken: (stub, id) => void getMrc010(stub, id),
  assignPlatform: (stub, order, platform) =>
    assignPlatform(stub, order, platform, 256, '3005,PlatformCommission must be 0.00~10.00 : '),
  refuseAuction(order, now, allowed, pending) {
    const current = dex010Status(order, now);
    if (pending !== undefined && (current === 'auction_wait' || current === 'auction') && !allowed.includes(current)) {
      return pending;
    }
    return refuseStatus(current, ...allowed);
  },
  parsePositive: (value) => parsePositive(value, `1101, ${value} is not integer string`),
  tradePrice: (order, unitPrice, amount) => tradePriceCalc(order.min_trade_unit, unitPrice, amount),
  escrow: mrc010Subtract,
  credit: (stub, wallet, item, amount) => mrc010Add(stub, wallet, item, amount, 0),
  settleEscrow: mrc010SubtractSubBalance,
  returnAuctioned(stub, wallet, order, why) {
    mrc010Add(stub, wallet, order.mrc010, order.amount, 0);
    if (why === 'unauction') mrc010SubtractSubBalance(stub, wallet, order.mrc010, order.amount, 'sell');
  },
  endFromNow: () => true,
  fees: (_stub, order) => platformFees(order, DEX010_PAYMENT.recvFeePlatform),
};
