import { createHash } from 'node:crypto';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import type { Dex402Order } from './records.ts';
import type { World } from '../../world/world.ts';
import { addresses, entry, NOW, run as runCall, tokenWorld } from '../dex010/testing.ts';
import type { Job } from '../../jobs/job.ts';

export { address, attempt, entry, NOW, nonceOf, params, paymentsIn } from '../dex010/testing.ts';

/** Test fixtures for the MRC-402 jobs: a hand-built world and a way to run one call against it. */

/**
 * Seven wallets and two tokens (MTC 0 with 8 decimals, GLD 1 with 2): C the creator (1,000,000 MTC
 * and 10,000 GLD base units), H a holder and buyer and B a bidder (1,000,000 MTC each), R a rival
 * bidder (1,000,000 MTC), P a platform's fee address and S1, S2 shareholders (empty).
 */
export function nftWorld() {
  const [C, H, B, R, P, S1, S2] = addresses('creator', 'holder', 'bidder', 'rival', 'platform', 'shareone', 'sharetwo');
  const world = tokenWorld(C, {
    [C]: [entry(0, '1000000'), entry(1, '10000')],
    [H]: [entry(0, '1000000')],
    [B]: [entry(0, '1000000')],
    [R]: [entry(0, '1000000')],
    [P]: [entry(0, '0')],
    [S1]: [entry(0, '0')],
    [S2]: [entry(0, '0')],
  });
  return { world, C, H, B, R, P, S1, S2 };
}

/** run (dex010/testing.ts), its orders read as DEX402's. */
export const run = (world: World, job: Job, args: readonly string[], now = NOW, chaincode?: ChaincodeVersion) =>
  runCall<Dex402Order>(world, job, args, now, chaincode);

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
