import type { Call, Job, PlanContext } from '../../jobs/job.ts';
import type { Stub } from '../../world/stub.ts';
import type { Wallet } from '../mrc010/records.ts';
import { planOrderCall, planPrice } from '../dex010/plan.ts';
import type { DexFamily, DexOrder } from './dex.ts';
import {
  buyFromSale,
  cancelCall,
  cancelOrder,
  openSale,
  writeNewOrder,
  type OrderCheck,
  type SaleOpening,
} from './order-steps.ts';

/** What a family's sale clients read of the committed world, and how its chaincode differs. */
export interface SaleClients<O extends DexOrder> {
  readonly family: DexFamily<O>;
  /** The three jobs' weights: sell, unsell, buy. */
  readonly weights: readonly [number, number, number];
  readonly opening: SaleOpening<O>;
  /** A seller, the amount of the item it lists, the pay token and the arguments after the platform's. */
  lot(ctx: PlanContext): { wallet: Wallet; amount: bigint; item: string; payToken: number; tail: string[] } | null;
  /** An open sale its seller may cancel. */
  pickUnsell(ctx: PlanContext): O | null;
  planBuy(ctx: PlanContext): Call | null;
  readonly unsellChecks: readonly OrderCheck<O>[];
  /** Gives the unsold remainder back to the seller's balance. */
  release(stub: Stub, seller: Wallet, order: O): void;
  readonly buyChecks: readonly OrderCheck<O>[];
}

/**
 * The three sale jobs of a DEX (order-steps.ts): `<family>sell` → a new order written `<family>_sell`
 * and the seller `<family>sell`, both [dexid, …the call args], the amount moved into the escrow;
 * `<family>unsell` (dexid, sig, nonce) → the order written `<family>_unsell` (cancel_date set) and the
 * seller `<family>unsell`, both [dexid, seller, remain, item, price, payToken, sig, nonce], the rest
 * back to the balance; `<family>buy` (dexid, buyer, amount, sig, nonce) → settleTrade of part or all.
 */
export function saleJobs<O extends DexOrder>(clients: SaleClients<O>): [Job, Job, Job] {
  const { family, weights, opening } = clients;
  const { name: n, types } = family;
  return [
    {
      fcn: `${n}sell`,
      weight: weights[0],
      writes: [types.sell, types.walletSell],
      plan(ctx) {
        const lot = clients.lot(ctx);
        if (!lot) return null;
        const { wallet, amount, item, payToken } = lot;
        const price = planPrice(ctx.rng, ctx.world.token(payToken)!.decimal);
        return planOrderCall(ctx, `${n}sell`, wallet, [amount, item, price, payToken], lot.tail);
      },
      execute(stub, { args }) {
        const sale = openSale(stub, family, args, opening);
        family.escrow(stub, sale.wallet, family.item(sale.dex), sale.amount.toString(), 'sell');
        writeNewOrder(stub, family, sale, args, args.slice(0, opening.count), [types.sell, types.walletSell]);
      },
    },
    {
      fcn: `${n}unsell`,
      weight: weights[1],
      writes: [types.unsell, types.walletUnsell],
      plan: (ctx) => cancelCall(ctx, `${n}unsell`, clients.pickUnsell(ctx)),
      execute: (stub, { args }) =>
        cancelOrder(stub, family, args, {
          message: `1000,${n}unsell operation must include four arguments : dexid, signature, nonce`,
          checks: clients.unsellChecks,
          party: 'seller',
          release(stub, seller, dex) {
            clients.release(stub, seller, dex);
            return [dex.remain_amount, family.item(dex), dex.sell_price, dex.sell_token];
          },
          types: [types.unsell, types.walletUnsell],
        }),
    },
    {
      fcn: `${n}buy`,
      weight: weights[2],
      writes: [types.buy, types.transferBuy, types.receiveSell, types.receiveFee],
      plan: (ctx) => clients.planBuy(ctx),
      execute: (stub, { args }) =>
        buyFromSale(
          stub,
          family,
          args,
          `1000,${n}unsell operation must include four arguments : dexid, buyer, amount, signature, nonce`,
          clients.buyChecks,
        ),
    },
  ];
}
