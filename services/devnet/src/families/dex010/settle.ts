import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Stub } from '../../world/stub.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import { abs, addPayout, walletJobType, type Payout } from '../dex/settle.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';
import { dexFeeCalc, mrc010SubtractSubBalance, setDex010 } from './chaincode.ts';
import { DEX010_FAMILY } from './order.ts';

/**
 * CC-t `token.go` mrc010DexProcessReqSell: the seller hands over `tradeAmount` of the token and gets
 * `sendPrice` out of the buyer's escrow (saleamount); a platform with an address gets floor(sendPrice
 * × commission / 100), capped at what the escrow still holds. When the request fills, the escrow's
 * rest goes back to the buyer as a `mrc010_recv_fee_remain` payment. Wallet writes carry [from, to,
 * |amount|, payToken, sign, "0", |tradeAmount| ("0" if none), mrc010, tkey].
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
      addPayout(DEX010_FAMILY, payouts, pi.from_addr, pi, 0n, (-decimalOrZero(pi.trade_amount)).toString());
    } else if (pi.type === DEX010_PAYMENT.recvBuy) {
      addPayout(DEX010_FAMILY, payouts, pi.to_addr, pi, 0n, pi.trade_amount);
    } else {
      addPayout(DEX010_FAMILY, payouts, pi.to_addr, pi, decimalOrZero(pi.amount), pi.trade_amount);
    }
  }

  for (const v of payouts.values()) {
    const jobType = walletJobType(DEX010_FAMILY, v.role);
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
    const amounts = [abs(v.amount).toString(), payToken, sign, '0', abs(traded).toString()];
    setAddressInfo(stub, wallet, jobType, [v.fromAddr, v.toAddr, ...amounts, dex.mrc010, tkey]);
  }

  setDex010(stub, dex, DEX010.acceptreqsell, [dex.dexid, dex.buyer, dex.seller, JSON.stringify(payments), dex.mrc010]);
}
