import type { Rng } from '../rng.ts';
import type { Stub } from '../world/stub.ts';
import type { World } from '../world/world.ts';
import type { ChaincodeVersion } from '../chaincode/versions.ts';

/** A chaincode invocation as a client sends it: Fabric's `fcn` and its string arguments. */
export interface Call {
  readonly fcn: string;
  readonly args: readonly string[];
}

export interface PlanContext {
  readonly world: World;
  readonly rng: Rng;
  /** The endorsing peers' clock for this block (stub.now), unix seconds; client clocks differ a little. */
  readonly now: number;
  readonly walletCap: number;
  /** Keys the block's earlier transactions wrote: the bridge holds back calls on them, so pickers skip them. */
  readonly busy?: ReadonlySet<string>;
  /** The chaincode version installed, whose argument layouts clients use. Default: the current one. */
  readonly chaincode?: ChaincodeVersion;
  /** Origin of the NFT image URLs clients write (the devnet serves `<origin>/images/…`). */
  readonly imageOrigin?: string;
}

/**
 * One chaincode function. `plan` plays a client: it proposes a call the chaincode accepts in the
 * current world, or null when none is possible now. `execute` plays the chaincode: it reads and
 * writes through the stub exactly as the Go code does, and throws ChaincodeError where Go errs.
 */
export interface Job {
  readonly fcn: string;
  /** Relative share among randomly planned calls. */
  readonly weight: number;
  /** Every job type it can write (`@mtc/domain` tables): a test makes the decoder handle or ignore each. */
  readonly writes: readonly string[];
  /** Job types others write on what this creates (bids): while one is missing, it is drawn more (pickJob). */
  readonly outcomes?: readonly string[];
  plan(ctx: PlanContext): Call | null;
  execute(stub: Stub, call: Call): void;
}

/**
 * Whether a client goes for the outcome that writes job type `type`: always while the chain holds none
 * (so even a short history shows each outcome), afterwards with probability `share`.
 */
export function wants(ctx: PlanContext, type: string, share = 0): boolean {
  return !ctx.world.hasWritten(type) || (share > 0 && ctx.rng.chance(share));
}

/** Zipf exponent of activity by age rank: P(rank r) ∝ (r + 1)^-s. */
const ZIPF_S = 2;
/** How many of the newest wallets count as new users, still active. */
const RECENT = 300;

/**
 * A wallet drawn by activity: with probability `zipfShare` by age rank, weight (rank + 1)^-ZIPF_S (an
 * inverted power-law CDF), else uniformly among the RECENT newest. So a few old wallets move most value,
 * newcomers make many small payments, and the rest fall dormant. A busy pick is redrawn among new users.
 */
export function pickActiveWallet(ctx: PlanContext, zipfShare = 0.8): string {
  const { world, rng, busy } = ctx;
  const n = world.wallets.length;
  let address = '';
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0 || !rng.chance(zipfShare)) {
      address = world.wallets[n - 1 - Math.floor(rng.next() * Math.min(n, RECENT))]!;
    } else {
      const top = (n + 1) ** (1 - ZIPF_S);
      const rank = Math.floor(((top - 1) * rng.next() + 1) ** (1 / (1 - ZIPF_S))) - 1;
      address = world.wallets[Math.min(Math.max(rank, 0), n - 1)]!;
    }
    if (!busy?.has(address)) break;
  }
  return address;
}

/**
 * A wallet not in `exclude` or `busy`, or null after a few misses. Past 8 picked (an airdrop) it is drawn
 * from the whole population, which gives popular tokens thousands of holders; before, by activity.
 */
export function pickOtherWallet(ctx: PlanContext, exclude: ReadonlySet<string>): string | null {
  const { world, rng } = ctx;
  if (world.wallets.length <= exclude.size) return null;
  const airdrop = exclude.size >= 8;
  for (let i = 0; i < 16; i++) {
    const address = airdrop ? rng.pick(world.wallets) : pickActiveWallet(ctx, 0.7);
    if (!exclude.has(address) && !ctx.busy?.has(address)) return address;
  }
  return null;
}

/** Between minPct and maxPct per cent of `amount`, at least 1 (for amount ≥ 1). */
export function portion(rng: Rng, amount: bigint, minPct: number, maxPct: number): bigint {
  const share = (amount * BigInt(rng.int(Math.round(minPct * 100), Math.round(maxPct * 100)))) / 10_000n;
  return share > 0n ? share : amount > 0n ? 1n : 0n;
}

/** An unlockdate: mostly "0", sometimes a future lock (often short), rarely a past date (stored as 0). */
export function planUnlockdate(rng: Rng, now: number): string {
  const roll = rng.next();
  if (roll < 0.06) return String(now + rng.int(60, 86_400));
  if (roll < 0.1) return String(now + rng.int(86_400, 90 * 86_400));
  if (roll < 0.13) return String(now - rng.int(60, 30 * 86_400));
  return '0';
}
