import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { tokenKey } from '../mrc010/records.ts';
import { createWorld, type World } from '../../world/world.ts';
import { addresses, entry, nonceOf, NOW, run as runCall, tokenRecord, walletRecord } from '../dex010/testing.ts';
import type { Job } from '../../jobs/job.ts';
import { mrc400CreateJob } from './collection.ts';
import { mrc401CreateJob } from './create.ts';
import type { PaymentInfo } from '../dex/dex.ts';

export { address, entry, nonceOf, NOW } from '../dex010/testing.ts';

/**
 * Test fixtures for the MRC-400/401 jobs: a hand-built world and a way to run one call against it
 * under either chaincode version.
 */

/**
 * Two tokens (MTC 0, GLD 1) and wallets: O (collection owner, 1,000,000 MTC and 1,000 GLD), A and
 * B (1,000,000 MTC each; B also 5,000 GLD), P (a platform's fee address), S (a shareholder), R (a partner), all
 * otherwise empty.
 */
export function nftWorld() {
  const world = createWorld();
  const [O, A, B, P, S, R] = addresses('owner', 'alice', 'bob', 'platform', 'shareholder', 'partner');
  world.apply([
    { key: tokenKey(0), value: tokenRecord(0, O, 'MTC', 8) },
    { key: tokenKey(1), value: tokenRecord(1, O, 'GLD', 2) },
    { key: O, value: walletRecord(O, [entry(0, '1000000'), entry(1, '1000')]) },
    { key: A, value: walletRecord(A, [entry(0, '1000000')]) },
    { key: B, value: walletRecord(B, [entry(0, '1000000'), entry(1, '5000')]) },
    { key: P, value: walletRecord(P, [entry(0, '0')]) },
    { key: S, value: walletRecord(S, [entry(0, '0')]) },
    { key: R, value: walletRecord(R, [entry(0, '500')]) },
  ]);
  return { world, O, A, B, P, S, R };
}

export interface RunOptions {
  version?: ChaincodeVersion;
  now?: number;
}

/**
 * Executes one call as the `version` chaincode at `now` and commits its writes; returns what it
 * wrote. A call the chaincode rejects throws before anything is committed.
 */
export function run(
  world: World,
  job: Job,
  args: readonly string[],
  { version = 'current', now = NOW }: RunOptions = {},
) {
  const fx = runCall<Record<string, unknown>>(world, job, args, now, version);
  return { keys: fx.keys, wallet: fx.wallet, record: fx.order };
}

/** A call the chaincode must reject (so nothing is committed). */
export function attempt(world: World, job: Job, args: readonly string[], options?: RunOptions): void {
  run(world, job, args, options);
}

export const params = (r: { job_args: string } | Record<string, unknown>) =>
  JSON.parse(r['job_args'] as string) as string[];

/** The PaymentInfo list a settlement record carries in its job_args, at `index`. */
export const paymentsIn = (r: { job_args: string } | Record<string, unknown>, index = 3) =>
  JSON.parse(params(r)[index]!) as PaymentInfo[] | null;

/** A wallet's spendable balance entries of `token`, summed, as a string. */
export function balanceOf(world: World, key: string, token: number): string {
  return world
    .wallet(key)!
    .balance.filter((e) => e.token === token)
    .reduce((sum, e) => sum + BigInt(e.balance), 0n)
    .toString();
}

/** A 40-character item id from a short name. */
export function itemId(name: string): string {
  return name.padEnd(40, '0');
}

export const SITE = 'https://nebula.devnet.example/';
export const IMAGE = 'http://127.0.0.1:20922/images/abcdefghijklmnop.png';

type NftWorld = ReturnType<typeof nftWorld>;

/** A collection of O's created by `version` (allow token "0"; CC-t partners as given). */
export function collection(w: NftWorld, version: ChaincodeVersion, partner: Record<string, string> = {}): string {
  const nonce = nonceOf(w.world, w.O);
  const args =
    version === 'v2.3'
      ? [w.O, 'Nebula', SITE, IMAGE, '0', 'art', 'words', `${SITE}items/`, IMAGE, '', 'c2ln', nonce]
      : [w.O, 'Nebula', SITE, IMAGE, '0', '', '', 'art', 'words', '', JSON.stringify(partner), '', 'c2ln', nonce];
  run(w.world, mrc400CreateJob, args, { version });
  return w.world.mrc400.collections.at(-1)!;
}

/** One item of a create call's itemData. */
export function job(id: string, fields: Record<string, unknown> = {}) {
  return {
    item_id: id,
    item_url: '',
    item_image_url: IMAGE,
    groupid: 'series-1',
    initial_reserve: '0',
    initial_token: '0',
    melting_fee: '2.5',
    transferable: 'Permanent',
    sell_fee: '1.25',
    ...fields,
  };
}

/** Creates items in `c` as `creator` (CC-m: the MRC-400 owner) under `version`. */
export function createItems(w: NftWorld, c: string, version: ChaincodeVersion, jobs: object[], creator = w.O) {
  const data = JSON.stringify(jobs);
  const args =
    version === 'v2.3'
      ? [c, data, 'c2ln', nonceOf(w.world, w.O)]
      : [c, creator, data, 'c2ln', nonceOf(w.world, creator)];
  return { args, fx: run(w.world, mrc401CreateJob, args, { version }) };
}
