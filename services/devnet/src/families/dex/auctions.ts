import { DEX010, MRC400, MRC402 } from '@mtc/domain';
import { decimalOrZero } from '../../chaincode/util.ts';
import { portion, wants, type PlanContext } from '../../jobs/job.ts';
import type { DexOrder } from './order-fields.ts';

/**
 * What the clients of the three auction houses (MRC-010 DEX, DEX402, MRC-401 items) do alike. Each
 * outcome has its natural rate, but until the chain holds one (job.ts `wants`) clients go for it on
 * purpose, so every history, however short, holds withdrawn, failed, outbid, won and bought-now auctions.
 */

/**
 * The job types a house writes for the outcomes its clients steer: withdrawn before any bid, ended
 * without a bid, won by the highest bidder after the end, settled at once by a buy-now bid, and the
 * outbid bidder's refund.
 */
export interface AuctionHouse {
  readonly unauction: string;
  readonly failure: string;
  readonly winning: string;
  readonly buynow: string;
  readonly refund: string;
}

/** The outcomes an auction leads to: what its house's auction job lists as Job.outcomes. */
export function auctionOutcomes(house: AuctionHouse): string[] {
  return [house.unauction, house.failure, house.winning, house.buynow, house.refund];
}

const dexHouse = (t: typeof DEX010 | typeof MRC402): AuctionHouse => ({
  unauction: t.unauction,
  failure: t.auctionfailure,
  winning: t.auctionwinning,
  buynow: t.auctionbuynow,
  refund: t.receiveRefund,
});

export const DEX010_AUCTIONS = dexHouse(DEX010);
export const DEX402_AUCTIONS = dexHouse(MRC402);

export const MRC401_AUCTIONS: AuctionHouse = {
  unauction: MRC400.itemUnauction,
  failure: MRC400.itemAuctionfailure,
  winning: MRC400.itemAuctionwinning,
  buynow: MRC400.itemAuctionbuynow,
  refund: MRC400.receiveRefund,
};

/**
 * The chaincodes' auction limits: a start at most 21 days ahead (their messages say 7), a run of
 * 1 h to 21 days, and a day when no end is given.
 */
export const MAX_AHEAD_SEC = 1_814_400;
export const MIN_DURATION_SEC = 3_600;
export const DEFAULT_DURATION_SEC = 86_400;

export type AuctionFate = 'withdrawn' | 'unsold' | 'bid';

/**
 * What becomes of an auction, from `eighth` (0–7, read off its id, so every client agrees): an eighth
 * withdrawn before any bid, an eighth unsold, the rest bid on. Until the chain holds an unsold one,
 * half are left unbid; then, until it holds one won after its end and an outbid bid, all draw bids.
 */
export function auctionFate(ctx: PlanContext, house: AuctionHouse, eighth: number): AuctionFate {
  if (wants(ctx, house.failure)) return eighth === 0 ? 'withdrawn' : eighth < 4 ? 'unsold' : 'bid';
  if (wants(ctx, house.winning) || wants(ctx, house.refund)) return 'bid';
  return eighth === 0 ? 'withdrawn' : eighth === 1 ? 'unsold' : 'bid';
}

/** Whether a seller withdraws an unbid auction of `fate`: those meant to be, and any until one was. */
export function withdraws(ctx: PlanContext, house: AuctionHouse, fate: AuctionFate): boolean {
  return fate === 'withdrawn' || wants(ctx, house.unauction);
}

/**
 * Whether a new auction offers a buy-now price: a little over half do; all until one was used, and
 * then none until an auction was won after its end (a buy-now ends an auction before that).
 */
export function offersBuyNow(ctx: PlanContext, house: AuctionHouse): boolean {
  if (wants(ctx, house.buynow)) return true;
  return !wants(ctx, house.winning) && ctx.rng.chance(0.55);
}

/** Whether a bidder pays an auction's buy-now price: 15 % do, and all until one did. */
export function buysNow(ctx: PlanContext, house: AuctionHouse): boolean {
  return wants(ctx, house.buynow, 0.15);
}

/**
 * When a new auction starts, in seconds from now (`laterShare` up to 3 h later), and how long it runs:
 * no end (null: the chaincode's default day) for 15 %, mostly 1–2 h, some days, a few near 21 days.
 * Until the chain holds an auction won after its end and one unsold, all start at once and run 1–2 h.
 */
export function planAuctionTimes(
  ctx: PlanContext,
  house: AuctionHouse,
  laterShare: number,
): { delay: number; duration: number | null } {
  const { rng } = ctx;
  if (wants(ctx, house.winning) || wants(ctx, house.failure))
    return { delay: 0, duration: rng.int(MIN_DURATION_SEC, 2 * MIN_DURATION_SEC) };
  const delay = rng.chance(laterShare) ? rng.int(60, 3 * 3_600) : 0;
  const roll = rng.next();
  if (roll < 0.15) return { delay, duration: null };
  const duration =
    roll < 0.75
      ? rng.int(MIN_DURATION_SEC, 2 * MIN_DURATION_SEC)
      : roll < 0.95
        ? rng.int(2 * MIN_DURATION_SEC, 3 * DEFAULT_DURATION_SEC)
        : rng.int(3 * DEFAULT_DURATION_SEC, MAX_AHEAD_SEC);
  return { delay, duration };
}

/**
 * The start and end arguments of `mrc010auction` / `mrc402auction` (planAuctionTimes, a quarter start
 * later): "" or "0" for now / the default end; an end at most 21 days ahead, which both chaincode
 * versions accept (end − start and end − now within 1 h … 21 days).
 */
export function planDexAuctionDates(ctx: PlanContext, house: AuctionHouse): { start: string; end: string } {
  const { rng, now } = ctx;
  const { delay, duration } = planAuctionTimes(ctx, house, 0.25);
  const none = () => (rng.chance(0.5) ? '' : '0');
  const start = delay > 0 ? String(now + delay) : none();
  const end = duration === null ? none() : String(Math.min(now + delay + duration, now + MAX_AHEAD_SEC));
  return { start, end };
}

/**
 * Until the chain holds an auction won after its end and an outbid bid, the biddable auction of `ids`
 * that ends first (one with a bid first while none was outbid), so a bid there settles or is outbid
 * within a short history. Null otherwise (bidders then pick at random) or when none is biddable.
 */
export function firstToEnd<T extends { auction_current_bidder: string }>(
  ctx: PlanContext,
  house: AuctionHouse,
  ids: readonly string[],
  get: (id: string) => T,
  endOf: (auction: T) => number,
  biddable: (auction: T) => boolean,
): T | null {
  const outbid = wants(ctx, house.refund);
  if (!outbid && !wants(ctx, house.winning)) return null;
  // End dates are unix seconds: an auction with a bid, while one is wanted, ranks before any without.
  const rank = (auction: T) => endOf(auction) + (outbid && auction.auction_current_bidder !== '' ? 0 : 2 ** 40);
  let first: T | null = null;
  for (const id of ids) {
    const auction = get(id);
    if ((first === null || rank(auction) < rank(first)) && biddable(auction)) first = auction;
  }
  return first;
}

/**
 * A bid on a DEX auction (`mrc010bid`, `mrc402bid`; prices for the whole amount): the lowest the
 * chaincode takes (start price, or current price plus bidding unit) up to 20 % above, kept below the
 * buy-now price; or the buy-now price itself (buysNow, or when nothing below it is left).
 */
export function planDexBid(
  ctx: PlanContext,
  house: AuctionHouse,
  order: DexOrder,
): { price: bigint; buyingNow: boolean } {
  const buyNow = decimalOrZero(order.auction_buynow_price);
  const first = order.auction_current_bidder === '';
  const floor = BigInt(first ? order.auction_start_price : order.auction_current_price);
  const lowest = first ? floor : floor + decimalOrZero(order.auction_bidding_unit);
  let price = lowest + (ctx.rng.chance(0.3) ? 0n : portion(ctx.rng, lowest, 1, 20));
  if (buyNow > 0n && price >= buyNow) price = buyNow - 1n;
  const buyingNow = buyNow > 0n && (price < lowest || buysNow(ctx, house));
  return { price: buyingNow ? buyNow : price, buyingNow };
}

/** How many wallets a bidder search tries: four times as many for an auction firstToEnd chose. */
export function bidderAttempts(steered: boolean): number {
  return steered ? 64 : 16;
}
