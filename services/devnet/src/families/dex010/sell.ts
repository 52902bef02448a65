import { DEX010 } from '@mtc/domain';
import { mrc010Add } from '../mrc010/balance.ts';
import { dex010Status, mrc010SubtractSubBalance } from './chaincode.ts';
import type { PlanContext } from '../../jobs/job.ts';
import type { Dex010Order } from '../mrc010/records.ts';
import { portion } from '../../jobs/job.ts';
import { DEX010_FAMILY, dex010Opening, status } from './order.ts';
import { hasOpenEntry, pickOrder, pickPayToken, pickSeller, planMinTradeUnit, planTake } from './plan.ts';
import { refuse } from '../dex/order-steps.ts';
import { saleJobs } from '../dex/sale-jobs.ts';

/** An open sale whose seller still has the escrow entry a cancel or a purchase lowers. */
const onSale = (ctx: PlanContext) => (o: Dex010Order) =>
  dex010Status(o, ctx.now) === 'sell' && hasOpenEntry(ctx.world.wallet(o.seller), Number(o.mrc010));

/**
 * The MRC-010 sales (CC-t `token.go` Mrc010Sell, Mrc010UnSell, Mrc010Buy settled by mrc010DexProcess;
 * dex/sale-jobs.ts). `mrc010sell` (seller, amount, tokenId, price, payToken, platformName, platformURL,
 * platformAddress, platformCommission, minTradeUnit, sig, nonce) moves the amount into saleamount on
 * the token's unlockdate-0 entry; the price is per min_trade_unit, in a pay token other than the one
 * sold. A buyer (not the seller) of a multiple of min_trade_unit pays price × amount / unit
 * (`transfer_mrc010buy`), the platform gets its fee (`receive_mrc010fee`), the seller the rest.
 */
export const [mrc010SellJob, mrc010UnsellJob, mrc010BuyJob] = saleJobs({
  family: DEX010_FAMILY,
  weights: [3, 1, 3],
  opening: dex010Opening(
    'sell',
    '1000,mrc010sell operation must include four arguments : seller, amount, mrc010id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, mintradeunit, signature, nonce',
  ),
  lot(ctx) {
    const seller = pickSeller(ctx);
    const payToken = seller && pickPayToken(ctx, seller.token);
    if (!seller || payToken === null) return null;
    let unit = planMinTradeUnit(ctx.rng, ctx.world.token(seller.token)!.decimal);
    if (seller.available < BigInt(unit || '1')) unit = '1';
    const units = portion(ctx.rng, seller.available / BigInt(unit || '1'), 1, 60);
    const amount = units * BigInt(unit || '1');
    return { wallet: seller.wallet, amount, item: String(seller.token), payToken, tail: [unit] };
  },
  pickUnsell: (ctx) => pickOrder(ctx, 'sell', onSale(ctx)),
  planBuy(ctx) {
    const order = pickOrder(ctx, 'sell', onSale(ctx));
    if (!order) return null;
    return planTake(ctx, 'mrc010buy', order, [Number(order.sell_token), BigInt(order.sell_price)], order.seller, 0.4);
  },
  unsellChecks: [
    refuse((o) => o.auction_start_date > 0, '3004,DEX Item is not sell item'),
    (o) =>
      o.job_type === DEX010.sell || o.job_type === DEX010.buy
        ? undefined
        : `3014,DEX Item is not sell item, [${o.job_type}]`,
    status('sell'),
  ],
  release(stub, seller, dex) {
    mrc010SubtractSubBalance(stub, seller, dex.mrc010, dex.remain_amount, 'sell');
    mrc010Add(stub, seller, dex.mrc010, dex.remain_amount, 0);
  },
  buyChecks: [
    refuse((o) => o.job_type !== DEX010.sell && o.job_type !== DEX010.buy, '3004,DEX Item is not request to sell item'),
    status('sell'),
    refuse((o, buyer) => o.seller === buyer, '3004,Cross-trading is not allowed'),
  ],
});
