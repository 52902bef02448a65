import type { ChaincodeVersion } from '../../chaincode/versions.ts';

/**
 * The MRC-400/401 chaincodes as one table: CC-m 0e78fc1 (`v2.3`, mainnet until the MRC-401
 * upgrade, old argument layouts) and CC-t 569b17e (`current`, new layouts); the legacy chaincode
 * has neither. A function both run alike is written once and reads its row's flags below; a
 * function whose arguments or order of checks differ is one step per version (perVersion).
 */
export interface Mrc400Version {
  readonly name: Mrc400VersionName;
  /** The argument layouts clients send. */
  readonly layout: 'old' | 'new';
  /** NonceCheck fails with CC-m's message, which has no address in it. */
  readonly plainNonceError: boolean;
  /** setMRC401 writes under the record's own id (CC-t) or the key it is given (CC-m; see setMrc401). */
  readonly ownItemKey: boolean;
  /** Mrc401Transfer stamps an empty last_trade_type `Transfer`. */
  readonly transferTradeType: boolean;
  /** Mrc401Melt pays, stamps and lists as CC-t does (its header in transfer.ts tells how). */
  readonly meltCcT: boolean;
  /** mrc401createtrade exists. */
  readonly createTrade: boolean;
}

export type Mrc400VersionName = 'v2.3' | 'current';

const CC_M: Mrc400Version = {
  name: 'v2.3',
  layout: 'old',
  plainNonceError: true,
  ownItemKey: false,
  transferTradeType: false,
  meltCcT: false,
  createTrade: false,
};

const CC_T: Mrc400Version = {
  name: 'current',
  layout: 'new',
  plainNonceError: false,
  ownItemKey: true,
  transferTradeType: true,
  meltCcT: true,
  createTrade: true,
};

/** The row of the chaincode `version` (never a legacy one: its jobs don't include MRC-400/401). */
export function mrc400Version(version: ChaincodeVersion): Mrc400Version {
  return version === 'current' ? CC_T : CC_M;
}

/** One step per MRC-400 chaincode version. */
export type PerVersion<T> = Readonly<Record<Mrc400VersionName, T>>;

/** What a step needs of the stub; importing Stub would close a circle (stub → records.ts → here). */
interface Installed {
  readonly chaincode: ChaincodeVersion;
}

/** The step of the installed chaincode. */
export function stepOf<T>(stub: Installed, steps: PerVersion<T>): T {
  return steps[mrc400Version(stub.chaincode).name];
}

/** A job's execution as one step per version, each reading the call's arguments its own way. */
export function perVersion<S extends Installed>(steps: PerVersion<(stub: S, args: readonly string[]) => void>) {
  return (stub: S, call: { readonly args: readonly string[] }): void => stepOf(stub, steps)(stub, call.args);
}
