import { parsePositive } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { mrc010Add, reworded } from '../balance.ts';
import { mrc010Id } from '../token.ts';
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
  let remain = parsePositive(amount, '1101,Amount must be an integer string');
  const token = mrc010Id(stub, tokenId);
  let clean = false;
  for (const [i, entry] of wallet.balance.entries()) {
    if (entry.token !== token || stub.now < entry.unlockdate) continue;
    if (!/^-?[0-9]+$/.test(entry.balance)) continue;
    const held = BigInt(entry.balance);
    if (held < remain) {
      remain -= held;
      wallet.balance[i] = { ...entry, balance: '0' };
      if (token > 0) clean = true;
      continue;
    }
    wallet.balance[i] = { ...entry, balance: (held - remain).toString() };
    remain = 0n;
    break;
  }
  if (clean) wallet.balance = wallet.balance.filter((e) => !(e.token > 0 && e.balance === '0'));
  if (remain > 0n) throw new ChaincodeError('5000,Not enough balance');
}

/** CC-22 `base.go` MoveToken: from's spendable part pays, to is credited as MRC010Add credits. */
export function moveToken22(
  stub: Stub,
  from: Wallet,
  to: Wallet,
  tokenId: string,
  amount: string,
  unlockdate: number,
  shortfall = '5001,The balance of fromuser is insufficient',
): void {
  reworded(() => mrc010Subtract22(stub, from, tokenId, amount), shortfall);
  mrc010Add(stub, to, tokenId, amount, unlockdate);
}

/** Go's json.Marshal of a map[string]int64: keys in sorted order. */
export function sortedKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) out[key] = map[key]!;
  return out;
}
