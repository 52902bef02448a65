import { parsePositiveRaw, sortedEntries } from '../../chaincode/util.ts';
import { MRC402, MRC402_PAYMENT as PAY } from '@mtc/domain';
import {
  dex402Status,
  getDex402,
  getMrc402,
  mrc402Add,
  mrc402Subtract,
  mrc402SubtractSubBalance,
  setDex402,
  type Dex402Status,
} from './chaincode.ts';
import { DEX402_PREFIX, type Dex402Order } from './records.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { DEX402_AUCTIONS } from '../dex/auctions.ts';
import { CLOSED_MESSAGES, platformFees, sharedWalletJobTypes, type DexFamily, type Fee } from '../dex/dex.ts';
import { assignPlatform, newGeneratedId, zeroOrder } from '../dex/order-record.ts';
import type { OrderCheck } from '../dex/order-steps.ts';

const NOT_AUCTION_ITEM = '3004,DEX Item is not auction item';

/** The messages most DEX402 switches share. */
export const STATUS_MESSAGES: Readonly<Partial<Record<Dex402Status, string>>> = CLOSED_MESSAGES;

/** A DEX402 function's status switch (order-steps.ts): any status but `allowed` refused with its message. */
export function status(
  allowed: readonly Dex402Status[],
  messages: Partial<Record<Dex402Status, string>> = STATUS_MESSAGES,
): OrderCheck<Dex402Order> {
  return (order, now) => {
    const current = dex402Status(order, now);
    return allowed.includes(current) ? undefined : (messages[current] ?? '3004,DEX Item status is unknown');
  };
}

/**
 * The DEX402 (CC-t `mrc402.go`) for the shared DEX steps: units escrowed in the holding's
 * saleamount/auctionamount; a settlement pays creator, platform and each shareholder (key order, where
 * Go's is random). The current chaincode measures an auction's span from its start, v2.3 (CC-m) from
 * now: the one difference between the two versions' MRC-402 code.
 */
export const DEX402_FAMILY: DexFamily<Dex402Order> = {
  name: 'mrc402',
  types: MRC402,
  pay: PAY,
  house: DEX402_AUCTIONS,
  walletJobTypes: {
    ...sharedWalletJobTypes(PAY, MRC402),
    [PAY.recvFeeCreator]: MRC402.receiveFee,
    [PAY.recvFeeShareholder]: MRC402.receiveFee,
  },
  item: (order) => order.mrc402,
  newOrder: (item, fields) => zeroOrder<Dex402Order>('mrc402', {}, { mrc402: item, ...fields }),
  getOrder: getDex402,
  newOrderId: (stub, args) => newGeneratedId(stub, DEX402_PREFIX, args),
  setOrder: setDex402,
  getItem: (stub, id) => getMrc402(stub, id).id,
  checkPayToken: (stub, id) => void mrc010Id(stub, id),
  assignPlatform: (stub, order, platform) => assignPlatform(stub, order, platform, 255, '3005,Data value error : '),
  refuseAuction: (order, now, allowed, pending) =>
    status(allowed, {
      ...STATUS_MESSAGES,
      sale: NOT_AUCTION_ITEM,
      soldout: NOT_AUCTION_ITEM,
      ...(pending === undefined ? {} : { auction_wait: pending, auction: pending }),
    })(order, now, ''),
  parsePositive: parsePositiveRaw,
  tradePrice: (_order, unitPrice, amount) => unitPrice * amount,
  escrow: mrc402Subtract,
  credit: (stub, wallet, item, amount) => mrc402Add(stub, wallet, item, amount, 'normal'),
  settleEscrow: mrc402SubtractSubBalance,
  returnAuctioned: (stub, wallet, order) => mrc402Add(stub, wallet, order.mrc402, order.amount, 'auction'),
  endFromNow: (stub) => stub.chaincode === 'v2.3',
  fees(stub, order) {
    const token = getMrc402(stub, order.mrc402);
    return [
      [token.creator, token.creatorcommission, PAY.recvFeeCreator],
      ...platformFees(order, PAY.recvFeePlatform),
      ...sortedEntries(token.shareholder).map(([to, rate]): Fee => [to, rate, PAY.recvFeeShareholder]),
    ];
  },
};
