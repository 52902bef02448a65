import { fakeSignature } from '../../jobs/client.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import { findHolder } from '../mrc010/plan.ts';
import type { Wallet } from '../mrc010/records.ts';
import { finishAuction, openAuction, placeBid, planAuction, withdrawAuction } from './auction.ts';
import { auctionFate, auctionOutcomes, bidderAttempts, firstToEnd, planDexBid, withdraws } from './auctions.ts';
import type { DexFamily, DexOrder } from './dex.ts';
import { cancelCall } from './order-steps.ts';

/** What a family's auction clients read of the committed world, and what they must leave alone. */
export interface AuctionClients<O extends DexOrder> {
  readonly family: DexFamily<O>;
  /** The order id prefix: the digit after it decides an auction's fate (auctions.ts). */
  readonly prefix: string;
  /** The four jobs' weights: auction, unauction, bid, auction finish. */
  readonly weights: readonly [number, number, number, number];
  lot(ctx: PlanContext): { wallet: Wallet; available: bigint; item: string; payToken: number } | null;
  /** The open auctions, and one of them that `accept` takes at random (null after a few misses). */
  ids(ctx: PlanContext): readonly string[];
  get(ctx: PlanContext, id: string): O;
  pick(ctx: PlanContext, accept: (order: O) => boolean, attempts?: number): O | null;
  status(order: O, now: number): string;
  /** Whether the block already wrote one of these keys (none when absent). */
  busy?(ctx: PlanContext, keys: readonly string[]): boolean;
  /** The wallets a settlement pays besides buyer and seller (DexFamily.fees; none when absent). */
  payees?(ctx: PlanContext, order: O): string[];
  /** Whether the seller still holds what a settlement lowers its escrow on (yes when absent). */
  escrowed?(ctx: PlanContext, order: O): boolean;
}

/**
 * The four auction jobs of a DEX (`<family>auction`, `…unauction`, `…bid`, `…auctionfinish`), their
 * chaincode in auction.ts; their clients steer auctions to every outcome (auctions.ts).
 */
export function auctionJobs<O extends DexOrder>(clients: AuctionClients<O>): [Job, Job, Job, Job] {
  const { family, weights } = clients;
  const { name: n, types: t, house } = family;
  const fate = (ctx: PlanContext, order: O) => {
    const digit = Number.parseInt(order.dexid.charAt(clients.prefix.length), 16);
    return auctionFate(ctx, house, Math.floor(digit / 2));
  };
  const item = family.item.bind(family);
  return [
    {
      fcn: `${n}auction`,
      weight: weights[0],
      writes: [t.auction, t.walletAuction],
      outcomes: auctionOutcomes(house),
      plan(ctx) {
        const lot = clients.lot(ctx);
        return lot && planAuction(ctx, family, lot.wallet, lot.available, lot.item, lot.payToken);
      },
      execute: (stub, { args }) => openAuction(stub, family, args),
    },
    {
      fcn: `${n}unauction`,
      weight: weights[1],
      writes: [t.unauction, t.walletUnauction],
      plan(ctx) {
        const order = clients.pick(ctx, (o) => {
          const status = clients.status(o, ctx.now);
          return (
            withdraws(ctx, house, fate(ctx, o)) &&
            (status === 'auction' || status === 'auction_wait') &&
            o.auction_current_bidder === '' &&
            !clients.busy?.(ctx, [o.seller])
          );
        });
        return cancelCall(ctx, `${n}unauction`, order);
      },
      execute: (stub, { args }) => withdrawAuction(stub, family, args),
    },
    {
      fcn: `${n}bid`,
      weight: weights[2],
      writes: [t.auctionbid, t.transferBid, t.receiveRefund, t.auctionbuynow, t.receiveAuction, t.receiveFee],
      plan(ctx) {
        const biddable = (o: O) =>
          fate(ctx, o) === 'bid' &&
          clients.status(o, ctx.now) === 'auction' &&
          (clients.escrowed?.(ctx, o) ?? true) &&
          !clients.busy?.(ctx, [o.dexid, item(o), o.seller, o.auction_current_bidder]);
        const get = (id: string) => clients.get(ctx, id);
        const endOf = (o: O) => o.auction_end_date;
        const steered = firstToEnd(ctx, house, clients.ids(ctx), get, endOf, biddable);
        const order = steered ?? clients.pick(ctx, biddable);
        if (!order) return null;
        const { price, buyingNow } = planDexBid(ctx, house, order);
        // A buy-now settles at once: every payee is written too.
        const payees = clients.payees?.(ctx, order) ?? [];
        if (buyingNow && clients.busy?.(ctx, payees)) return null;
        const current = order.auction_current_bidder;
        // The current bidder may only buy now, and then not as a payee (see settle.ts's quirk); a
        // buy-now bid need not beat the current price.
        const exclude = new Set(buyingNow && !payees.includes(current) ? [order.seller] : [order.seller, current]);
        const bidder = findHolder(ctx, Number(order.sell_token), price, exclude, bidderAttempts(steered !== null));
        if (!bidder || clients.busy?.(ctx, [bidder.wallet.id])) return null;
        const args = [order.dexid, bidder.wallet.id, price.toString(), fakeSignature(ctx.rng), bidder.wallet.nonce];
        return { fcn: `${n}bid`, args };
      },
      execute: (stub, { args }) => placeBid(stub, family, args),
    },
    {
      fcn: `${n}auctionfinish`,
      weight: weights[3],
      writes: [
        t.auctionwinning,
        t.receiveItem,
        t.receiveAuction,
        t.receiveFee,
        t.auctionfailure,
        t.walletAuctionfailure,
      ],
      plan(ctx) {
        const order = clients.pick(
          ctx,
          (o) => {
            const bidder = o.auction_current_bidder;
            return (
              clients.status(o, ctx.now) === 'auction_end' &&
              (bidder === '' || (clients.escrowed?.(ctx, o) ?? true)) &&
              !clients.busy?.(ctx, [o.seller, bidder, ...(bidder === '' ? [] : (clients.payees?.(ctx, o) ?? []))])
            );
          },
          12,
        );
        return order && { fcn: `${n}auctionfinish`, args: [order.dexid] };
      },
      execute: (stub, { args }) => finishAuction(stub, family, args),
    },
  ];
}
