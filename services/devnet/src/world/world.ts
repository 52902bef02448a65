import { tokenIdFromDatakey } from '@mtc/domain';
import { isMtAddress } from './address.ts';
import type { Mrc010Token, Wallet } from './records.ts';
import { tokenKey } from './records.ts';

/** A state value as PutState stores it: a JSON record, or a bare string (`TOKEN_MAX_NO`). */
export type StateValue = object | string;

export interface Write {
  readonly key: string;
  readonly value: StateValue;
}

/**
 * The committed world state: the chaincode's key-value store plus the indexes the planners draw
 * from. Committed values are deep-frozen, so history entries can share them safely and a job that
 * changes a record in place instead of copying it fails at once.
 */
export interface World {
  get(key: string): StateValue | undefined;
  wallet(address: string): Wallet | undefined;
  token(id: number): Mrc010Token | undefined;
  /** Addresses in creation order. */
  readonly wallets: readonly string[];
  /** Registered token ids, ascending. */
  readonly tokens: readonly number[];
  apply(writes: readonly Write[]): void;
}

export function createWorld(): World {
  const state = new Map<string, StateValue>();
  const wallets: string[] = [];
  const tokens: number[] = [];

  return {
    get: (key) => state.get(key),
    // The key families below hold only what our chaincode wrote there, so the casts are exact.
    wallet: (address) => state.get(address) as Wallet | undefined,
    token: (id) => state.get(tokenKey(id)) as Mrc010Token | undefined,
    wallets,
    tokens,
    apply(writes) {
      for (const { key, value } of writes) {
        if (!state.has(key)) {
          if (isMtAddress(key)) wallets.push(key);
          const tokenId = tokenIdFromDatakey(key);
          if (tokenId !== null) tokens.push(tokenId);
        }
        state.set(key, deepFreeze(value));
      }
    },
  };
}

/** Freezes a committed value, skipping parts already frozen (shared with earlier snapshots). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze(value[key]);
  }
  return value;
}
