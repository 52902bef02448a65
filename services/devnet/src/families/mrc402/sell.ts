import { findHolder } from '../mrc010/plan.ts';
import { MRC402 } from '@mtc/domain';
import { mrc402Add, mrc402Subtract } from './chaincode.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { pickPayToken, planPlatform, planPrice, planFill } from '../dex010/plan.ts';
import type { Job } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { DEX402_FAMILY, status, STATUS_MESSAGES } from './order.ts';
import { anyBusy, pickDex402, pickHolding, payees } from './plan.ts';
import { buyFromSale, cancelCall, cancelOrder, openSale, refuse, writeNewOrder } from '../dex/order-steps.ts';

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
    const sale = openSale(stub, DEX402_FAMILY, args, {
      count: 11,
      message:
        '1000,mrc402sell operation must include four arguments : seller, amount, mrc402id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, signature, nonce',
      side: 'sell',
    });
    mrc402Subtract(stub, sale.wallet, sale.dex.mrc402, sale.amount.toString(), 'sell');
    writeNewOrder(stub, DEX402_FAMILY, sale, args, args.slice(0, 11), [MRC402.sell, MRC402.walletSell]);
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
  plan: (ctx) =>
    cancelCall(
      ctx,
      'mrc402unsell',
      pickDex402(ctx, 'sale', (o, s) => s === 'sale' && !anyBusy(ctx, [o.seller])),
    ),
  execute: (stub, { args }) =>
    cancelOrder(stub, DEX402_FAMILY, args, {
      message: '1000,mrc402unsell operation must include four arguments : dexid, signature, nonce',
      checks: [refuse((o) => o.auction_start_date > 0, NOT_SELL_ITEM), status(['sale'])],
      party: 'seller',
      release(stub, seller, dex) {
        mrc402Add(stub, seller, dex.mrc402, dex.remain_amount, 'sell');
        return [dex.remain_amount, dex.mrc402, dex.sell_price, dex.sell_token];
      },
      types: [MRC402.unsell, MRC402.walletUnsell],
    }),
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
  execute: (stub, { args }) =>
    buyFromSale(
      stub,
      DEX402_FAMILY,
      args,
      '1000,mrc402unsell operation must include four arguments : dexid, buyer, amount, signature, nonce',
      [
        refuse((o, buyer) => o.seller === buyer, "3004,Seller is don't buy"),
        status(['sale'], {
          ...STATUS_MESSAGES,
          auction_wait: NOT_SELL_ITEM,
          auction: NOT_SELL_ITEM,
          auction_end: NOT_SELL_ITEM,
          auction_finish: NOT_SELL_ITEM,
        }),
      ],
    ),
};
