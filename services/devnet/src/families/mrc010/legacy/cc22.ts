import { parsePositive } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
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
 *   "" for them, which is what the current chaincode reads them as).
 * Changed entries are replaced, never assigned into (see cloneWallet).
 */
export function mrc010Add22(stub: Stub, wallet: Wallet, tokenId: string, amount: string, unlockdate: number): void {
  const unlock = unlockdate < stub.now ? 0 : unlockdate;
  const add = parsePositive(amount, `1101,${amount} is not positive integer`);
  const token = mrc010Id(stub, tokenId);
  credit(wallet, token, add, unlock);
}

export function mrc010Subtract22(stub: Stub, wallet: Wallet, tokenId: string, amount: string): void {
  const subtract = parsePositive(amount, '1101,Amount must be an integer string');
  const token = mrc010Id(stub, tokenId);
  debit(stub, wallet, token, subtract);
}

/** CC-22 `base.go` MoveToken: from's spendable part pays, to is credited (unlockdate < now → 0). */
export function moveToken22(
  stub: Stub,
  from: Wallet,
  to: Wallet,
  tokenId: string,
  amount: string,
  unlockdate: number,
  shortfall = '5001,The balance of fromuser is insufficient',
): void {
  const unlock = unlockdate < stub.now ? 0 : unlockdate;
  const value = parsePositive(amount, '1101,Amount must be an integer string');
  const token = mrc010Id(stub, tokenId);
  try {
    debit(stub, from, token, value);
  } catch (error) {
    if (error instanceof ChaincodeError && error.message.startsWith('5000,')) throw new ChaincodeError(shortfall);
    throw error;
  }
  credit(to, token, value, unlock);
}

function debit(stub: Stub, wallet: Wallet, token: number, amount: bigint): void {
  let remain = amount;
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

function credit(wallet: Wallet, token: number, amount: bigint, unlock: number): void {
  const index = wallet.balance.findIndex((e) => e.token === token && e.unlockdate === unlock);
  const entry = wallet.balance[index];
  if (entry) {
    const held = /^[0-9]+$/.test(entry.balance) ? BigInt(entry.balance) : 0n;
    wallet.balance[index] = { ...entry, balance: (held + amount).toString() };
  } else {
    wallet.balance.push({ balance: amount.toString(), token, unlockdate: unlock, saleamount: '', auctionamount: '' });
  }
}

/** Go's json.Marshal of a map[string]int64: keys in sorted order. */
export function sortedKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) out[key] = map[key]!;
  return out;
}
