import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dexFeeCalc, mrc010SubtractSubBalance, setDex010 } from './chaincode.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';

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

/** One wallet's payments of a settlement, summed (the RecvMapType of the Go code). */
interface Payout {
  fromAddr: string;
  toAddr: string;
  amount: bigint;
  tradeAmount: string;
  role: string;
}

/** Go's `strings.Index(t, "mrc010_recv_fee_") == 0`: every platform/creator/shareholder fee role. */
const FEE_ROLE_PREFIX = 'mrc010_recv_fee_';

/**
 * Adds one payment to its wallet's payout. The first payment names the payout; a later one takes
 * the name over from a fee, from a received item (unless the newcomer is a fee) or from a refund, so
 * a wallet paid as seller and as platform in one tx gets one write, named as the seller's.
 */
function addPayout(
  payouts: Map<string, Payout>,
  address: string,
  pi: PaymentInfo,
  amount: bigint,
  tradeAmount: string,
) {
  const known = payouts.get(address);
  if (!known) {
    payouts.set(address, { fromAddr: pi.from_addr, toAddr: pi.to_addr, amount, tradeAmount, role: pi.type });
    return;
  }
  if (
    known.role.startsWith(FEE_ROLE_PREFIX) ||
    (known.role === DEX010_PAYMENT.recvItem && !pi.type.startsWith(FEE_ROLE_PREFIX)) ||
    known.role === DEX010_PAYMENT.recvRefund
  ) {
    known.role = pi.type;
    known.fromAddr = pi.from_addr;
    known.toAddr = pi.to_addr;
  }
  if (tradeAmount !== '' && known.tradeAmount === '') known.tradeAmount = tradeAmount;
  known.amount += amount;
}

/** The wallet job type of a payout role (the switch of mrc010DexProcess / …ReqSell). */
const WALLET_JOB_TYPE: Readonly<Record<string, string>> = {
  [DEX010_PAYMENT.recvItem]: DEX010.receiveItem,
  [DEX010_PAYMENT.buy]: DEX010.transferBuy,
  [DEX010_PAYMENT.bid]: DEX010.transferBid,
  [DEX010_PAYMENT.recvSell]: DEX010.receiveSell,
  [DEX010_PAYMENT.recvAuction]: DEX010.receiveAuction,
  [DEX010_PAYMENT.recvRefund]: DEX010.receiveRefund,
  [DEX010_PAYMENT.recvFeePlatform]: DEX010.receiveFee,
  [DEX010_PAYMENT.sell]: DEX010.transferSell,
  [DEX010_PAYMENT.sendItem]: DEX010.receiveSell,
  [DEX010_PAYMENT.recvBuy]: DEX010.receiveBuy,
};

function walletJobType(role: string): string {
  const type = WALLET_JOB_TYPE[role];
  if (type === undefined) throw new Error(`no wallet job type for DEX010 payment role ${role}`);
  return type;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

/**
 * CC-t `token.go` mrc010DexProcess: settles a purchase of a sell order (`kind` 'sell', from
 * mrc010buy) or an auction (`kind` 'auction', from a buy-now bid or mrc010auctionfinish). The buyer
 * pays `paymentAmount` of the sell token (a bid's price was escrowed already), the platform gets
 * floor(payment × commission / 100) when it has an address, the seller the rest, and the seller's
 * escrow of the item (saleamount or auctionamount) drops by `tradeAmount`. Each wallet gets one write
 * with [from, to, |sum|, sellToken, sign, "0", tradeAmount, mrc010, tkey]; a wallet whose payments
 * sum to zero is not written unless it received the item.
 */
export function settleTrade(
  stub: Stub,
  dex: Dex010Order,
  buyerWallet: Wallet,
  payments: PaymentInfo[],
  kind: 'sell' | 'auction',
  paymentAmount: bigint,
  tradeAmount: string,
  sign: string,
  tkey: string,
): void {
  const auction = kind === 'auction';
  const buyerAddress = auction ? dex.auction_current_bidder : dex.buyer;
  const sellerRole = auction ? DEX010_PAYMENT.recvAuction : DEX010_PAYMENT.recvSell;
  const dexType = !auction
    ? DEX010.buy
    : dex.auction_current_price === dex.auction_buynow_price
      ? DEX010.auctionbuynow
      : DEX010.auctionwinning;

  let receiveAmount = paymentAmount;
  if (isMtAddress(dex.platform_address)) {
    const commission = dexFeeCalc(paymentAmount, dex.platform_commission);
    if (commission > 0n) {
      payments.push(
        payment(
          dex.dexid,
          dex.platform_address,
          commission.toString(),
          dex.sell_token,
          '',
          '',
          DEX010_PAYMENT.recvFeePlatform,
        ),
      );
      receiveAmount -= commission;
    }
  }
  payments.push(payment(dex.dexid, dex.seller, receiveAmount.toString(), dex.sell_token, '', '', sellerRole));

  const payouts = new Map<string, Payout>();
  for (const pi of payments) {
    const pays = pi.type === DEX010_PAYMENT.bid || pi.type === DEX010_PAYMENT.buy;
    const amount = pays ? -decimalOrZero(pi.amount) : decimalOrZero(pi.amount);
    if (pi.type === DEX010_PAYMENT.recvItem) mrc010Add(stub, buyerWallet, dex.mrc010, pi.trade_amount, 0);
    addPayout(payouts, pays ? pi.from_addr : pi.to_addr, pi, amount, pi.trade_amount);
  }

  for (const v of payouts.values()) {
    const jobType = walletJobType(v.role);
    const address = v.role === DEX010_PAYMENT.bid || v.role === DEX010_PAYMENT.buy ? v.fromAddr : v.toAddr;
    const wallet =
      address === dex.buyer || address === dex.auction_current_bidder ? buyerWallet : getAddressInfo(stub, address);
    if (v.amount < 0n) mrc010Subtract(stub, wallet, dex.sell_token, abs(v.amount).toString(), 'normal');
    else if (v.amount > 0n) mrc010Add(stub, wallet, dex.sell_token, v.amount.toString(), 0);
    else if (v.role !== DEX010_PAYMENT.recvItem) continue;
    if (address === dex.seller)
      mrc010SubtractSubBalance(stub, wallet, dex.mrc010, tradeAmount, auction ? 'auction' : 'sell');
    setAddressInfo(stub, wallet, jobType, [
      v.fromAddr,
      v.toAddr,
      abs(v.amount).toString(),
      dex.sell_token,
      sign,
      '0',
      v.tradeAmount,
      dex.mrc010,
      tkey,
    ]);
  }

  dex.buyer = buyerAddress;
  setDex010(stub, dex, dexType, [dex.dexid, dex.seller, buyerAddress, JSON.stringify(payments), dex.mrc010]);
}

/**
 * CC-t `token.go` mrc010DexProcessReqSell: settles a seller's acceptance of a request to sell. The
 * seller hands over `tradeAmount` of the token and gets `sendPrice` of the pay token out of the
 * buyer's escrow (saleamount); the platform, when it has an address, gets floor(sendPrice ×
 * commission / 100), capped at what the escrow still holds. When the request fills, whatever the
 * escrow has left (fee not spent) goes back to the buyer, listed as a `mrc010_recv_fee_remain`
 * payment. Wallet writes carry [from, to, |amount|, payToken, sign, "0", |tradeAmount| ("0" if
 * none), mrc010, tkey].
 */
export function settleRequest(
  stub: Stub,
  dex: Dex010Order,
  sellerWallet: Wallet,
  payments: PaymentInfo[],
  sendPrice: bigint,
  tradeAmount: string,
  sign: string,
  tkey: string,
): void {
  const payToken = dex.buy_token;
  let totalPayment = sendPrice;
  let commission = isMtAddress(dex.platform_address) ? dexFeeCalc(sendPrice, dex.platform_commission) : 0n;
  let remaining = decimalOrZero(dex.buy_price_total) - sendPrice;
  if (commission > 0n) {
    if (remaining < commission) commission = remaining;
    remaining -= commission;
    totalPayment += commission;
    payments.push(
      payment(dex.dexid, dex.platform_address, commission.toString(), payToken, '', '', DEX010_PAYMENT.recvFeePlatform),
    );
  }
  dex.buy_price_total = remaining.toString();
  payments.push(payment(dex.dexid, dex.buyer, '', '', tradeAmount, dex.mrc010, DEX010_PAYMENT.recvBuy));

  const payouts = new Map<string, Payout>();
  for (const pi of payments) {
    if (pi.type === DEX010_PAYMENT.sell) {
      // Go negates the trade amount on its loop copy; the listed payment keeps the positive one.
      addPayout(payouts, pi.from_addr, pi, 0n, (-decimalOrZero(pi.trade_amount)).toString());
    } else if (pi.type === DEX010_PAYMENT.recvBuy) {
      addPayout(payouts, pi.to_addr, pi, 0n, pi.trade_amount);
    } else {
      addPayout(payouts, pi.to_addr, pi, decimalOrZero(pi.amount), pi.trade_amount);
    }
  }

  for (const v of payouts.values()) {
    const jobType = walletJobType(v.role);
    const address = v.role === DEX010_PAYMENT.sell ? v.fromAddr : v.toAddr;
    const wallet = address === dex.seller ? sellerWallet : getAddressInfo(stub, address);
    const traded = decimalOrZero(v.tradeAmount);
    if (traded < 0n) mrc010Subtract(stub, wallet, dex.mrc010, abs(traded).toString(), 'normal');
    else if (traded > 0n) mrc010Add(stub, wallet, dex.mrc010, v.tradeAmount, 0);
    if (v.amount > 0n) mrc010Add(stub, wallet, payToken, v.amount.toString(), 0);
    if (traded >= 0n && v.amount <= 0n && v.role !== DEX010_PAYMENT.recvItem && v.role !== DEX010_PAYMENT.recvBuy) {
      continue;
    }
    if (address === dex.buyer) {
      mrc010SubtractSubBalance(stub, wallet, payToken, totalPayment.toString(), 'sell');
      if (dex.remain_amount === '0' && remaining !== 0n) {
        payments.push(
          payment(dex.dexid, dex.buyer, remaining.toString(), payToken, '', '', DEX010_PAYMENT.recvFeeRemain),
        );
        mrc010SubtractSubBalance(stub, wallet, payToken, remaining.toString(), 'sell');
        mrc010Add(stub, wallet, payToken, remaining.toString(), 0);
        dex.buy_price_total = '0';
      }
    }
    setAddressInfo(stub, wallet, jobType, [
      v.fromAddr,
      v.toAddr,
      abs(v.amount).toString(),
      payToken,
      sign,
      '0',
      abs(traded).toString(),
      dex.mrc010,
      tkey,
    ]);
  }

  setDex010(stub, dex, DEX010.acceptreqsell, [dex.dexid, dex.buyer, dex.seller, JSON.stringify(payments), dex.mrc010]);
}
