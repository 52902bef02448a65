import { getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import type { Stub } from '../../world/stub.ts';
import { dexFeeCalc } from '../dex010/chaincode.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import type { Wallet } from '../mrc010/records.ts';
import { payment, type DexFamily, type DexOrder, type EscrowKind, type PaymentInfo } from './dex.ts';

/** One wallet's payments of a settlement, summed (the RecvMapType of the Go code). */
export interface Payout {
  fromAddr: string;
  toAddr: string;
  amount: bigint;
  tradeAmount: string;
  role: string;
}

/**
 * Adds one payment to its wallet's payout. The first payment names it; a later one takes the name
 * over from a fee, a received item (unless the newcomer is a fee) or a refund: a wallet paid as seller
 * and as platform (or creator) gets one write named as the seller's, and a winner who is also a payee
 * the item's write carrying the fee.
 */
export function addPayout<O extends DexOrder>(
  family: DexFamily<O>,
  payouts: Map<string, Payout>,
  address: string,
  pi: PaymentInfo,
  amount: bigint,
  tradeAmount: string,
): void {
  const known = payouts.get(address);
  if (!known) {
    payouts.set(address, { fromAddr: pi.from_addr, toAddr: pi.to_addr, amount, tradeAmount, role: pi.type });
    return;
  }
  // Go's `strings.Index(t, "<family>_recv_fee_") == 0`: the roles of every fee.
  const fee = `${family.name}_recv_fee_`;
  if (
    known.role.startsWith(fee) ||
    (known.role === family.pay.recvItem && !pi.type.startsWith(fee)) ||
    known.role === family.pay.recvRefund
  ) {
    known.role = pi.type;
    known.fromAddr = pi.from_addr;
    known.toAddr = pi.to_addr;
  }
  if (tradeAmount !== '' && known.tradeAmount === '') known.tradeAmount = tradeAmount;
  known.amount += amount;
}

export function walletJobType<O extends DexOrder>(family: DexFamily<O>, role: string): string {
  const type = family.walletJobTypes[role];
  if (type === undefined) throw new Error(`no wallet job type for ${family.name} DEX payment role ${role}`);
  return type;
}

export const abs = (n: bigint) => (n < 0n ? -n : n);

/**
 * CC-t DexProcess (`token.go` mrc010DexProcess, `mrc402.go` mrc402DexProcess): settles a sale (`kind`
 * 'sell', from a buy) or an auction ('auction', from a buy-now bid or a finish). The buyer pays
 * `paymentAmount` of the sell token (a finished auction's bid was escrowed already) and receives the
 * item as `payments` list it; the family's fees (DexFamily.fees), each floor(payment × rate / 100) and
 * not listed when zero, come out of it, the seller gets the rest. Each wallet is written once with its
 * summed payments (addPayout), [from, to, |sum|, sellToken, sign, "0", tradeAmount, item, tkey]; the
 * seller's escrow (saleamount or auctionamount) drops by `tradeAmount`. Quirk kept: a wallet whose
 * payments sum to zero is not written unless its payout is the item itself, so a buy-now bidder who
 * was the previous bidder and whose refund plus fees exactly match the new bid would lose the item
 * credited to it (planners never propose that call).
 */
export function settleTrade<O extends DexOrder>(
  stub: Stub,
  family: DexFamily<O>,
  dex: O,
  buyerWallet: Wallet,
  payments: PaymentInfo[],
  kind: EscrowKind,
  paymentAmount: bigint,
  tradeAmount: string,
  sign: string,
  tkey: string,
): void {
  const { pay, types } = family;
  const item = family.item(dex);
  const auction = kind === 'auction';
  const buyerAddress = auction ? dex.auction_current_bidder : dex.buyer;
  const sellerRole = auction ? pay.recvAuction : pay.recvSell;
  const dexType = !auction
    ? types.buy
    : dex.auction_current_price === dex.auction_buynow_price
      ? types.auctionbuynow
      : types.auctionwinning;

  let receiveAmount = paymentAmount;
  for (const [to, rate, role] of family.fees(stub, dex)) {
    const commission = dexFeeCalc(paymentAmount, rate);
    if (commission <= 0n) continue;
    payments.push(payment(dex.dexid, to, commission.toString(), dex.sell_token, '', '', role));
    receiveAmount -= commission;
  }
  payments.push(payment(dex.dexid, dex.seller, receiveAmount.toString(), dex.sell_token, '', '', sellerRole));

  const pays = (role: string) => role === pay.bid || role === pay.buy;
  const payouts = new Map<string, Payout>();
  for (const pi of payments) {
    const amount = pays(pi.type) ? -decimalOrZero(pi.amount) : decimalOrZero(pi.amount);
    if (pi.type === pay.recvItem) family.credit(stub, buyerWallet, item, pi.trade_amount);
    addPayout(family, payouts, pays(pi.type) ? pi.from_addr : pi.to_addr, pi, amount, pi.trade_amount);
  }

  for (const v of payouts.values()) {
    const jobType = walletJobType(family, v.role);
    const address = pays(v.role) ? v.fromAddr : v.toAddr;
    const wallet =
      address === dex.buyer || address === dex.auction_current_bidder ? buyerWallet : getAddressInfo(stub, address);
    if (v.amount < 0n) mrc010Subtract(stub, wallet, dex.sell_token, abs(v.amount).toString(), 'normal');
    else if (v.amount > 0n) mrc010Add(stub, wallet, dex.sell_token, v.amount.toString(), 0);
    else if (v.role !== pay.recvItem) continue;
    if (address === dex.seller) family.settleEscrow(stub, wallet, item, tradeAmount, kind);
    const args = [v.fromAddr, v.toAddr, abs(v.amount).toString(), dex.sell_token, sign, '0', v.tradeAmount, item, tkey];
    setAddressInfo(stub, wallet, jobType, args);
  }

  dex.buyer = buyerAddress;
  family.setOrder(stub, dex, dexType, [dex.dexid, dex.seller, buyerAddress, JSON.stringify(payments), item]);
}
