import {
  expectArgs,
  getAddressInfo,
  getSigner,
  nonceCheck,
  parsePositive,
  setAddressInfo,
} from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { numericDataCheck } from '../../chaincode/util.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeSignature } from '../../jobs/client.ts';
import type { PlanContext } from '../../jobs/job.ts';
import type { Wallet } from '../mrc010/records.ts';
import { payment, type DexFamily, type DexOrder } from './dex.ts';
import { settleTrade } from './settle.ts';

/**
 * The order calls both DEXes make alike (CC-t `token.go` Mrc010Sell, Mrc010ReqSell, Mrc010UnSell,
 * Mrc010Buy …; `mrc402.go` Mrc402Sell, Mrc402UnSell, Mrc402Buy …). What differs is the family's
 * (DexFamily) or passed as data: each call's checks, in its chaincode's order and with its messages.
 */

/** A check of an order before a call changes it: the message refusing the call, or undefined. */
export type OrderCheck<O> = (order: O, now: number, caller: string) => string | undefined;

export function refuse<O>(when: (order: O, caller: string) => boolean, message: string): OrderCheck<O> {
  return (order, _now, caller) => (when(order, caller) ? message : undefined);
}

export function checkOrder<O>(order: O, now: number, caller: string, checks: readonly OrderCheck<O>[]): void {
  for (const check of checks) {
    const message = check(order, now, caller);
    if (message !== undefined) throw new ChaincodeError(message);
  }
}

/** A cancel's call (dexid, sig, nonce) of `order`, signed by its `party`; null without an order. */
export function cancelCall(
  ctx: PlanContext,
  fcn: string,
  order: DexOrder | null,
  party: 'seller' | 'buyer' = 'seller',
) {
  return order && { fcn, args: [order.dexid, fakeSignature(ctx.rng), ctx.world.wallet(order[party])!.nonce] };
}

/** What a new order's call names first, read in this order: the party's wallet, the amount, the item. */
export function openingParty<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  [address, amount, item]: readonly string[],
  code: string,
): { wallet: Wallet; amount: bigint; item: string } {
  const wallet = getAddressInfo(stub, address!);
  return {
    wallet,
    amount: parsePositive(amount!, `${code},${amount} is not positive integer`),
    item: family.getItem(stub, item!),
  };
}

/** How a family opens a sale or a request to sell: its call's arguments and its own checks. */
export interface SaleOpening<O extends DexOrder> {
  /** The call's argument count (the nonce last) and the message for fewer. */
  readonly count: number;
  readonly message: string;
  /** Whose order it is: a seller's sale, or a buyer's request (buyer, buy_price, buy_token). */
  readonly side: 'sell' | 'buy';
  /** Checks the pay token in place of DexFamily.checkPayToken, knowing the item. */
  readonly payToken?: (stub: Stub, id: string, item: string) => void;
  /** A check of the family's after the platform's. */
  readonly afterPlatform?: (dex: O, args: readonly string[], amount: bigint) => void;
}

/**
 * What a new sale or request (party, amount, item, price, payToken, platformName, platformURL,
 * platformAddress, platformCommission, …, sig, nonce) checks before its escrow, in argument order:
 * the price is per unit (sell_price or buy_price); the family's own checks come before the nonce.
 */
export function openSale<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  args: readonly string[],
  opening: SaleOpening<O>,
): { dex: O; wallet: Wallet; amount: bigint; unitPrice: bigint } {
  const { count, side } = opening;
  const a: readonly string[] = expectArgs(args, count, opening.message);
  const { wallet, amount, item } = openingParty(stub, family, a, '1107');
  const dex = family.newOrder(item, {
    [side === 'sell' ? 'seller' : 'buyer']: wallet.id,
    amount: amount.toString(),
    remain_amount: amount.toString(),
    [`${side}_token`]: a[4],
    [`${side}_price`]: numericDataCheck(a[3]!, '1', '', 0, false)!,
  });
  const unitPrice = family.parsePositive(a[3]!);
  if (opening.payToken) opening.payToken(stub, a[4]!, item);
  else family.checkPayToken(stub, a[4]!);
  family.assignPlatform(stub, dex, [a[5]!, a[6]!, a[7]!, a[8]!]);
  opening.afterPlatform?.(dex, args, amount);
  nonceCheck(stub, wallet, a[count - 1]!);
  return { dex, wallet, amount, unitPrice };
}

/** A new order written with its id (md5 of the call args plus a retry digit): [dexid, …params]. */
export function writeNewOrder<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  { dex, wallet }: { dex: O; wallet: Wallet },
  args: readonly string[],
  params: readonly string[],
  [orderType, walletType]: readonly [string, string],
): void {
  dex.dexid = family.newOrderId(stub, args);
  family.setOrder(stub, dex, orderType, [dex.dexid, ...params]);
  setAddressInfo(stub, wallet, walletType, [dex.dexid, ...params]);
}

/** How a family cancels an order of one kind (a sale, a request, an auction). */
export interface Cancel<O extends DexOrder> {
  /** The message for fewer than three arguments (dexid, sig, nonce). */
  readonly message: string;
  readonly checks: readonly OrderCheck<O>[];
  /** Who signs: the order's seller or (a request) its buyer. */
  readonly party: 'seller' | 'buyer';
  /** Gives the escrow back; returns the params between the party and sig. */
  release(stub: Stub, wallet: Wallet, order: O): string[];
  /** The job types of the order's write and the party's. */
  readonly types: readonly [string, string];
}

/**
 * `…unsell`, `…unreqsell`, `…unauction` (dexid, sig, nonce): the order's checks, the party's nonce,
 * the escrow back, and the order and the party written [dexid, party, …released, sig, nonce].
 */
export function cancelOrder<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  args: readonly string[],
  cancel: Cancel<O>,
): void {
  const [dexid, sig, nonce] = expectArgs(args, 3, cancel.message);
  const dex = family.getOrder(stub, dexid);
  checkOrder(dex, stub.now, '', cancel.checks);
  const party = dex[cancel.party];
  const wallet = getSigner(stub, party, nonce);
  const params = [dex.dexid, party, ...cancel.release(stub, wallet, dex), sig, nonce];
  family.setOrder(stub, dex, cancel.types[0], params);
  setAddressInfo(stub, wallet, cancel.types[1], params);
}

/**
 * What a taker of a sale or request does first (`…buy`, `mrc010acceptreqsell`): the order's checks,
 * the taker's nonce, and an amount of at most remain_amount, which it lowers.
 */
export function takeOrder<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  dex: O,
  checks: readonly OrderCheck<O>[],
  unitPrice: string,
  [address, amount, nonce]: readonly [string, string, string],
): { wallet: Wallet; amount: bigint; price: bigint } {
  checkOrder(dex, stub.now, address, checks);
  const wallet = getSigner(stub, address, nonce);
  const traded = family.parsePositive(amount);
  const remain = family.parsePositive(dex.remain_amount);
  if (remain < traded) throw new ChaincodeError(`3004,The quantity available for purchase is ${remain} pieces.`);
  dex.remain_amount = (remain - traded).toString();
  const price = family.tradePrice(dex, family.parsePositive(unitPrice), traded);
  return { wallet, amount: traded, price };
}

/** `…buy` (dexid, buyer, amount, sig, nonce) → a purchase of part or all of a sale (settleTrade). */
export function buyFromSale<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  args: readonly string[],
  message: string,
  checks: readonly OrderCheck<O>[],
): void {
  const [dexid, buyerAddress, amount, sig, nonce] = expectArgs(args, 5, message);
  const dex = family.getOrder(stub, dexid);
  const taken = takeOrder(stub, family, dex, checks, dex.sell_price, [buyerAddress, amount, nonce]);
  const traded = taken.amount.toString();
  dex.buyer = buyerAddress;
  const payments = [
    payment(dex.buyer, dex.dexid, taken.price.toString(), dex.sell_token, '', '', family.pay.buy),
    payment(dex.dexid, dex.buyer, '', '', traded, family.item(dex), family.pay.recvItem),
  ];
  settleTrade(stub, family, dex, taken.wallet, payments, 'sell', taken.price, traded, sig, nonce);
}
