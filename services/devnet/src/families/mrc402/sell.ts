import { findHolder } from '../mrc010/plan.ts';
import { MRC402, MRC402_PAYMENT as PAY } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  dex402Status,
  getDex402,
  getMrc402,
  mrc402Add,
  mrc402Subtract,
  newGeneratedId,
  parsePositiveRaw,
  setDex402,
} from './chaincode.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { numericDataCheck } from '../../chaincode/util.ts';
import { DEX402_PREFIX, newDex402 } from './records.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { pickPayToken, planPlatform, planPrice, planFill } from '../dex010/plan.ts';
import type { Job } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { assignPlatform, DEX402_FAMILY, expectStatus, STATUS_MESSAGES } from './order.ts';
import { anyBusy, pickDex402, pickHolding, payees } from './plan.ts';
import { payment } from '../dex/dex.ts';
import { settleTrade } from '../dex/settle.ts';

const NOT_SELL_ITEM = '3004,DEX Item is not sell item';

/**
 * `mrc402sell` (seller, amount, id, unitPrice, payToken, platformName, platformURL,
 * platformAddress, platformCommission, sig, nonce) → a new `DEX402_…` order written `mrc402_sell`
 * and the seller written `mrc402sell`, both [dexid, …the 11 call args] (CC-t `mrc402.go`
 * Mrc402Sell); the amount moves from the holding's balance into its saleamount. The price is per
 * NFT unit, in any existing MRC-010 token. The id is md5 of all call args plus a retry digit.
 */
export const mrc402SellJob: Job = {
  fcn: 'mrc402sell',
  weight: 1.1,
  writes: [MRC402.sell, MRC402.walletSell],
  plan(ctx) {
    const { world, rng } = ctx;
    const holding = pickHolding(ctx);
    if (!holding) return null;
    // MRC-402 prices are in MRC-010 tokens: mostly MTC (pickPayToken's token -1 is never MTC).
    const payToken = pickPayToken(ctx, -1);
    if (payToken === null) return null;
    return {
      fcn: 'mrc402sell',
      args: [
        holding.wallet.id,
        portion(rng, holding.units, 1, 60).toString(),
        holding.token.id,
        planPrice(rng, world.token(payToken)!.decimal).toString(),
        String(payToken),
        ...planPlatform(ctx, holding.wallet.id),
        fakeSignature(rng),
        holding.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const [sellerAddress, amountArg, id, price, payToken, name, url, platform, commission, , nonce] = expectArgs(
      args,
      11,
      '1000,mrc402sell operation must include four arguments : seller, amount, mrc402id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, signature, nonce',
    );
    const seller = getAddressInfo(stub, sellerAddress);
    const amount = parsePositive(amountArg, `1107,${amountArg} is not positive integer`);
    const token = getMrc402(stub, id);
    const dex = newDex402({
      mrc402: token.id,
      seller: sellerAddress,
      amount: amount.toString(),
      remain_amount: amount.toString(),
      sell_token: payToken,
    });
    dex.sell_price = numericDataCheck(price, '1', '', 0, false)!;
    parsePositiveRaw(price);
    mrc010Id(stub, dex.sell_token);
    assignPlatform(stub, dex, [name, url, platform, commission]);
    nonceCheck(stub, seller, nonce);
    mrc402Subtract(stub, seller, token.id, amount.toString(), 'sell');

    dex.dexid = newGeneratedId(stub, DEX402_PREFIX, args);
    const params = [dex.dexid, ...args.slice(0, 11)];
    setDex402(stub, dex, MRC402.sell, params);
    setAddressInfo(stub, seller, MRC402.walletSell, params);
  },
};

/**
 * `mrc402unsell` (dexid, sig, nonce) → the order written `mrc402_unsell` (cancel_date set) and the
 * seller `mrc402unsell`, both [dexid, seller, remain, id, price, payToken, sig, nonce] (CC-t
 * `mrc402.go` Mrc402UnSell); the unsold remainder leaves saleamount for the balance.
 */
export const mrc402UnsellJob: Job = {
  fcn: 'mrc402unsell',
  weight: 0.3,
  writes: [MRC402.unsell, MRC402.walletUnsell],
  plan(ctx) {
    const { world, rng } = ctx;
    const order = pickDex402(ctx, 'sale', (o, status) => status === 'sale' && !anyBusy(ctx, [o.seller]));
    if (!order) return null;
    return { fcn: 'mrc402unsell', args: [order.dexid, fakeSignature(rng), world.wallet(order.seller)!.nonce] };
  },
  execute(stub, { args }) {
    const [dexid, sig, nonce] = expectArgs(
      args,
      3,
      '1000,mrc402unsell operation must include four arguments : dexid, signature, nonce',
    );
    const dex = getDex402(stub, dexid);
    if (dex.auction_start_date > 0) throw new ChaincodeError(NOT_SELL_ITEM);
    expectStatus(dex402Status(dex, stub.now), ['sale'], STATUS_MESSAGES);
    const seller = getAddressInfo(stub, dex.seller);
    nonceCheck(stub, seller, nonce);
    mrc402Add(stub, seller, dex.mrc402, dex.remain_amount, 'sell');
    const params = [dex.dexid, dex.seller, dex.remain_amount, dex.mrc402, dex.sell_price, dex.sell_token, sig, nonce];
    setDex402(stub, dex, MRC402.unsell, params);
    setAddressInfo(stub, seller, MRC402.walletUnsell, params);
  },
};

/**
 * `mrc402buy` (dexid, buyer, amount, sig, nonce) → a purchase of part or all of a sale (CC-t
 * `mrc402.go` Mrc402Buy, settled by mrc402DexProcess, settle.ts): the buyer pays amount × unit
 * price and receives the units (`transfer_mrc402buy`), creator, platform and shareholders get their
 * fees (`receive_mrc402fee`), the seller the rest (`receive_mrc402sell`) and loses the units from
 * saleamount; the order is written `mrc402_buy` [dexid, seller, buyer, PaymentInfo JSON, id] with
 * remain_amount lowered and sell_date set once it reaches "0". The seller cannot buy.
 */
export const mrc402BuyJob: Job = {
  fcn: 'mrc402buy',
  weight: 1.1,
  writes: [MRC402.buy, MRC402.transferBuy, MRC402.receiveSell, MRC402.receiveFee],
  plan(ctx) {
    const { world, rng } = ctx;
    const order = pickDex402(
      ctx,
      'sale',
      (o, status) => status === 'sale' && !anyBusy(ctx, [o.seller, ...payees(world.mrc402(o.mrc402)!, o)]),
    );
    if (!order) return null;
    const price = BigInt(order.sell_price);
    const remain = BigInt(order.remain_amount);
    const buyer = findHolder(ctx, Number(order.sell_token), price, new Set([order.seller]));
    if (!buyer || anyBusy(ctx, [buyer.wallet.id])) return null;
    const affordable = buyer.available / price;
    const units = planFill(rng, remain, affordable, 0.4);
    return {
      fcn: 'mrc402buy',
      args: [order.dexid, buyer.wallet.id, units.toString(), fakeSignature(rng), buyer.wallet.nonce],
    };
  },
  execute(stub, { args }) {
    const [dexid, buyerAddress, amount, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc402unsell operation must include four arguments : dexid, buyer, amount, signature, nonce',
    );
    const dex = getDex402(stub, dexid);
    if (dex.seller === buyerAddress) throw new ChaincodeError("3004,Seller is don't buy");
    expectStatus(dex402Status(dex, stub.now), ['sale'], {
      ...STATUS_MESSAGES,
      auction_wait: NOT_SELL_ITEM,
      auction: NOT_SELL_ITEM,
      auction_end: NOT_SELL_ITEM,
      auction_finish: NOT_SELL_ITEM,
    });
    const buyer = getAddressInfo(stub, buyerAddress);
    nonceCheck(stub, buyer, nonce);
    const units = parsePositiveRaw(amount);
    const remain = parsePositiveRaw(dex.remain_amount);
    if (remain < units) throw new ChaincodeError(`3004,The quantity available for purchase is ${remain} pieces.`);
    dex.remain_amount = (remain - units).toString();
    const unitPrice = parsePositiveRaw(dex.sell_price);

    dex.buyer = buyerAddress;
    const payments = [
      payment(dex.buyer, dex.dexid, (units * unitPrice).toString(), dex.sell_token, '', '', PAY.buy),
      payment(dex.dexid, dex.buyer, '', '', units.toString(), dex.mrc402, PAY.recvItem),
    ];
    settleTrade(stub, DEX402_FAMILY, dex, buyer, payments, 'sell', units * unitPrice, units.toString(), sig, nonce);
  },
};
