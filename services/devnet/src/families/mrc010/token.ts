import type { Stub } from '../../world/stub.ts';
import { encodeToken, readToken } from './codec.ts';
import { cloneToken, type Mrc010Token, tokenKey } from './records.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { stampJob } from '../../chaincode/base.ts';

/** CC-t `token.go` GetMRC010: a private copy of the token (an empty id filled: readToken) and its id. */
export function getMrc010(stub: Stub, tokenId: string): { token: Mrc010Token; id: number } {
  const id = mrc010Id(stub, tokenId);
  return { token: cloneToken(readToken(stub.getState(tokenKey(tokenId)) as object)), id };
}

/** GetMRC010's checks and id, without the copy. */
export function mrc010Id(stub: Stub, tokenId: string): number {
  if (tokenId.length === 0) throw new ChaincodeError('4002,Token id missing');
  if (!/^[+-]?[0-9]{1,15}$/.test(tokenId)) throw new ChaincodeError('4104,Invalid toekn SN');
  if (stub.getState(tokenKey(tokenId)) === undefined) throw new ChaincodeError(`4001,Token ${tokenId} not exists`);
  return Number(tokenId);
}

/** CC-t `token.go` setMRC010 (CC-22 `base.go` SetTokenInfo), in the installed version's shape. */
export function setMrc010(stub: Stub, token: Mrc010Token, jobType: string, args: readonly string[]): void {
  stampJob(stub, token, jobType, args);
  stub.putState(tokenKey(token.id), encodeToken(token, stub.chaincode));
}
