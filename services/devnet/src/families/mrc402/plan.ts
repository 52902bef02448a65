import { dex402Status, type Dex402Status } from './chaincode.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import type { Rng } from '../../rng.ts';
import type { Dex402Order, Mrc402Token } from './records.ts';
import type { Wallet } from '../mrc010/records.ts';
import type { Dex402Kind } from '../../world/world.ts';
import type { PlanContext } from '../../jobs/job.ts';
import { pickAmong, writtenPercent } from '../dex010/plan.ts';

/** What MRC-402 clients send (as dex010/plan.ts), skipping keys the block already wrote. */

const isBusy = (ctx: PlanContext, key: string) => ctx.busy?.has(key) ?? false;

/** A random MRC-402 that `accept` takes and no earlier transaction of the block wrote, or null. */
export function pickMrc402(
  ctx: PlanContext,
  accept: (token: Mrc402Token) => boolean = () => true,
  attempts = 8,
): Mrc402Token | null {
  const get = (id: string) => ctx.world.mrc402(id)!;
  return pickAmong(ctx, ctx.world.mrc402Ids, get, (t) => !isBusy(ctx, t.id) && accept(t), attempts);
}

/** The creator's wallet of `token` when the block has not written it yet (mint, burn, update). */
export function creatorWallet(ctx: PlanContext, token: Mrc402Token): Wallet | null {
  if (isBusy(ctx, token.creator)) return null;
  return ctx.world.wallet(token.creator) ?? null;
}

/** What `wallet` can spend of MRC-402 `id`: its holding's balance (escrows excluded). */
export function heldUnits(wallet: Wallet | undefined, id: string): bigint {
  return decimalOrZero(wallet?.mrc402?.[id]?.balance ?? '');
}

/** A holder of an accepted MRC-402 with spendable units, outside `busy`, or null after a few misses. */
export function pickHolding(
  ctx: PlanContext,
  accept: (token: Mrc402Token) => boolean = () => true,
): { token: Mrc402Token; wallet: Wallet; units: bigint } | null {
  for (let i = 0; i < 6; i++) {
    const token = pickMrc402(ctx, accept, 2);
    if (!token) continue;
    const holders = ctx.world.mrc402Holders(token.id);
    if (holders.length === 0) continue;
    const address = ctx.rng.pick(holders);
    if (isBusy(ctx, address)) continue;
    const wallet = ctx.world.wallet(address);
    const units = heldUnits(wallet, token.id);
    if (wallet && units > 0n) return { token, wallet, units };
  }
  return null;
}

/** A random open DEX402 order of `kind` that `accept` takes and the block has not touched. */
export function pickDex402(
  ctx: PlanContext,
  kind: Dex402Kind,
  accept: (order: Dex402Order, status: Dex402Status) => boolean,
  attempts = 8,
): Dex402Order | null {
  const open = (o: Dex402Order) => !anyBusy(ctx, [o.dexid, o.mrc402]) && accept(o, dex402Status(o, ctx.now));
  return pickAmong(ctx, ctx.world.openDex402[kind], (id) => ctx.world.dex402(id)!, open, attempts);
}

/**
 * The wallets a settlement of `token` pays besides buyer and seller: its creator, shareholders and the
 * order's platform; none may have been written earlier in the block (the settlement reads them).
 */
export function payees(token: Mrc402Token, order: Dex402Order): string[] {
  return [token.creator, ...Object.keys(token.shareholder ?? {}), order.platform_address].filter((a) => a !== '');
}

export function anyBusy(ctx: PlanContext, addresses: readonly string[]): boolean {
  return addresses.some((a) => isBusy(ctx, a));
}

/** A commission argument (writtenPercent), sometimes "0"; records keep "2.50" as sent for shareholders only. */
export function planPercent(rng: Rng): string {
  if (rng.chance(0.15)) return '0';
  return writtenPercent(rng, rng.chance(0.5) ? rng.int(1, 20) * 50 : rng.int(1, 1000));
}
