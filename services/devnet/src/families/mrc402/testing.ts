import { createHash } from 'node:crypto';
import { createRng } from '../../rng.ts';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import type { Dex402Order, Mrc402Token } from './records.ts';
import type { Wallet } from '../mrc010/records.ts';
import { tokenKey } from '../mrc010/records.ts';
import { createStub } from '../../world/stub.ts';
import { createWorld, type World } from '../../world/world.ts';
import { address, entry, NOW, tokenRecord, walletRecord } from '../dex010/testing.ts';
import type { Job } from '../../jobs/job.ts';

export { address, entry, NOW, nonceOf, params, paymentsIn } from '../dex010/testing.ts';

/** Test fixtures for the MRC-402 jobs: a hand-built world and a way to run one call against it. */

/**
 * Seven wallets and two tokens (MTC 0 with 8 decimals, GLD 1 with 2): C the creator (1,000,000 MTC
 * and 10,000 GLD base units), H a holder and buyer and B a bidder (1,000,000 MTC each), R a rival
 * bidder (1,000,000 MTC), P a platform's fee address and S1, S2 shareholders (empty).
 */
export function nftWorld() {
  const world = createWorld();
  const C = address('creator');
  const H = address('holder');
  const B = address('bidder');
  const R = address('rival');
  const P = address('platform');
  const S1 = address('shareone');
  const S2 = address('sharetwo');
  world.apply([
    { key: tokenKey(0), value: tokenRecord(0, C, 'MTC', 8) },
    { key: tokenKey(1), value: tokenRecord(1, C, 'GLD', 2) },
    { key: C, value: walletRecord(C, [entry(0, '1000000'), entry(1, '10000')]) },
    { key: H, value: walletRecord(H, [entry(0, '1000000')]) },
    { key: B, value: walletRecord(B, [entry(0, '1000000')]) },
    { key: R, value: walletRecord(R, [entry(0, '1000000')]) },
    { key: P, value: walletRecord(P, [entry(0, '0')]) },
    { key: S1, value: walletRecord(S1, [entry(0, '0')]) },
    { key: S2, value: walletRecord(S2, [entry(0, '0')]) },
  ]);
  return { world, C, H, B, R, P, S1, S2 };
}

let stubSeed = 1_000;

/** Executes one call as the chaincode at `now` and commits its writes; returns what it wrote. */
export function run(
  world: World,
  job: Job,
  args: readonly string[],
  now = NOW,
  chaincode: ChaincodeVersion = 'current',
) {
  const { stub, effects } = createStub(world, now, createRng(++stubSeed), chaincode);
  job.execute(stub, { fcn: job.fcn, args });
  const fx = effects();
  world.apply(fx.writes);
  const byKey = new Map(fx.writes.map((w) => [w.key, w.value]));
  return {
    keys: fx.writes.map((w) => w.key),
    wallet: (key: string) => byKey.get(key) as Wallet | undefined,
    nft: (key: string) => byKey.get(key) as Mrc402Token | undefined,
    order: (key: string) => byKey.get(key) as Dex402Order | undefined,
  };
}

/** A call's effect without committing it (for calls the chaincode must reject). */
export function attempt(
  world: World,
  job: Job,
  args: readonly string[],
  now = NOW,
  chaincode: ChaincodeVersion = 'current',
) {
  const { stub } = createStub(world, now, createRng(++stubSeed), chaincode);
  job.execute(stub, { fcn: job.fcn, args });
}

/** The id the chaincode gives a create or an order: prefix + md5 of the call args + retry digit 0. */
export function generatedId(prefix: 'MRC402_' | 'DEX402_', args: readonly string[]): string {
  return `${prefix}${createHash('md5').update(args.join('|')).digest('hex')}0`;
}

/** A holding as the chaincode writes it. */
export const holding = (balance: string, saleamount = '0', auctionamount = '0') => ({
  balance,
  saleamount,
  auctionamount,
});
