import type { Rng } from '../rng.ts';
import type { ChaincodeVersion } from '../chaincode/versions.ts';
import type { StateValue, Write } from './state.ts';
import type { World } from './world.ts';

/**
 * Fabric's shim stub for one transaction: reads see committed state only, a second PutState of a key
 * replaces the first, and read and write keys are recorded for the block builder's MVCC check.
 */
export interface Stub {
  /** The endorsing peer's clock (the chaincode's time.Now()), unix seconds. */
  readonly now: number;
  /** The chaincode version installed at this height, which decides the shape of what is written. */
  readonly chaincode: ChaincodeVersion;
  getState(key: string): StateValue | undefined;
  putState(key: string, value: StateValue): void;
  /** The chaincode's own randomness (util.MakeRandomString), drawn from the chain's seed. */
  randomString(length: number): string;
}

export interface TxEffects {
  readonly reads: ReadonlySet<string>;
  /** Sorted by key, as Fabric orders a write set. */
  readonly writes: readonly Write[];
}

export function createStub(
  world: World,
  now: number,
  rng: Rng,
  chaincode: ChaincodeVersion = 'current',
): { stub: Stub; effects: () => TxEffects } {
  const reads = new Set<string>();
  const writes = new Map<string, StateValue>();
  const stub: Stub = {
    now,
    chaincode,
    getState(key) {
      reads.add(key);
      return world.get(key);
    },
    putState(key, value) {
      writes.set(key, value);
    },
    randomString: (length) => rng.alnum(length),
  };
  return {
    stub,
    effects: () => ({
      reads,
      writes: [...writes.keys()].sort(byKey).map((key) => ({ key, value: writes.get(key)! })),
    }),
  };
}

/** Byte order, as Go's sort.Strings (keys are ASCII, where UTF-16 order is the same). */
function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
