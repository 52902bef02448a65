import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dex010Status, getDex010, mrc010SubtractSubBalance, setDex010 } from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { fakeSignature } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { DEX010_FAMILY, expectStatus, openOrder, takeFromOrder, writeNewOrder, type TakeRule } from './order.ts';
import {
  hasOpenEntry,
  pickOrder,
  pickPayToken,
  pickSeller,
  planMinTradeUnit,
  planPlatform,
  planPrice,
  planTake,
} from './plan.ts';
import { payment } from '../dex/dex.ts';
import { settleTrade } from '../dex/settle.ts';

/**
 * `mrc010sell` (seller, amount, tokenId, price, payToken, platformName, platformURL,
 * platformAddress, platformCommission, minTradeUnit, sig, nonce) → a new `DEX010_…` order written
 * `mrc010_sell` and the seller written `mrc010sell`, both with [dexid, …the 12 call args]; the
 * amount moves from the seller's balance into saleamount on the token's unlockdate-0 entry (CC-t
 * `token.go` Mrc010Sell). The price is per min_trade_unit units; the pay token must differ from the
 * token sold. The id is md5 of all call args (signature included) plus a retry digit.
 */
export const mrc010SellJob: Job = {
  fcn: 'mrc010sell',
  weight: 3,
  writes: [DEX010.sell, DEX010.walletSell],
  plan(ctx) {
    const { world, rng } = ctx;
    const seller = pickSeller(ctx);
    if (!seller) return null;
    const payToken = pickPayToken(ctx, seller.token);
    if (payToken === null) return null;
    let unit = planMinTradeUnit(rng, world.token(seller.token)!.decimal);
    if (seller.available < BigInt(unit || '1')) unit = '1';
    const unitSize = BigInt(unit || '1');
    const units = portion(rng, seller.available / unitSize, 1, 60);
    return {
      fcn: 'mrc010sell',
      args: [
        seller.wallet.id,
        (units * unitSize).toString(),
        String(seller.token),
        planPrice(rng, world.token(payToken)!.decimal).toString(),
        String(payToken),
        ...planPlatform(ctx, seller.wallet.id),
        unit,
        fakeSignature(rng),
        seller.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const { dex, wallet, amount } = openOrder(
      stub,
      'sell',
      args,
      '1000,mrc010sell operation must include four arguments : seller, amount, mrc010id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, mintradeunit, signature, nonce',
    );
    mrc010Subtract(stub, wallet, dex.mrc010, amount.toString(), 'sell');
    writeNewOrder(stub, dex, wallet, args, [DEX010.sell, DEX010.walletSell]);
  },
};

/**
 * `mrc010unsell` (dexid, sig, nonce) → the order written `mrc010_unsell` (cancel_date set) and the
 * seller `mrc010unsell`, both [dexid, seller, remain, token, price, payToken, sig, nonce]; the
 * unsold remainder leaves saleamount and returns to the balance (CC-t `token.go` Mrc010UnSell).
 */
export const mrc010UnsellJob: Job = {
  fcn: 'mrc010unsell',
  weight: 1,
  writes: [DEX010.unsell, DEX010.walletUnsell],
  plan(ctx) {
    const { world, rng, now } = ctx;
    const order = pickOrder(
      ctx,
      'sell',
      (o) => dex010Status(o, now) === 'sell' && hasOpenEntry(world.wallet(o.seller), Number(o.mrc010)),
    );
    if (!order) return null;
    return { fcn: 'mrc010unsell', args: [order.dexid, fakeSignature(rng), world.wallet(order.seller)!.nonce] };
  },
  execute(stub, { args }) {
    const [dexid, sig, nonce] = expectArgs(
      args,
      3,
      '1000,mrc010unsell operation must include four arguments : dexid, signature, nonce',
    );
    const dex = getDex010(stub, dexid);
    if (dex.auction_start_date > 0) throw new ChaincodeError('3004,DEX Item is not sell item');
    if (dex.job_type !== DEX010.sell && dex.job_type !== DEX010.buy) {
      throw new ChaincodeError(`3014,DEX Item is not sell item, [${dex.job_type}]`);
    }
    expectStatus(dex010Status(dex, stub.now), 'sell');
    const seller = getAddressInfo(stub, dex.seller);
    nonceCheck(stub, seller, nonce);
    mrc010SubtractSubBalance(stub, seller, dex.mrc010, dex.remain_amount, 'sell');
    mrc010Add(stub, seller, dex.mrc010, dex.remain_amount, 0);
    const params = [dex.dexid, dex.seller, dex.remain_amount, dex.mrc010, dex.sell_price, dex.sell_token, sig, nonce];
    setDex010(stub, dex, DEX010.unsell, params);
    setAddressInfo(stub, seller, DEX010.walletUnsell, params);
  },
};

/**
 * `mrc010buy` (dexid, buyer, amount, sig, nonce) → a purchase of part or all of a sell order
 * (CC-t `token.go` Mrc010Buy, settled by mrc010DexProcess): the buyer pays price × amount / unit of
 * the pay token and receives the tokens (`transfer_mrc010buy`), the platform gets its fee
 * (`receive_mrc010fee`), the seller the rest (`receive_mrc010sell`) and loses the sold amount from
 * saleamount; the order is written `mrc010_buy` [dexid, seller, buyer, PaymentInfo JSON, token]
 * with remain_amount lowered and sell_date set once it reaches 0. The amount must be a multiple of
 * the order's min_trade_unit; the seller cannot buy.
 */
export const mrc010BuyJob: Job = {
  fcn: 'mrc010buy',
  weight: 3,
  writes: [DEX010.buy, DEX010.transferBuy, DEX010.receiveSell, DEX010.receiveFee],
  plan(ctx) {
    const { world, now } = ctx;
    const order = pickOrder(
      ctx,
      'sell',
      (o) => dex010Status(o, now) === 'sell' && hasOpenEntry(world.wallet(o.seller), Number(o.mrc010)),
    );
    if (!order) return null;
    return planTake(ctx, 'mrc010buy', order, [Number(order.sell_token), BigInt(order.sell_price)], order.seller, 0.4);
  },
  execute(stub, { args }) {
    const [dexid, buyerAddress, amount, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc010unsell operation must include four arguments : dexid, buyer, amount, signature, nonce',
    );
    const dex = getDex010(stub, dexid);
    const rule: TakeRule = {
      types: [DEX010.sell, DEX010.buy],
      wrongType: '3004,DEX Item is not request to sell item',
      status: 'sell',
      selfTrade: '3004,Cross-trading is not allowed',
    };
    const taken = takeFromOrder(stub, dex, rule, dex.seller, dex.sell_price, [buyerAddress, amount, nonce]);
    const { wallet: buyer, amount: buyAmount, price: paymentPrice } = taken;

    dex.buyer = buyerAddress;
    const payments = [
      payment(dex.buyer, dex.dexid, paymentPrice.toString(), dex.sell_token, '', '', DEX010_PAYMENT.buy),
      payment(dex.dexid, dex.buyer, '', '', buyAmount.toString(), dex.mrc010, DEX010_PAYMENT.recvItem),
    ];
    settleTrade(stub, DEX010_FAMILY, dex, buyer, payments, 'sell', paymentPrice, buyAmount.toString(), sig, nonce);
  },
};
