import type { BalanceEntry, WalletState } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * Wallets as the chain last wrote them (event-carried state from the state topic), last write wins
 * by chain position. Serves an address's registration, memo and per-token balances.
 */
export type WalletDoc = {
  /** The address. */
  _id: string;
  pos: string;
  regdate: number;
  addinfo: string;
  /** The chain's balance entries: one per (token, unlock date), in the wallet's order. */
  balances: BalanceEntry[];
  mrc402: WalletState['mrc402'];
};

export const wallets = defineModel<WalletDoc>('wallets');

export function walletWrite(pos: string, w: WalletState): Write {
  const { address, ...rest } = w;
  const doc: WalletDoc = { _id: address, pos, ...rest };
  return { op: 'putIfNewer', collection: wallets.name, doc };
}
