import { MRC402, MRC402_PAYMENT as PAY } from '@mtc/domain';
import { getAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  dex402Status,
  getDex402,
  getMrc402,
  mrc402Add,
  mrc402Subtract,
  mrc402SubtractSubBalance,
  newGeneratedId,
  parsePositiveRaw,
  setDex402,
  wrap,
  type Dex402Status,
} from './chaincode.ts';
import { dataAssign, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import { DEX402_PREFIX, newDex402, sortedEntries, type Dex402Order } from './records.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { DEX402_AUCTIONS } from '../dex/auctions.ts';
import type { DexFamily } from '../dex/dex.ts';
import type { Stub } from '../../world/stub.ts';

/**
 * The platform arguments of mrc402sell and mrc402auction (name, URL, fee address, commission 0–10 %
 * with two decimals), each optional, checked as CC-t `mrc402.go` does (255-byte limits, its own
 * messages). A fee address must be an existing wallet (the check reads it).
 */
export function assignPlatform(
  stub: Stub,
  dex: Dex402Order,
  [name, url, address, commission]: readonly [string, string, string, string],
): void {
  const check = <T>(assign: () => T, prefix: string): T => {
    try {
      return assign();
    } catch (error) {
      throw wrap(error, prefix);
    }
  };
  dex.platform_name =
    check(() => dataAssign(name, 'text', 1, 255, true), '3005,Url value error : ') ?? dex.platform_name;
  dex.platform_url = check(() => dataAssign(url, 'url', 1, 255, true), '3005,Url value error : ') ?? dex.platform_url;
  dex.platform_address =
    check(() => dataAssign(address, 'address', 40, 40, true), '3005,Data value error : ') ?? dex.platform_address;
  if (isMtAddress(dex.platform_address)) {
    check(() => getAddressInfo(stub, dex.platform_address), '3005,PlatformAddress not found : ');
  }
  dex.platform_commission =
    check(() => numericDataCheck(commission, '0.00', '10.00', 2, true), '3005,Data value error : ') ??
    dex.platform_commission;
}

/**
 * The status switches of the DEX402 functions: `allowed` passes, any other status is refused with
 * the message that function gives it.
 */
export function expectStatus(
  status: Dex402Status,
  allowed: readonly Dex402Status[],
  messages: Partial<Record<Dex402Status, string>>,
): void {
  if (allowed.includes(status)) return;
  throw new ChaincodeError(messages[status] ?? '3004,DEX Item status is unknown');
}

const NOT_AUCTION_ITEM = '3004,DEX Item is not auction item';

/** The messages most DEX402 switches share. */
export const STATUS_MESSAGES: Readonly<Partial<Record<Dex402Status, string>>> = {
  cancelled: '3004,DEX Item is already canceled',
  soldout: '3004,DEX Item is already traded',
  auction_end: '3004,DEX Item is already end, use auction finish',
  auction_finish: '3004,DEX Item is already finished',
};

/**
 * The DEX402 (CC-t `mrc402.go`) as the shared DEX steps see it: units escrowed in the holding's
 * saleamount/auctionamount, and a settlement pays the creator, the platform and each shareholder
 * (in key order, where Go's map order is random). The current chaincode measures an auction's span
 * from its start; v2.3 (CC-m) measured it from now, the one difference between the two versions'
 * MRC-402 code.
 */
export const DEX402_FAMILY: DexFamily<Dex402Order> = {
  name: 'mrc402',
  types: MRC402,
  pay: PAY,
  house: DEX402_AUCTIONS,
  walletJobTypes: {
    [PAY.recvItem]: MRC402.receiveItem,
    [PAY.buy]: MRC402.transferBuy,
    [PAY.bid]: MRC402.transferBid,
    [PAY.recvSell]: MRC402.receiveSell,
    [PAY.recvAuction]: MRC402.receiveAuction,
    [PAY.recvRefund]: MRC402.receiveRefund,
    [PAY.recvFeeCreator]: MRC402.receiveFee,
    [PAY.recvFeePlatform]: MRC402.receiveFee,
    [PAY.recvFeeShareholder]: MRC402.receiveFee,
  },
  feeRolePrefix: 'mrc402_recv_fee_',
  item: (order) => order.mrc402,
  newOrder: (item, fields) => newDex402({ mrc402: item, ...fields }),
  getOrder: getDex402,
  newOrderId: (stub, args) => newGeneratedId(stub, DEX402_PREFIX, args),
  setOrder: setDex402,
  getItem: (stub, id) => getMrc402(stub, id).id,
  checkPayToken: (stub, id) => void mrc010Id(stub, id),
  assignPlatform,
  expectAuction: (order, now, allowed, pending) =>
    expectStatus(dex402Status(order, now), allowed, {
      ...STATUS_MESSAGES,
      sale: NOT_AUCTION_ITEM,
      soldout: NOT_AUCTION_ITEM,
      ...(pending === undefined ? {} : { auction_wait: pending, auction: pending }),
    }),
  parseBid: parsePositiveRaw,
  escrow: mrc402Subtract,
  credit: (stub, wallet, item, amount) => mrc402Add(stub, wallet, item, amount, 'normal'),
  settleEscrow: mrc402SubtractSubBalance,
  returnAuctioned: (stub, wallet, order) => mrc402Add(stub, wallet, order.mrc402, order.amount, 'auction'),
  endFromNow: (stub) => stub.chaincode === 'v2.3',
  fees(stub, order) {
    const token = getMrc402(stub, order.mrc402);
    return [
      [token.creator, token.creatorcommission, PAY.recvFeeCreator],
      ...(isMtAddress(order.platform_address)
        ? [[order.platform_address, order.platform_commission, PAY.recvFeePlatform] as [string, string, string]]
        : []),
      ...sortedEntries(token.shareholder).map(([shareholder, rate]): [string, string, string] => [
        shareholder,
        rate,
        PAY.recvFeeShareholder,
      ]),
    ];
  },
};
