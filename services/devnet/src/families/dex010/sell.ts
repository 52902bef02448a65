import { DEX010 } from '@mtc/domain';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dex010Status, mrc010SubtractSubBalance } from './chaincode.ts';
import { fakeSignature } from '../../jobs/client.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import type { Dex010Order } from '../mrc010/records.ts';
import { portion } from '../../jobs/job.ts';
import { DEX010_FAMILY, dex010Opening, status } from './order.ts';
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
import { buyFromSale, cancelCall, cancelOrder, openSale, refuse, writeNewOrder } from '../dex/order-steps.ts';

const SELL = dex010Opening(
  'sell',
  '1000,mrc010sell operation must include four arguments : seller, amount, mrc010id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, mintradeunit, signature, nonce',
);

/** An open sale whose seller still has the escrow entry a cancel or a purchase lowers. */
const onSale = (ctx: PlanContext) => (o: Dex010Order) =>
  dex010Status(o, ctx.now) === 'sell' && hasOpenEntry(ctx.world.wallet(o.seller), Number(o.mrc010));

/** The message of mrc010unsell and mrc010unreqsell for fewer than three arguments. */
export const UNSELL_MESSAGE = '1000,mrc010unsell operation must include four arguments : dexid, signature, nonce';

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
    const sale = openSale(stub, DEX010_FAMILY, args, SELL);
    mrc010Subtract(stub, sale.wallet, sale.dex.mrc010, sale.amount.toString(), 'sell');
    writeNewOrder(stub, DEX010_FAMILY, sale, args, args.slice(0, 12), [DEX010.sell, DEX010.walletSell]);
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
  plan: (ctx) => cancelCall(ctx, 'mrc010unsell', pickOrder(ctx, 'sell', onSale(ctx))),
  execute: (stub, { args }) =>
    cancelOrder(stub, DEX010_FAMILY, args, {
      message: UNSELL_MESSAGE,
      checks: [
        refuse((o) => o.auction_start_date > 0, '3004,DEX Item is not sell item'),
        (o) =>
          o.job_type === DEX010.sell || o.job_type === DEX010.buy
            ? undefined
            : `3014,DEX Item is not sell item, [${o.job_type}]`,
        status('sell'),
      ],
      party: 'seller',
      release(stub, seller, dex) {
        mrc010SubtractSubBalance(stub, seller, dex.mrc010, dex.remain_amount, 'sell');
        mrc010Add(stub, seller, dex.mrc010, dex.remain_amount, 0);
        return [dex.remain_amount, dex.mrc010, dex.sell_price, dex.sell_token];
      },
      types: [DEX010.unsell, DEX010.walletUnsell],
    }),
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
    const order = pickOrder(ctx, 'sell', onSale(ctx));
    if (!order) return null;
    return planTake(ctx, 'mrc010buy', order, [Number(order.sell_token), BigInt(order.sell_price)], order.seller, 0.4);
  },
  execute: (stub, { args }) =>
    buyFromSale(
      stub,
      DEX010_FAMILY,
      args,
      '1000,mrc010unsell operation must include four arguments : dexid, buyer, amount, signature, nonce',
      [
        refuse(
          (o) => o.job_type !== DEX010.sell && o.job_type !== DEX010.buy,
          '3004,DEX Item is not request to sell item',
        ),
        status('sell'),
        refuse((o, buyer) => o.seller === buyer, '3004,Cross-trading is not allowed'),
      ],
    ),
};
