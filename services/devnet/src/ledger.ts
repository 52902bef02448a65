import type { RawEntry } from '@mtc/domain';
import { txEntries, type TxWrites } from './chain/entries.ts';
import { DEFAULT_JOBS, jobFor } from './jobs/registry.ts';
import { createRng } from './rng.ts';
import type { Dex010Order, Mrc010Token, Wallet } from './families/mrc010/records.ts';
import { createStub } from './world/stub.ts';
import type { StateValue, Write } from './world/state.ts';
import { createWorld } from './world/world.ts';

/**
 * The devnet's chaincode without its planners, schedule or server: a world state and one chaincode
 * call at a time, with the writes the chain would commit for it and the node entries it would serve.
 * For fixtures that say which calls a chain holds and need what the real chain makes of them.
 *
 * Every call is committed the moment it runs, so calls of one block see each other's writes (the
 * block builder would leave the second of two overlapping calls out; a fixture may want both).
 */
export interface Ledger {
  get(key: string): StateValue | undefined;
  /** A wallet as a client signing a call sees it: with the nonce the call must carry. */
  wallet(address: string): Wallet | undefined;
  /** A token in the current record shape. */
  token(id: number): Mrc010Token | undefined;
  /** DEX010 orders not yet cancelled, sold out or settled, by kind, in creation order. */
  openDex010(kind: 'sell' | 'reqsell' | 'auction'): Dex010Order[];
  /** State no listed transaction wrote: the chain's earlier past. */
  preset(writes: readonly LedgerWrite[]): void;
  /**
   * Runs chaincode function `fcn` on `args` with the peers' clock at `now` and commits its writes,
   * which come back sorted by key, as a Fabric write set. A call the chaincode rejects throws its
   * error and changes nothing. `draws` are what the chaincode's randomness returns first (a new
   * wallet's address is `MT` + its first 30-character draw + checksum); with `commit: false` the
   * writes are only returned (for a caller that commits them otherwise, with preset).
   */
  call(
    fcn: string,
    args: readonly string[],
    now: number,
    options?: { draws?: readonly string[]; commit?: boolean },
  ): readonly LedgerWrite[];
  /** A transaction's entries exactly as the node serves them (the bridge's parse and the node's stamp). */
  entries(tx: TxWrites, block: { hash: string; height: number }): RawEntry[];
}

export type LedgerWrite = Write;

/** A ledger over an empty world; the chaincode's randomness (nonces, addresses) comes from `seed`. */
export function createLedger(seed = 1): Ledger {
  const world = createWorld();
  const rng = createRng(seed);
  return {
    get: (key) => world.get(key),
    wallet: (address) => world.wallet(address),
    token: (id) => world.token(id),
    openDex010: (kind) => world.openDex010[kind].map((id) => world.dex010(id)!),
    preset: (writes) => world.apply(writes),
    call(fcn, args, now, { draws = [], commit = true } = {}) {
      const job = jobFor(DEFAULT_JOBS, fcn);
      const { stub, effects } = createStub(world, now, rng);
      const queue = [...draws];
      job.execute({ ...stub, randomString: (n) => queue.shift() ?? stub.randomString(n) }, { fcn, args });
      const { writes } = effects();
      if (commit) world.apply(writes);
      return writes;
    },
    entries: (tx, block) => txEntries(tx, { hash: block.hash, sn: String(block.height) }),
  };
}
