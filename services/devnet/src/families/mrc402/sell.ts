import { findHolder } from '../mrc010/plan.ts';
import { mrc402Add } from './chaincode.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { pickPayToken, planFill } from '../dex010/plan.ts';
import { portion } from '../../jobs/job.ts';
import { DEX402_FAMILY, status, STATUS_MESSAGES } from './order.ts';
import { anyBusy, pickDex402, pickHolding, payees } from './plan.ts';
import { refuse } from '../dex/order-steps.ts';
import { saleJobs } from '../dex/sale-jobs.ts';

const NOT_SELL_ITEM = '3004,DEX Item is not sell item';

/**
 * The MRC-402 sales (CC-t `mrc402.go` Mrc402Sell, Mrc402UnSell, Mrc402Buy settled by mrc402DexProcess;
 * dex/sale-jobs.ts). `mrc402sell` (seller, amount, id, unitPrice, payToken, platformName, platformURL,
 * platformAddress, platformCommission, sig, nonce) moves the amount from the holding's balance into its
 * saleamount; the price is per NFT unit, in any existing MRC-010 token. A buyer (not the seller) pays
 * amount × unit price (`transfer_mrc402buy`), creator, platform and shareholders their fees
 * (`receive_mrc402fee`), the seller the rest (`receive_mrc402sell`).
 */
export const [mrc402SellJob, mrc402UnsellJob, mrc402BuyJob] = saleJobs({
  family: DEX402_FAMILY,
  weights: [1.1, 0.3, 1.1],
  opening: {
    count: 11,
    message:
      '1000,mrc402sell operation must include four arguments : seller, amount, mrc402id, sellPrice, selltoken, platformName, platformURL, platformAddress, platformCommission, signature, nonce',
    side: 'sell',
  },
  lot(ctx) {
    const holding = pickHolding(ctx);
    // MRC-402 prices are in MRC-010 tokens: mostly MTC (pickPayToken's token -1 is never MTC).
    const payToken = holding && pickPayToken(ctx, -1);
    if (!holding || payToken === null) return null;
    const amount = portion(ctx.rng, holding.units, 1, 60);
    return { wallet: holding.wallet, amount, item: holding.token.id, payToken, tail: [] };
  },
  pickUnsell: (ctx) => pickDex402(ctx, 'sale', (o, s) => s === 'sale' && !anyBusy(ctx, [o.seller])),
  planBuy(ctx) {
    const { world, rng } = ctx;
    const order = pickDex402(
      ctx,
      'sale',
      (o, status) => status === 'sale' && !anyBusy(ctx, [o.seller, ...payees(world.mrc402(o.mrc402)!, o)]),
    );
    if (!order) return null;
    const price = BigInt(order.sell_price);
    const buyer = findHolder(ctx, Number(order.sell_token), price, new Set([order.seller]));
    if (!buyer || anyBusy(ctx, [buyer.wallet.id])) return null;
    const units = planFill(rng, BigInt(order.remain_amount), buyer.available / price, 0.4);
    return {
      fcn: 'mrc402buy',
      args: [order.dexid, buyer.wallet.id, units.toString(), fakeSignature(rng), buyer.wallet.nonce],
    };
  },
  unsellChecks: [refuse((o) => o.auction_start_date > 0, NOT_SELL_ITEM), status(['sale'])],
  release: (stub, seller, dex) => mrc402Add(stub, seller, dex.mrc402, dex.remain_amount, 'sell'),
  buyChecks: [
    refuse((o, buyer) => o.seller === buyer, "3004,Seller is don't buy"),
    status(['sale'], {
      ...STATUS_MESSAGES,
      auction_wait: NOT_SELL_ITEM,
      auction: NOT_SELL_ITEM,
      auction_end: NOT_SELL_ITEM,
      auction_finish: NOT_SELL_ITEM,
    }),
  ],
});
