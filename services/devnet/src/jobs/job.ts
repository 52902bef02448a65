import type { Rng } from '../rng.ts';
import type { Stub } from '../world/stub.ts';
import type { World } from '../world/world.ts';
import { spendable, spendableTokens } from '../chaincode/balance.ts';
import type { Wallet } from '../world/records.ts';

/** A chaincode invocation as a client sends it: Fabric's `fcn` and its string arguments. */
export interface Call {
  readonly fcn: string;
  readonly args: readonly string[];
}

export interface PlanContext {
  readonly world: World;
  readonly rng: Rng;
  /** The time the call is sent at (its tx timestamp), unix seconds. */
  readonly now: number;
  /** The wallet population the devnet grows to. */
  readonly walletCap: number;
}

/**
 * One chaincode function. `plan` plays a client: it proposes a call the chaincode accepts in the
 * current world, or null when none is possible now. `execute` plays the chaincode: it reads and
 * writes through the stub exactly as the Go code does, and throws ChaincodeError where the Go code
 * returns an error. New job families (MRC-010 DEX, MRC-400/401/402) are added as more of these.
 */
export interface Job {
  readonly fcn: string;
  /** Relative share among randomly planned calls. */
  readonly weight: number;
  /**
   * Every job type (entry `type`) this function can write, named from `@mtc/domain`'s job-type
   * tables: a test holds the decoder to decoding or explicitly ignoring each of them.
   */
  readonly writes: readonly string[];
  plan(ctx: PlanContext): Call | null;
  execute(stub: Stub, call: Call): void;
}

/** A random wallet with something spendable, the token picked and how much of it is spendable. */
export function pickFundedWallet(
  ctx: PlanContext,
  attempts = 12,
): { wallet: Wallet; token: number; available: bigint } | null {
  const { world, rng, now } = ctx;
  if (world.wallets.length === 0) return null;
  for (let i = 0; i < attempts; i++) {
    const wallet = world.wallet(rng.pick(world.wallets));
    if (!wallet) continue;
    const tokens = spendableTokens(wallet, now);
    if (tokens.length === 0) continue;
    // Most payments are in MTC; the rest spread over whatever the wallet holds.
    const token = tokens.includes(0) && rng.chance(0.5) ? 0 : rng.pick(tokens);
    return { wallet, token, available: spendable(wallet, token, now) };
  }
  return null;
}

/** A random wallet other than those in `exclude`, or null after a few misses. */
export function pickOtherWallet(ctx: PlanContext, exclude: ReadonlySet<string>): string | null {
  const { world, rng } = ctx;
  if (world.wallets.length <= exclude.size) return null;
  for (let i = 0; i < 16; i++) {
    const address = rng.pick(world.wallets);
    if (!exclude.has(address)) return address;
  }
  return null;
}

/** Between minPct and maxPct per cent of `amount`, at least 1 (for amount ≥ 1). */
export function portion(rng: Rng, amount: bigint, minPct: number, maxPct: number): bigint {
  const share = (amount * BigInt(rng.int(Math.round(minPct * 100), Math.round(maxPct * 100)))) / 10_000n;
  return share > 0n ? share : amount > 0n ? 1n : 0n;
}

/**
 * An unlockdate argument: mostly "0", sometimes a future lock (often short, so locks also expire
 * within a generated history), rarely a date already past (the chaincode stores that as 0).
 */
export function planUnlockdate(rng: Rng, now: number): string {
  const roll = rng.next();
  if (roll < 0.06) return String(now + rng.int(60, 86_400));
  if (roll < 0.1) return String(now + rng.int(86_400, 90 * 86_400));
  if (roll < 0.13) return String(now - rng.int(60, 30 * 86_400));
  return '0';
}
