import type { Stub } from '../../world/stub.ts';
import { encodeToken, readToken } from './codec.ts';
import { cloneToken, type Mrc010Token, tokenKey } from './records.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';

/** CC-t `token.go` GetMRC010: a private copy of the token (an empty id filled: readToken) and its id. */
export function getMrc010(stub: Stub, tokenId: string): { token: Mrc010Token; id: number } {
  const id = mrc010Id(stub, tokenId);
  return { token: cloneToken(readToken(stub.getState(tokenKey(tokenId)) as object)), id };
}

/** GetMRC010 where the caller needs only the existence check and the id (no copy is made). */
export function mrc010Id(stub: Stub, tokenId: string): number {
  if (tokenId.length === 0) throw new ChaincodeError('4002,Token id missing');
  if (!/^[+-]?[0-9]{1,15}$/.test(tokenId)) throw new ChaincodeError('4104,Invalid toekn SN');
  if (stub.getState(tokenKey(tokenId)) === undefined) throw new ChaincodeError(`4001,Token ${tokenId} not exists`);
  return Number(tokenId);
}

/**
 * CC-t `token.go` setMRC010 (CC-22 `base.go` SetTokenInfo): stamps the job fields and writes
 * `TOKEN_DATA_<id>` in the shape of the installed chaincode version (legacy: no `id`).
 */
export function setMrc010(stub: Stub, token: Mrc010Token, jobType: string, args: readonly string[]): void {
  token.job_type = jobType;
  token.jobdate = stub.now;
  token.job_args = args.length > 0 ? JSON.stringify(args) : '';
  stub.putState(tokenKey(token.id), encodeToken(token, stub.chaincode));
}
