/** The chaincode's key-value store, as values (apart from world.ts: the families' indexes read them too). */

/** A state value as PutState stores it: a JSON record, or a bare string (`TOKEN_MAX_NO`). */
export type StateValue = object | string;

export interface Write {
  readonly key: string;
  readonly value: StateValue;
}
