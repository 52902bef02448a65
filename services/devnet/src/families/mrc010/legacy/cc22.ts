import { spend } from '../balance.ts';
import type { Wallet } from '../records.ts';
import type { Stub } from '../../../world/stub.ts';

/**
 * CC-22 `base.go` MRC010Add, MRC010Subtract, MoveToken, which differ from CC-t's (balance.ts) in what they
 * leave: only a spend that drains an entry (token ≠ 0) removes the zero entries (token ≠ 0), so one it
 * leaves at exactly "0" stays (`{balance: "0", token: n}`); entries have no sale/auction amounts (3-field
 * BalanceInfo; the copy carries "", as CC-t reads them), so a credit is CC-t's MRC010Add.
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
