import { MRC402, MRC402_PAYMENT as PAY } from '@mtc/domain';
import { getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dexFeeCalc } from '../dex010/chaincode.ts';
import { getMrc402, mrc402Add, mrc402SubtractSubBalance, setDex402 } from './chaincode.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import { sortedEntries, type Dex402Order } from './records.ts';
import type { Stub } from '../../world/stub.ts';
import type { Wallet } from '../mrc010/records.ts';
import { payment, type PaymentInfo } from '../dex010/settle.ts';

export { payment, type PaymentInfo };

/** One wallet's payments of a settlement, summed (the RecvMapType of the Go code). */
interface Payout {
  fromAddr: string;
  toAddr: string;
  amount: bigint;
  tradeAmount: string;
  role: string;
}

/** Go's `strings.Index(t, "mrc402_recv_fee_") == 0`: the creator, platform and shareholder fees. */
const FEE_ROLE_PREFIX = 'mrc402_recv_fee_';

/** The wallet job type of a payout role (the switch of mrc402DexProcess). */
const WALLET_JOB_TYPE: Readonly<Record<string, string>> = {
  [PAY.recvItem]: MRC402.receiveItem,
  [PAY.buy]: MRC402.transferBuy,
  [PAY.bid]: MRC402.transferBid,
  [PAY.recvSell]: MRC402.receiveSell,
  [PAY.recvAuction]: MRC402.receiveAuction,
  [PAY.recvRefund]: MRC402.receiveRefund,
  [PAY.recvFeeCreator]: MRC402.receiveFee,
  [PAY.recvFeePlatform]: MRC402.receiveFee,
  [PAY.recvFeeShareholder]: MRC402.receiveFee,
};

const pays = (role: string) => role === PAY.bid || role === PAY.buy;
const abs = (n: bigint) => (n < 0n ? -n : n);

/**
 * Adds one payment to its wallet's payout. The first payment names the payout; a later one takes
 * the name over from a fee, from a received item (unless the newcomer is a fee) or from a refund,
 * so a wallet paid as seller and as creator in one transaction gets one write, named as the
 * seller's, and a winner who is also the creator gets `receive_mrc402item` carrying the fee.
 */
function addPayout(payouts: Map<string, Payout>, address: string, pi: PaymentInfo, amount: bigint): void {
  const known = payouts.get(address);
  if (!known) {
    payouts.set(address, {
      fromAddr: pi.from_addr,
      toAddr: pi.to_addr,
      amount,
      tradeAmount: pi.trade_amount,
      role: pi.type,
    });
    return;
  }
  if (
    known.role.startsWith(FEE_ROLE_PREFIX) ||
    (known.role === PAY.recvItem && !pi.type.startsWith(FEE_ROLE_PREFIX)) ||
    known.role === PAY.recvRefund
  ) {
    known.role = pi.type;
    known.fromAddr = pi.from_addr;
    known.toAddr = pi.to_addr;
  }
  if (pi.trade_amount !== '' && known.tradeAmount === '') known.tradeAmount = pi.trade_amount;
  known.amount += amount;
}

/**
 * CC-t `mrc402.go` mrc402DexProcess: settles a purchase from a sale (`kind` 'sell', from mrc402buy)
 * or an auction (`kind` 'auction', from a buy-now bid or mrc402auctionfinish).
 *
 * The payment is price × quantity for a sale, the current bid for an auction. Out of it the
 * creator gets floor(payment × creatorcommission / 100), the platform (when its address is one)
 * floor(payment × platform_commission / 100), each shareholder floor(payment × its commission /
 * 100) — each fee computed on the whole payment, a zero fee not listed — and the seller the rest.
 * The buyer receives the NFTs (mrc402Add) and pays what `payments` lists for it (a sale's price, a
 * buy-now bid; a finished auction's bid was escrowed already). Payments are summed per wallet
 * (addPayout) and each wallet written once, [from, to, |sum|, sellToken, sign, "0", tradeAmount,
 * mrc402, tkey]; the seller's escrow (saleamount or auctionamount) drops by `tradeAmount`.
 *
 * Quirk kept: a wallet whose payments sum to zero is not written unless its payout is the item
 * itself, so a buy-now bidder who was the previous bidder and whose refund plus fees exactly match
 * the new bid would lose the NFTs credited to it (planners never propose that call).
 */
export function settleTrade(
  stub: Stub,
  dex: Dex402Order,
  buyerWallet: Wallet,
  payments: PaymentInfo[],
  kind: 'sell' | 'auction',
  tradeAmount: string,
  sign: string,
  tkey: string,
): void {
  const auction = kind === 'auction';
  const buyerAddress = auction ? dex.auction_current_bidder : dex.buyer;
  const sellerRole = auction ? PAY.recvAuction : PAY.recvSell;
  const dexType = !auction
    ? MRC402.buy
    : dex.auction_current_price === dex.auction_buynow_price
      ? MRC402.auctionbuynow
      : MRC402.auctionwinning;
  const paymentAmount = auction
    ? decimalOrZero(dex.auction_current_price)
    : decimalOrZero(tradeAmount) * decimalOrZero(dex.sell_price);

  const token = getMrc402(stub, dex.mrc402);
  let receiveAmount = paymentAmount;
  const fee = (to: string, rate: string, role: string) => {
    const commission = dexFeeCalc(paymentAmount, rate);
    if (commission <= 0n) return;
    payments.push(payment(dex.dexid, to, commission.toString(), dex.sell_token, '', '', role));
    receiveAmount -= commission;
  };
  fee(token.creator, token.creatorcommission, PAY.recvFeeCreator);
  if (isMtAddress(dex.platform_address)) fee(dex.platform_address, dex.platform_commission, PAY.recvFeePlatform);
  for (const [shareholder, rate] of sortedEntries(token.shareholder)) fee(shareholder, rate, PAY.recvFeeShareholder);
  payments.push(payment(dex.dexid, dex.seller, receiveAmount.toString(), dex.sell_token, '', '', sellerRole));

  const payouts = new Map<string, Payout>();
  for (const pi of payments) {
    const amount = pays(pi.type) ? -decimalOrZero(pi.amount) : decimalOrZero(pi.amount);
    if (pi.type === PAY.recvItem) mrc402Add(stub, buyerWallet, dex.mrc402, pi.trade_amount, 'normal');
    addPayout(payouts, pays(pi.type) ? pi.from_addr : pi.to_addr, pi, amount);
  }

  for (const v of payouts.values()) {
    const jobType = WALLET_JOB_TYPE[v.role];
    if (jobType === undefined) throw new Error(`no wallet job type for MRC402 payment role ${v.role}`);
    const address = pays(v.role) ? v.fromAddr : v.toAddr;
    const wallet =
      address === dex.buyer || address === dex.auction_current_bidder ? buyerWallet : getAddressInfo(stub, address);
    if (v.amount < 0n) mrc010Subtract(stub, wallet, dex.sell_token, abs(v.amount).toString(), 'normal');
    else if (v.amount > 0n) mrc010Add(stub, wallet, dex.sell_token, v.amount.toString(), 0);
    else if (v.role !== PAY.recvItem) continue;
    if (address === dex.seller) mrc402SubtractSubBalance(stub, wallet, dex.mrc402, tradeAmount, kind);
    setAddressInfo(stub, wallet, jobType, [
      v.fromAddr,
      v.toAddr,
      abs(v.amount).toString(),
      dex.sell_token,
      sign,
      '0',
      v.tradeAmount,
      dex.mrc402,
      tkey,
    ]);
  }

  dex.buyer = buyerAddress;
  setDex402(stub, dex, dexType, [dex.dexid, dex.seller, buyerAddress, JSON.stringify(payments), dex.mrc402]);
}
