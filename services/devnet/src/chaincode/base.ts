import { isMtAddress } from '../world/address.ts';
import type { Stub } from '../world/stub.ts';
import { cloneWallet, type Mrc010Token, type Wallet } from '../families/mrc010/records.ts';
import { encodeWallet, readWallet } from '../families/mrc010/codec.ts';
import { ChaincodeError } from './errors.ts';

/** CC-t `base.go` GetAddressInfo: a private copy of the wallet, whichever version wrote it (mrc010/codec.ts). */
export function getAddressInfo(stub: Stub, address: string): Wallet {
  if (!isMtAddress(address)) throw new ChaincodeError(`3190,[${address}] is not Metacoin address`);
  const value = stub.getState(address);
  if (value === undefined) throw new ChaincodeError(`3090,Can not find the address [${address}]`);
  return cloneWallet(readWallet(address, value as object));
}

/** CC-t `base.go` SetAddressInfo (CC-22 the same), in the installed version's shape. */
export function setAddressInfo(stub: Stub, wallet: Wallet, jobType: string, args: readonly string[]): void {
  stampJob(stub, wallet, jobType, args);
  stub.putState(wallet.id, encodeWallet(wallet, stub.chaincode));
}

/** The job fields SetAddressInfo and setMRC010 set before they write: job_args is "" without args. */
export function stampJob(stub: Stub, r: Wallet | Mrc010Token, type: string, args: readonly string[]): void {
  r.job_type = type;
  r.jobdate = stub.now;
  r.job_args = args.length > 0 ? JSON.stringify(args) : '';
}

/** CC-t `base.go` NonceCheck, rotating the nonce in this copy (no signature check: the devnet has no keys). */
export function nonceCheck(stub: Stub, wallet: Wallet, nonce: string): void {
  const expected = wallet.nonce !== '' ? wallet.nonce : String(wallet.jobdate);
  if (nonce !== expected) throw new ChaincodeError(`1102,${wallet.id} nonce error`);
  wallet.nonce = stub.randomString(40);
}

/** GetAddressInfo then NonceCheck, how most functions open: the wallet that signed the call. */
export function getSigner(stub: Stub, address: string, nonce: string): Wallet {
  const wallet = getAddressInfo(stub, address);
  nonceCheck(stub, wallet, nonce);
  return wallet;
}

/** util.ParsePositive: digits only and greater than zero. */
export function parsePositive(value: string, message: string): bigint {
  if (!/^[0-9]+$/.test(value) || BigInt(value) === 0n) throw new ChaincodeError(message);
  return BigInt(value);
}

/** util.Strtoint64 (strconv.ParseInt base 10). */
export function parseInt64(value: string, message: string): number {
  if (!/^[+-]?[0-9]{1,18}$/.test(value)) throw new ChaincodeError(message);
  return Number(value);
}

type Strings<N extends number, T extends string[] = []> = T['length'] extends N ? T : Strings<N, [...T, string]>;

/** The chaincode's `if len(args) < n { error }` guard; the tuple type states the first `count` exist. */
export function expectArgs<N extends number>(args: readonly string[], count: N, message: string): Strings<N> {
  if (args.length < count) throw new ChaincodeError(message);
  return args as unknown as Strings<N>;
}
