import { DEX010, DEX010_PAYMENT } from '@mtc/domain';
import { expectArgs, parsePositive } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dex010Status, dexFeeCalc, getDex010, mrc010SubtractSubBalance } from './chaincode.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { tradePriceCalc } from '../../chaincode/util.ts';
import type { Dex010Order } from '../mrc010/records.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { pickFundedWallet } from '../mrc010/plan.ts';
import { DEX010_FAMILY, dex010Opening, status } from './order.ts';
import { hasOpenEntry, pickOrder, pickOtherToken, planMinTradeUnit, planOrderCall, planTake } from './plan.ts';
import { payment } from '../dex/dex.ts';
import {
  cancelCall,
  cancelOrder,
  openSale,
  refuse,
  takeOrder,
  writeNewOrder,
  type OrderCheck,
} from '../dex/order-steps.ts';
import { settleRequest } from './settle.ts';

const REQSELL = dex010Opening(
  'buy',
  '1000,mrc010requestsell operation must include four arguments : seller, amount, mrc010id, buyPrice, buytoken, platformName, platformURL, platformAddress, platformCommission, mintradeunit,signature, nonce',
);

/**
 * `mrc010reqsell` (buyer, amount, tokenId, price, payToken, platformName, platformURL, platformAddress,
 * platformCommission, minTradeUnit, sig, nonce) → a request to sell (a standing buy order) written
 * `mrc010_reqsell`, the buyer `mrc010reqsell`, both [dexid, …the 12 call args] (CC-t `token.go`
 * Mrc010ReqSell). The buyer escrows price × amount / unit plus the platform fee in the pay token's
 * saleamount (buy_price_total). Quirk kept: the fee is escrowed whenever the commission is positive,
 * even without a platform address; it comes back when the request fills or is withdrawn.
 */
export const mrc010ReqSellJob: Job = {
  fcn: 'mrc010reqsell',
  weight: 2,
  writes: [DEX010.reqsell, DEX010.walletReqsell],
  plan(ctx) {
    const { world, rng } = ctx;
    const funded = pickFundedWallet(ctx);
    const token = funded && pickOtherToken(ctx, funded.token);
    if (!funded || token === null) return null;
    const unit = planMinTradeUnit(rng, world.token(token)!.decimal);
    const unitSize = BigInt(unit || '1');
    // A budget of at most 30 % of the balance leaves room for a fee of up to 10 %.
    const budget = portion(rng, funded.available, 1, 30);
    let units = BigInt(rng.int(1, 1_000));
    if (budget / units === 0n) units = 1n;
    const head = [units * unitSize, token, budget / units, funded.token];
    return planOrderCall(ctx, 'mrc010reqsell', funded.wallet, head, [unit]);
  },
  execute(stub, { args }) {
    const request = openSale(stub, DEX010_FAMILY, args, REQSELL);
    const { dex } = request;
    let total = tradePriceCalc(dex.min_trade_unit, request.unitPrice, request.amount);
    if (total < 1n) throw new ChaincodeError('3005,The total purchase amount is too low');
    total += dexFeeCalc(total, dex.platform_commission);
    dex.buy_price_total = total.toString();
    mrc010Subtract(stub, request.wallet, dex.buy_token, total.toString(), 'sell');
    writeNewOrder(stub, DEX010_FAMILY, request, args, args.slice(0, 12), [DEX010.reqsell, DEX010.walletReqsell]);
  },
};

/**
 * `mrc010unreqsell` (dexid, sig, nonce) → the request written `mrc010_unreqsell` (cancel_date set) and
 * the buyer `mrc010unreqsell`, both [dexid, buyer, remain, token, refund, payToken, sig, nonce] (CC-t
 * `token.go` Mrc010UnReqSell): the rest of buy_price_total (not zeroed) leaves saleamount for the balance.
 */
export const mrc010UnreqSellJob: Job = {
  fcn: 'mrc010unreqsell',
  weight: 1,
  writes: [DEX010.unreqsell, DEX010.walletUnreqsell],
  plan: (ctx) =>
    cancelCall(
      ctx,
      'mrc010unreqsell',
      pickOrder(ctx, 'reqsell', (o) => acceptsRequestCall(ctx, o) && BigInt(o.buy_price_total) > 0n),
      'buyer',
    ),
  execute: (stub, { args }) =>
    cancelOrder(stub, DEX010_FAMILY, args, {
      message: '1000,mrc010unsell operation must include four arguments : dexid, signature, nonce',
      checks: [
        refuse((o) => o.auction_start_date > 0, '3004,DEX Item is not sell item'),
        notRequest('3004,DEX Item is not sell item'),
        status('buy'),
      ],
      party: 'buyer',
      release(stub, buyer, dex) {
        const refund = parsePositive(dex.buy_price_total, `1101, ${dex.buy_price_total} is either 0 or negative.`);
        mrc010SubtractSubBalance(stub, buyer, dex.buy_token, refund.toString(), 'sell');
        mrc010Add(stub, buyer, dex.buy_token, refund.toString(), 0);
        return [dex.remain_amount, dex.mrc010, refund.toString(), dex.buy_token];
      },
      types: [DEX010.unreqsell, DEX010.walletUnreqsell],
    }),
};

/**
 * `mrc010acceptreqsell` (dexid, seller, amount, sig, nonce) → a seller fills part or all of a request
 * (CC-t `token.go` Mrc010AcceptReqSell, settled by mrc010DexProcessReqSell): paid price × amount / unit
 * from the buyer's escrow (`transfer_mrc010sell`), the buyer gets the tokens (`receive_mrc010buy`), the
 * platform its fee (`receive_mrc010fee`); the request is written `mrc010_acceptreqsell` [dexid, buyer,
 * seller, PaymentInfo JSON, token] with remain_amount and buy_price_total lowered.
 */
export const mrc010AcceptReqSellJob: Job = {
  fcn: 'mrc010acceptreqsell',
  weight: 2,
  writes: [DEX010.acceptreqsell, DEX010.transferSell, DEX010.receiveBuy, DEX010.receiveFee],
  plan(ctx) {
    const order = pickOrder(ctx, 'reqsell', (o) => acceptsRequestCall(ctx, o));
    if (!order) return null;
    const unit = BigInt(order.min_trade_unit || '1');
    return planTake(ctx, 'mrc010acceptreqsell', order, [Number(order.mrc010), unit], order.buyer, 0.5);
  },
  execute(stub, { args }) {
    const [dexid, sellerAddress, amount, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc010unsell operation must include four arguments : dexid, seller, amount, signature, nonce',
    );
    const dex = getDex010(stub, dexid);
    const checks: OrderCheck<Dex010Order>[] = [
      notRequest('3004,DEX Item is not request to buy item'),
      status('buy'),
      refuse((o, seller) => o.buyer === seller, "3004,Buyer is don't sell"),
    ];
    const taken = takeOrder(stub, DEX010_FAMILY, dex, checks, dex.buy_price, [sellerAddress, amount, nonce]);
    const { wallet: seller, amount: sellAmount, price: sendPrice } = taken;
    if (sendPrice <= 0n) throw new ChaincodeError('3004,The payment amount is too low to purchase');

    dex.seller = sellerAddress;
    const payments = [
      payment(dex.seller, dex.dexid, '', '', sellAmount.toString(), dex.mrc010, DEX010_PAYMENT.sell),
      payment(dex.dexid, dex.seller, sendPrice.toString(), dex.buy_token, '', '', DEX010_PAYMENT.sendItem),
    ];
    settleRequest(stub, dex, seller, payments, sendPrice, sellAmount.toString(), sig, nonce);
  },
};

/** Refuses an order last written other than as a request or its fill. */
const notRequest = (message: string) =>
  refuse<Dex010Order>((o) => o.job_type !== DEX010.reqsell && o.job_type !== DEX010.acceptreqsell, message);

/** An open request whose buyer still has the escrow entry the settlement lowers. */
function acceptsRequestCall(ctx: PlanContext, order: Dex010Order): boolean {
  return dex010Status(order, ctx.now) === 'buy' && hasOpenEntry(ctx.world.wallet(order.buyer), Number(order.buy_token));
}
