import { findHolder } from '../mrc010/plan.ts';
import { planPlatform } from '../dex010/plan.ts';
import { isMtAddress } from '../../world/address.ts';
import { NO_PLATFORM, type Platform } from './chaincode.ts';
import { mrc400Version, type Mrc400Version } from './versions.ts';
import type { Rng } from '../../rng.ts';
import { isLegacy } from '../../chaincode/versions.ts';
import { MELTED, type Mrc400Collection, type Mrc401Item } from './records.ts';
import type { Wallet } from '../mrc010/records.ts';
import { capitalise, fakeWords } from '../../jobs/client.ts';
import type { Call, PlanContext } from '../../jobs/job.ts';

/**
 * What MRC-400/401 clients send. Planners check every condition the installed chaincode checks
 * before they propose a call (block building treats a rejection as a devnet bug), using only the
 * committed world and ctx.rng, and they leave alone keys an earlier transaction of the block wrote.
 */

/** The argument layout clients send: CC-m's (`old`) or CC-t's. */
export type Layout = Mrc400Version['layout'];

/** A job's plan: no call under the legacy chaincode (nor, given `only`, under the other layout). */
export function planner(plan: (ctx: PlanContext, layout: Layout) => Call | null, only?: Layout) {
  return (ctx: PlanContext): Call | null => {
    const version = ctx.chaincode ?? 'current';
    if (isLegacy(version)) return null;
    const { layout } = mrc400Version(version);
    return only === undefined || layout === only ? plan(ctx, layout) : null;
  };
}

/** None of `keys` was written by an earlier transaction of the block. */
export function free(ctx: PlanContext, ...keys: string[]): boolean {
  return !keys.some((key) => ctx.busy?.has(key));
}

/** A random entry of `ids` that `accept` takes, or null after a few misses. */
export function pickId(rng: Rng, ids: readonly string[], accept: (id: string) => boolean, attempts = 8): string | null {
  if (ids.length === 0) return null;
  for (let i = 0; i < attempts; i++) {
    const id = rng.pick(ids);
    if (accept(id)) return id;
  }
  return null;
}

export function pickCollection(ctx: PlanContext, accept: (c: Mrc400Collection) => boolean): Mrc400Collection | null {
  const { mrc400 } = ctx.world;
  const id = pickId(ctx.rng, mrc400.collections, (id) => free(ctx, id) && accept(mrc400.collection(id)!));
  return id === null ? null : mrc400.collection(id)!;
}

/** An item of `ids` (an index list) not written earlier in the block, that `accept` takes. */
export function pickItem(
  ctx: PlanContext,
  ids: readonly string[],
  accept: (item: Mrc401Item) => boolean,
  attempts = 8,
): Mrc401Item | null {
  const { mrc400 } = ctx.world;
  const id = pickId(ctx.rng, ids, (id) => free(ctx, id) && accept(mrc400.item(id)!), attempts);
  return id === null ? null : mrc400.item(id)!;
}

/** An item's collection as the chaincode reads it (it exists: items are created in one). */
export function collectionOfItem(ctx: PlanContext, item: Mrc401Item): Mrc400Collection {
  return ctx.world.mrc400.collection(item.mrc400)!;
}

/** Whether the item may change hands now: Bound items only while the MRC-400 owner holds them. */
export function movable(ctx: PlanContext, item: Mrc401Item): boolean {
  return item.owner !== MELTED && (item.transferable !== 'Bound' || item.owner === collectionOfItem(ctx, item).owner);
}

/** The tokens an item of `c` may be priced in (initial reserve, sale, auction; see expectToken). */
export function allowedTokens(ctx: PlanContext, c: Mrc400Collection, layout: Layout): number[] {
  if (layout === 'new' && (c.allow_token === '0' || c.allow_token === '')) return [...ctx.world.tokens];
  const allowed = Number(c.allow_token);
  return allowed === 0 ? [0] : [0, allowed];
}

/** Mostly MTC, else another allowed token. */
export function pickToken(ctx: PlanContext, tokens: readonly number[]): number {
  if (tokens.includes(0) && ctx.rng.chance(0.7)) return 0;
  return ctx.rng.pick(tokens);
}

/** An NFT's price in base units: 1–999 units of 10^k, k six to two below `decimals`, so many wallets can pay it. */
export function planPrice(rng: Rng, decimals: number): bigint {
  return BigInt(rng.int(1, 999)) * 10n ** BigInt(rng.int(Math.max(0, decimals - 6), Math.max(0, decimals - 2)));
}

/** findHolder among wallets no earlier transaction of the block touched. */
export function findPayer(
  ctx: PlanContext,
  token: number,
  min: bigint,
  exclude: ReadonlySet<string>,
  attempts = 16,
): Wallet | null {
  return findHolder(ctx, token, min, exclude, attempts, (address) => free(ctx, address))?.wallet ?? null;
}

/** A listed item's platform fields (CC-t), none when its fee address is busy in this block. */
export function planItemPlatform(ctx: PlanContext, seller: string): Platform {
  const [name, url, address, commission] = planPlatform(ctx, seller);
  if (isMtAddress(address) && !free(ctx, address)) return { ...NO_PLATFORM };
  return { platform_name: name, platform_url: url, platform_address: address, platform_commission: commission };
}

/** A collection or item name of a few capitalised words. */
export function fakeTitle(rng: Rng): string {
  return fakeWords(rng, 1, 3).split(' ').map(capitalise).join(' ');
}

export function slug(title: string): string {
  return title.toLowerCase().replace(/ /g, '-');
}

// prettier-ignore
const CATEGORIES = ['art', 'collectibles', 'music', 'photography', 'gaming', 'membership', 'tickets', 'sports', 'virtual-worlds', 'utility'];

export function fakeCategory(rng: Rng): string {
  return rng.pick(CATEGORIES);
}

/**
 * A fee rate as clients write it: "0", whole per cents, or up to four fraction digits (sometimes
 * with a trailing zero the chaincode drops: "2.50" is stored "2.5"), at most `maxPct`.
 */
export function planRate(rng: Rng, maxPct: number, zeroShare = 0.3): string {
  if (rng.chance(zeroShare)) return '0';
  const roll = rng.next();
  if (roll < 0.4) return String(rng.int(1, maxPct));
  if (roll < 0.6) return `${rng.int(0, maxPct - 1)}.50`;
  if (roll < 0.8) return `${rng.int(0, maxPct - 1)}.${rng.int(1, 9)}`;
  return `${rng.int(0, maxPct - 1)}.${String(rng.int(1, 9_999)).padStart(4, '0')}`;
}
