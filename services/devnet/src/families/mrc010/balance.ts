import type { Stub } from '../../world/stub.ts';
import { creditEntry, type Wallet } from './records.ts';
import { parsePositive } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from './token.ts';
import { decimalOrZero } from '../../chaincode/util.ts';

/**
 * CC-t `base.go` MRC010Add, MRC010Subtract on a wallet copy: one entry per (token, unlockdate), a past
 * unlockdate stored as 0; a spend walks the array in order, skipping locked entries, then drops entries
 * of tokens other than 0 with balance, sale and auction all zero. Entries a spend makes carry "0" sale/
 * auction amounts (credits: creditEntry), which are signed: CC-t `token.go` mrc010Unauction lowers
 * saleamount for escrow it put in auctionamount. Changed entries are replaced (see cloneWallet).
 */
export type SubtractKind = 'normal' | 'sell' | 'auction';

export function mrc010Add(stub: Stub, wallet: Wallet, tokenId: string, amount: string, unlockdate: number): void {
  const unlock = unlockdate < stub.now ? 0 : unlockdate;
  const add = parsePositive(amount, `1101,${amount} is not positive integer`);
  const token = mrc010Id(stub, tokenId);
  const index = wallet.balance.findIndex((e) => e.token === token && e.unlockdate === unlock);
  const entry = wallet.balance[index];
  if (entry) {
    wallet.balance[index] = { ...entry, balance: (toAmount(entry.balance) + add).toString() };
  } else {
    wallet.balance.push(creditEntry(add.toString(), token, unlock));
  }
}

export function mrc010Subtract(stub: Stub, wallet: Wallet, tokenId: string, amount: string, kind: SubtractKind): void {
  const { token, value: subtract } = spend(stub, wallet, tokenId, amount, /^[0-9]+$/);
  let openIndex = wallet.balance.findIndex((e) => e.token === token && e.unlockdate === 0);
  if (openIndex === -1) {
    wallet.balance.push({ balance: '0', token, unlockdate: 0, saleamount: '0', auctionamount: '0' });
    openIndex = wallet.balance.length - 1;
  }
  const open = wallet.balance[openIndex]!;
  if (kind !== 'normal') {
    const field = kind === 'sell' ? 'saleamount' : 'auctionamount';
    wallet.balance[openIndex] = { ...open, [field]: (decimalOrZero(open[field]) + subtract).toString() };
  }

  // Every wallet keeps its token-0 entries, so the array never empties (Go would write null).
  wallet.balance = wallet.balance.filter(
    (e) => e.token === 0 || nonZero(e.balance) || nonZero(e.auctionamount) || nonZero(e.saleamount),
  );
}

/**
 * The walk both chaincodes' MRC010Subtract start with, skipping locked entries and balances not matching
 * `digits`; tells whether some entry was drained to "0".
 */
export function spend(stub: Stub, wallet: Wallet, tokenId: string, amount: string, digits: RegExp) {
  const value = parsePositive(amount, '1101,Amount must be an integer string');
  const token = mrc010Id(stub, tokenId);
  let remain = value;
  let drained = false;
  for (const [i, entry] of wallet.balance.entries()) {
    if (entry.token !== token || stub.now < entry.unlockdate || !digits.test(entry.balance)) continue;
    const held = BigInt(entry.balance);
    if (held < remain) {
      remain -= held;
      wallet.balance[i] = { ...entry, balance: '0' };
      drained = true;
      continue;
    }
    wallet.balance[i] = { ...entry, balance: (held - remain).toString() };
    remain = 0n;
    break;
  }
  if (remain > 0n) throw new ChaincodeError('5000,Not enough balance');
  return { token, value, drained };
}

/** What MRC010Subtract would let `wallet` spend of `token` at `now`. */
export function spendable(wallet: Wallet, token: number, now: number): bigint {
  let sum = 0n;
  for (const e of wallet.balance) {
    if (e.token === token && now >= e.unlockdate) sum += toAmount(e.balance);
  }
  return sum;
}

/** Tokens `wallet` can spend something of at `now`, in array order. */
export function spendableTokens(wallet: Wallet, now: number): number[] {
  const seen = new Set<number>();
  for (const e of wallet.balance) {
    if (now >= e.unlockdate && nonZero(e.balance)) seen.add(e.token);
  }
  return [...seen];
}

/** decimal.NewFromString (util.ParseNotNegative) as the chaincode uses it: anything unparsable counts as zero. */
export function toAmount(value: string): bigint {
  return /^[0-9]+$/.test(value) ? BigInt(value) : 0n;
}

/** Stored amounts are normalised integer strings, so "0" and "" are the only zeros. */
function nonZero(value: string): boolean {
  return value !== '0' && value !== '';
}

/** CC-t `base.go` MoveToken: from pays by `subtract` (CC-22's: cc22.ts), whose 5000 becomes `shortfall`. */
export function moveToken(
  stub: Stub,
  from: Wallet,
  to: Wallet,
  tokenId: string,
  amount: string,
  unlockdate: number,
  subtract = (s: Stub, w: Wallet, id: string, value: string) => mrc010Subtract(s, w, id, value, 'normal'),
  shortfall = '5001,The balance of fromuser is insufficient',
): void {
  try {
    subtract(stub, from, tokenId, amount);
  } catch (error) {
    if (error instanceof ChaincodeError && error.message.startsWith('5000,')) throw new ChaincodeError(shortfall);
    throw error;
  }
  mrc010Add(stub, to, tokenId, amount, unlockdate);
}
