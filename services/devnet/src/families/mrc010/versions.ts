import type { Stub } from '../../world/stub.ts';
import { mrc010Subtract, moveToken } from './balance.ts';
import { isLegacy, type ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc010Subtract22 } from './legacy/cc22.ts';
import type { Wallet } from './records.ts';

/**
 * What the legacy chaincode (CC-22, every version before v2.3) does its own way in the MRC-010 functions
 * both chaincodes have; each such job reads the row of the version installed.
 */
export interface Mrc010Steps {
  /** MoveToken: CC-22's keeps an entry spent to exactly "0" and writes three-field entries (cc22.ts). */
  moveToken(stub: Stub, from: Wallet, to: Wallet, tokenId: string, amount: string, unlockdate: number): void;
  /** MRC010Subtract as tokenBurning debits the owner. */
  burn(stub: Stub, owner: Wallet, tokenId: string, amount: string): void;
  /** Whether tokenIncrease/tokenBurning take a memo (CC-t: 5 args, CC-22: 4) and read the token before the amount. */
  readonly supplyMemo: boolean;
  /** Whether a multitransfer list item also unmarshals a `tokenid` (CC-22's MultiTransferList). */
  readonly listTokenId: boolean;
  /** Whether tokenRegister reads the client's `id` (CC-22's Token struct has none). */
  readonly tokenId: boolean;
}

const CURRENT: Mrc010Steps = {
  moveToken,
  burn: (stub, owner, tokenId, amount) => mrc010Subtract(stub, owner, tokenId, amount, 'normal'),
  supplyMemo: true,
  listTokenId: false,
  tokenId: true,
};

const LEGACY: Mrc010Steps = {
  moveToken: (stub, from, to, tokenId, amount, lock) =>
    moveToken(stub, from, to, tokenId, amount, lock, mrc010Subtract22),
  burn: mrc010Subtract22,
  supplyMemo: false,
  listTokenId: true,
  tokenId: false,
};

export function mrc010Steps(version: ChaincodeVersion | undefined): Mrc010Steps {
  return version !== undefined && isLegacy(version) ? LEGACY : CURRENT;
}
