import { addressChecksum } from '@mtc/domain';
import { createRng } from '../../rng.ts';
import type { BalanceEntry, Dex010Order, Mrc010Token, Wallet } from '../mrc010/records.ts';
import { tokenKey } from '../mrc010/records.ts';
import { createStub } from '../../world/stub.ts';
import { createWorld, type World } from '../../world/world.ts';
import type { Job } from '../../jobs/job.ts';
import type { PaymentInfo } from '../dex/dex.ts';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import type { Mrc402Token } from '../mrc402/records.ts';

/** Test fixtures for the DEX jobs: a hand-built world and a way to run one call against it. */

export const NOW = 1_700_000_000;

export function address(name: string): string {
  const body = name.padEnd(30, '0');
  return `MT${body}${addressChecksum(body)}`;
}

/** address() of each name, in order. */
export const addresses = <N extends readonly string[]>(...names: N) =>
  names.map((name) => address(name)) as { [K in keyof N]: string };

/** A balance entry as MRC010Add makes it ("" sale and auction amounts) unless given. */
export function entry(
  token: number,
  balance: string,
  saleamount = '',
  auctionamount = '',
  unlockdate = 0,
): BalanceEntry {
  return { balance, token, unlockdate, saleamount, auctionamount };
}

export function walletRecord(id: string, balance: BalanceEntry[]): Wallet {
  return {
    id,
    regdate: NOW - 1_000,
    password: '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----\n',
    addinfo: '',
    job_type: 'NewWallet',
    job_args: '',
    jobdate: NOW - 1_000,
    balance,
    mrc010: null,
    mrc402: null,
    mrc800: null,
    pending: null,
    nonce: `nonce${id.slice(2, 12)}`,
  };
}

export function tokenRecord(id: number, owner: string, symbol: string, decimal: number): Mrc010Token {
  return {
    id: String(id),
    owner,
    symbol,
    createdate: NOW - 1_000,
    totalsupply: '1000000000',
    reservedamount: '1000000000',
    remainamount: '0',
    burnningamount: '0',
    softcap: '0',
    hardcap: '0',
    token: id,
    name: symbol,
    information: `${symbol} info`,
    url: `https://${symbol.toLowerCase()}.example/`,
    image: 'data:image/png;base64,AAAA',
    decimal,
    reserve: [],
    tier: [],
    status: 'normal',
    targettoken: null,
    basetoken: 0,
    type: '010',
    logger: null,
    job_type: 'tokenRegister',
    job_args: '{}',
    jobdate: NOW - 1_000,
  };
}

/** A world of MTC (token 0, 8 decimals) and GLD (1, 2 decimals), both `owner`'s, and these wallets. */
export function tokenWorld(owner: string, wallets: Readonly<Record<string, BalanceEntry[]>>): World {
  const world = createWorld();
  world.apply([
    { key: tokenKey(0), value: tokenRecord(0, owner, 'MTC', 8) },
    { key: tokenKey(1), value: tokenRecord(1, owner, 'GLD', 2) },
    ...Object.entries(wallets).map(([key, balance]) => ({ key, value: walletRecord(key, balance) })),
  ]);
  return world;
}

/**
 * Four wallets and two tokens: A (seller, owns both tokens, holds 1,000 GLD), B and C (1,000,000 base
 * units of MTC each) and P (a platform's fee address, empty).
 */
export function dexWorld() {
  const [A, B, C, P] = addresses('seller', 'buyer', 'bidder', 'platform');
  const world = tokenWorld(A, {
    [A]: [entry(0, '0'), entry(1, '1000')],
    [B]: [entry(0, '1000000')],
    [C]: [entry(0, '1000000')],
    [P]: [entry(0, '0')],
  });
  return { world, A, B, C, P };
}

let stubSeed = 0;

/**
 * Executes one call as the `chaincode` at `now` and commits its writes; returns what it wrote, its
 * orders read as `O`.
 */
export function run<O = Dex010Order>(
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
    order: (key: string) => byKey.get(key) as O | undefined,
  };
}

/** A call the chaincode must reject (so nothing is committed). */
export function attempt(world: World, job: Job, args: readonly string[], now = NOW, chaincode?: ChaincodeVersion) {
  run(world, job, args, now, chaincode);
}

export const nonceOf = (world: World, key: string) => world.wallet(key)!.nonce;
export const params = (record: { job_args: string }) => JSON.parse(record.job_args) as unknown[];

/** The PaymentInfo list a DEX write carries as a JSON string in its job_args, at `index`. */
export const paymentsIn = (record: { job_args: string }, index = 3) =>
  JSON.parse(params(record)[index] as string) as PaymentInfo[];
