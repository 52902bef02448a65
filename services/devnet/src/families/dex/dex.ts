import type { DEX010, DEX010_PAYMENT, MRC402, MRC402_PAYMENT } from '@mtc/domain';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import type { AuctionHouse } from './auctions.ts';
import type { Wallet } from '../mrc010/records.ts';
import type { DexOrder } from './order-fields.ts';

export type { DexOrder } from './order-fields.ts';

/**
 * The DEX of MRC-010 tokens (`token.go`) and of MRC-402 NFTs (`mrc402.go`) are one Go design copied
 * under other names. The shared steps live in this folder and take a DexFamily: what a family names
 * or does its own way (job types, payment roles, item field, codec, ids, escrow and its quirks).
 */

/** The job types both DEXes write, by the names `DEX010` and `MRC402` (@mtc/domain) give them. */
export type DexJobTypes = Readonly<Record<keyof typeof DEX010 & keyof typeof MRC402, string>>;

/** The payment roles both DEXes list (`DEX010_PAYMENT`, `MRC402_PAYMENT`). */
export type DexPaymentRoles = Readonly<Record<keyof typeof DEX010_PAYMENT & keyof typeof MRC402_PAYMENT, string>>;

/** The messages both DEXes refuse a cancelled, sold, ended or settled order with. */
export const CLOSED_MESSAGES = {
  cancelled: '3004,DEX Item is already canceled',
  soldout: '3004,DEX Item is already traded',
  auction_end: '3004,DEX Item is already end, use auction finish',
  auction_finish: '3004,DEX Item is already finished',
} as const;

/** The statuses of an auction order (dex010Status, dex402Status). */
export type AuctionStatus = 'auction_wait' | 'auction' | 'auction_end';

/** Which escrow of a balance entry a DEX step moves: the sale amount or the auction amount. */
export type EscrowKind = 'sell' | 'auction';

export interface DexFamily<O extends DexOrder> {
  /** The prefix of its function names, item ids and messages: `mrc010`, `mrc402`. */
  readonly name: 'mrc010' | 'mrc402';
  readonly types: DexJobTypes;
  readonly pay: DexPaymentRoles;
  readonly house: AuctionHouse;
  /** The wallet job type a settlement writes for each payout role (its DexProcess switch). */
  readonly walletJobTypes: Readonly<Record<string, string>>;
  /** The id of what the order trades (its `mrc010` / `mrc402` field). */
  item(order: O): string;
  /** A zero order with `fields` filled in (order-record.ts zeroOrder). */
  newOrder(item: string, fields: Partial<DexOrder>): O;
  getOrder(stub: Stub, dexid: string): O;
  newOrderId(stub: Stub, args: readonly string[]): string;
  setOrder(stub: Stub, order: O, jobType: string, args: readonly string[]): void;
  /** Reads the item an order would trade, failing when there is none; its id as stored. */
  getItem(stub: Stub, id: string): string;
  checkPayToken(stub: Stub, id: string): void;
  /** The platform arguments (name, URL, fee address, commission), as this chaincode checks them. */
  assignPlatform(stub: Stub, order: O, platform: readonly [string, string, string, string]): void;
  /** The message refusing an order whose status at `now` is not `allowed`; `pending` if not yet ended (or started). */
  refuseAuction(order: O, now: number, allowed: readonly AuctionStatus[], pending?: string): string | undefined;
  /** Parses a positive amount, price or bid, with this chaincode's messages. */
  parsePositive(value: string): bigint;
  tradePrice(order: O, unitPrice: bigint, amount: bigint): bigint;
  escrow(stub: Stub, wallet: Wallet, item: string, amount: string, kind: EscrowKind): void;
  credit(stub: Stub, wallet: Wallet, item: string, amount: string): void;
  /** Lowers the seller's escrow by what a settlement traded. */
  settleEscrow(stub: Stub, wallet: Wallet, item: string, amount: string, kind: EscrowKind): void;
  /** Gives a withdrawn (`unauction`) or unsold (`failure`) auction's amount back to its seller. */
  returnAuctioned(stub: Stub, wallet: Wallet, order: O, why: 'unauction' | 'failure'): void;
  /** Whether an auction's end is measured from now rather than from its start. */
  endFromNow(stub: Stub): boolean;
  /** The fees a settlement pays out of `payment` before the seller's rest. */
  fees(stub: Stub, order: O): Fee[];
}

/** A fee of a settlement: [to, rate, role]. */
export type Fee = [string, string, string];

/** The platform's fee of an order, when the order names a platform address. */
export const platformFees = (order: DexOrder, role: string): Fee[] =>
  isMtAddress(order.platform_address) ? [[order.platform_address, order.platform_commission, role]] : [];

/** The wallet job types both DEXes write for the payout roles they share (their DexProcess switches). */
export const sharedWalletJobTypes = (pay: DexPaymentRoles, t: DexJobTypes): Record<string, string> => ({
  [pay.recvItem]: t.receiveItem,
  [pay.buy]: t.transferBuy,
  [pay.bid]: t.transferBid,
  [pay.recvSell]: t.receiveSell,
  [pay.recvAuction]: t.receiveAuction,
  [pay.recvRefund]: t.receiveRefund,
  [pay.recvFeePlatform]: t.receiveFee,
});

/** CC-t `mtc/mtc.go` TDexPaymentInfo, in its JSON field order. */
export interface PaymentInfo {
  from_addr: string;
  to_addr: string;
  amount: string;
  token: string;
  trade_amount: string;
  trade_id: string;
  type: string;
}

export function payment(
  from_addr: string,
  to_addr: string,
  amount: string,
  token: string,
  trade_amount: string,
  trade_id: string,
  type: string,
): PaymentInfo {
  return { from_addr, to_addr, amount, token, trade_amount, trade_id, type };
}
