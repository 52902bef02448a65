/**
 * The chaincode's key-value store, as values: kept apart from world.ts because the families' record
 * indexes, which world.ts builds on, read state values too.
 */

/** A state value as PutState stores it: a JSON record, or a bare string (`TOKEN_MAX_NO`). */
export type StateValue = object | string;

export interface Write {
  readonly key: string;
  readonly value: StateValue;
}
