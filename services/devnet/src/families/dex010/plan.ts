import { spendable, spendableTokens } from '../mrc010/balance.ts';
import type { Rng } from '../../rng.ts';
import type { Dex010Order, Wallet } from '../mrc010/records.ts';
import type { Dex010Kind } from '../../world/world.ts';
import type { Call, PlanContext } from '../../jobs/job.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { findHolder } from '../mrc010/plan.ts';
import { portion } from '../../jobs/job.ts';

/**
 * What DEX clients send. Planners check every condition the chaincode checks before they propose a
 * call (block building treats a rejection as a devnet bug), using only the committed world and ctx.rng.
 */

/** The record of a random one of `ids` that `accept` takes, or null after `attempts` misses. */
export function pickAmong<T>(
  ctx: PlanContext,
  ids: readonly string[],
  get: (id: string) => T,
  accept: (record: T) => boolean,
  attempts = 8,
): T | null {
  if (ids.length === 0) return null;
  for (let i = 0; i < attempts; i++) {
    const record = get(ctx.rng.pick(ids));
    if (accept(record)) return record;
  }
  return null;
}

export function pickOrder(ctx: PlanContext, kind: Dex010Kind, accept: (order: Dex010Order) => boolean, attempts = 8) {
  return pickAmong(ctx, ctx.world.openDex010[kind], (id) => ctx.world.dex010(id)!, accept, attempts);
}

/** A wallet with something spendable, mostly of a token other than MTC (what gets listed for sale). */
export function pickSeller(
  ctx: PlanContext,
  attempts = 12,
): { wallet: Wallet; token: number; available: bigint } | null {
  const { world, rng, now } = ctx;
  if (world.wallets.length === 0) return null;
  for (let i = 0; i < attempts; i++) {
    const wallet = world.wallet(rng.pick(world.wallets))!;
    const tokens = spendableTokens(wallet, now);
    if (tokens.length === 0) continue;
    const others = tokens.filter((t) => t !== 0);
    const token = others.length > 0 && rng.chance(0.85) ? rng.pick(others) : rng.pick(tokens);
    return { wallet, token, available: spendable(wallet, token, now) };
  }
  return null;
}

/** The token a trade of `token` is paid in: mostly MTC, otherwise another registered token. */
export function pickPayToken(ctx: PlanContext, token: number): number | null {
  return token !== 0 && ctx.rng.chance(0.85) ? 0 : pickOtherToken(ctx, token);
}

export function pickOtherToken(ctx: PlanContext, token: number): number | null {
  for (let i = 0; i < 8; i++) {
    const other = ctx.rng.pick(ctx.world.tokens);
    if (other !== token) return other;
  }
  return null;
}

/** Whether `wallet` has an unlockdate-0 entry of `token`: where the DEX keeps and lowers escrow. */
export function hasOpenEntry(wallet: Wallet | undefined, token: number): boolean {
  return wallet !== undefined && wallet.balance.some((e) => e.token === token && e.unlockdate === 0);
}

/** A min_trade_unit argument for a token of `decimals`: mostly 1, else a power of ten up to one whole token (at most 10^8); rarely "" (read as 1). */
export function planMinTradeUnit(rng: Rng, decimals: number): string {
  const roll = rng.next();
  if (roll < 0.05) return '';
  if (roll < 0.6 || decimals === 0) return '1';
  const top = Math.min(8, decimals);
  return (10n ** BigInt(rng.chance(0.5) ? top : rng.int(1, top))).toString();
}

/** A price in base units of a token with `decimals`: 1–999 units of 10^k, k up to the decimals. */
export function planPrice(rng: Rng, decimals: number): bigint {
  return BigInt(rng.int(1, 999)) * 10n ** BigInt(rng.int(Math.max(0, decimals - 5), decimals));
}

/**
 * A taker's call on `order` (a buy of a sale, a fill of a request): a wallet other than `maker` that
 * can pay `perUnit` of `token` per min_trade_unit takes part or all of what remains (planFill).
 */
export function planTake(
  ctx: PlanContext,
  fcn: string,
  order: Dex010Order,
  [token, perUnit]: [number, bigint],
  maker: string,
  allShare: number,
): Call | null {
  const unit = BigInt(order.min_trade_unit || '1');
  const taker = findHolder(ctx, token, perUnit, new Set([maker]));
  if (!taker) return null;
  const units = planFill(ctx.rng, BigInt(order.remain_amount) / unit, taker.available / perUnit, allShare);
  const amount = (units * unit).toString();
  return { fcn, args: [order.dexid, taker.wallet.id, amount, fakeSignature(ctx.rng), taker.wallet.nonce] };
}

/** How many of `remain` a taker takes: all with probability `allShare` if affordable, else 1 … what it can afford. */
export function planFill(rng: Rng, remain: bigint, affordable: bigint, allShare: number): bigint {
  if (affordable >= remain && rng.chance(allShare)) return remain;
  return portion(rng, remain < affordable ? remain : affordable, 1, 100);
}

// prettier-ignore
const MARKETS = ['Amber Exchange', 'Nova Market', 'Cedar Trade', 'Orbit DEX', 'Quartz Bazaar', 'Tide Swap', 'Summit Mart', 'Lumen Market'];

/**
 * The platform arguments [name, URL, fee address, commission]: mostly one of a few marketplaces (the
 * chain's first wallets are their fee addresses), sometimes the trading wallet itself (paid as seller
 * and as platform), sometimes none with or without a commission (writtenPercent; stored normalised, "2.50" → "2.5").
 */
export function planPlatform(ctx: PlanContext, trader: string): [string, string, string, string] {
  const { world, rng } = ctx;
  const roll = rng.next();
  const commission = planCommission(rng);
  if (roll < 0.65) {
    const index = rng.int(0, Math.min(MARKETS.length, world.wallets.length) - 1);
    const name = MARKETS[index]!;
    return [name, `https://${name.toLowerCase().replace(' ', '-')}.devnet.example/`, world.wallets[index]!, commission];
  }
  if (roll < 0.75) return ['Self Listing', 'https://self.devnet.example/', trader, commission];
  return rng.chance(0.5) ? ['', '', '', commission] : ['Offline Board', '', '', ''];
}

/** An order's call: [wallet, …head, the platform arguments (planPlatform), …tail, sig, nonce]. */
export function planOrderCall(
  ctx: PlanContext,
  fcn: string,
  wallet: Wallet,
  head: readonly (string | bigint | number)[],
  tail: readonly string[] = [],
): Call {
  const platform = planPlatform(ctx, wallet.id);
  return { fcn, args: [wallet.id, ...head.map(String), ...platform, ...tail, fakeSignature(ctx.rng), wallet.nonce] };
}

function planCommission(rng: Rng): string {
  if (rng.chance(0.12)) return rng.chance(0.5) ? '0' : '';
  return writtenPercent(rng, rng.chance(0.5) ? rng.int(1, 10) * 50 : rng.int(1, 1000));
}

/** `hundredths` / 100 % as clients write it: with up to two decimals, a fifth with trailing zeros ("2.50"). */
export function writtenPercent(rng: Rng, hundredths: number): string {
  const whole = Math.floor(hundredths / 100);
  const cents = String(hundredths % 100).padStart(2, '0');
  if (rng.chance(0.2)) return `${whole}.${cents}`;
  if (cents === '00') return String(whole);
  return `${whole}.${cents.replace(/0$/, '')}`;
}
