import { spend } from '../balance.ts';
import type { Wallet } from '../records.ts';
import type { Stub } from '../../../world/stub.ts';

/**
 * The legacy chaincode's MRC-010 balance rules (CC-22 `base.go` MRC010Add, MRC010Subtract,
 * MoveToken), which differ from CC-t's (balance.ts) in what they leave behind:
 * - a spend that drains an entry of a token other than 0 removes every zero entry of tokens other
 *   than 0 afterwards, but a spend that leaves an entry at exactly "0" without draining an earlier
 *   one removes nothing, so legacy wallets keep `{balance: "0", token: n}` entries;
 * - new entries have no sale/auction amounts (BalanceInfo has three fields; the working copy carries
 *   "" for them, which is what the current chaincode reads them as), so a credit is CC-t's MRC010Add.
 * Changed entries are replaced, never assigned into (see cloneWallet).
 */
export function mrc010Subtract22(stub: Stub, wallet: Wallet, tokenId: string, amount: string): void {
  const { token, drained } = spend(stub, wallet, tokenId, amount, /^-?[0-9]+$/);
  if (token > 0 && drained) wallet.balance = wallet.balance.filter((e) => !(e.token > 0 && e.balance === '0'));
}

/** Go's json.Marshal of a map[string]int64: keys in sorted order. */
export function sortedKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) out[key] = map[key]!;
  return out;
}
