import type { Rng } from '../../rng.ts';
import { pickActiveWallet, type PlanContext } from '../../jobs/job.ts';
import { spendable, spendableTokens } from './balance.ts';
import type { Wallet } from './records.ts';

export interface Funded {
  readonly wallet: Wallet;
  readonly token: number;
  readonly available: bigint;
}

/**
 * An active wallet, a token it can spend, and how much it puts in play: capped by a size log-uniform in
 * 1e-8..1e-2 of the supply (large holders keep most while moving most of the value). Half are in MTC; the
 * rest favour the tokens the wallet got first (pickPopular), so early tokens gain many holders.
 */
export function pickFundedWallet(ctx: PlanContext, attempts = 12): Funded | null {
  const { world, rng, now } = ctx;
  if (world.wallets.length === 0) return null;
  for (let i = 0; i < attempts; i++) {
    const wallet = world.wallet(pickActiveWallet(ctx));
    if (!wallet) continue;
    const tokens = spendableTokens(wallet, now);
    if (tokens.length === 0) continue;
    const token = tokens.includes(0) && rng.chance(0.5) ? 0 : pickPopular(rng, tokens);
    const supply = BigInt(world.token(token)?.totalsupply || '0');
    const cap = (supply * BigInt(Math.round(1e8 * 10 ** (-2 - 6 * rng.next())))) / 100_000_000n;
    const held = spendable(wallet, token, now);
    return { wallet, token, available: cap > 0n && cap < held ? cap : held };
  }
  return null;
}

/** One of `ids` with weight ≈ 1/(rank + 1) by position (a balance array lists tokens about by age). */
function pickPopular(rng: Rng, ids: readonly number[]): number {
  if (ids.length === 1) return ids[0]!;
  const rank = Math.floor(Math.exp(rng.next() * Math.log(ids.length + 1))) - 1;
  return ids[Math.min(Math.max(rank, 0), ids.length - 1)]!;
}

/**
 * A wallet outside `exclude`, taken by `accept`, that can spend `min` of `token` now: random ones first,
 * then the owner (who often holds the reserve, so rare tokens still find a counterparty).
 */
export function findHolder(
  ctx: PlanContext,
  token: number,
  min: bigint,
  exclude: ReadonlySet<string>,
  attempts = 16,
  accept: (address: string) => boolean = () => true,
): { wallet: Wallet; available: bigint } | null {
  const { world, rng, now } = ctx;
  if (world.wallets.length === 0) return null;
  const candidates: string[] = [];
  for (let i = 0; i < attempts; i++) candidates.push(rng.pick(world.wallets));
  const owner = world.token(token)?.owner;
  if (owner) candidates.push(owner);
  for (const address of candidates) {
    if (exclude.has(address) || !accept(address)) continue;
    const wallet = world.wallet(address);
    if (!wallet) continue;
    const available = spendable(wallet, token, now);
    if (available >= min && available > 0n) return { wallet, available };
  }
  return null;
}
