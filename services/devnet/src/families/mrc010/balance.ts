import type { Stub } from '../../world/stub.ts';
import { creditEntry, type Wallet } from './records.ts';
import { parsePositive } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from './token.ts';
import { decimalOrZero } from '../../chaincode/util.ts';

/**
 * The MRC-010 balance array rules of CC-t `base.go` (MRC010Add, MRC010Subtract), on a wallet copy:
 * - one entry per (token, unlockdate); a credit whose unlockdate is already past is stored with 0;
 * - spending walks the array in order, skipping entries still locked (now < unlockdate);
 * - after a spend, entries of tokens other than 0 whose balance, sale and auction are all zero go.
 * Entries made by a spend carry "0" sale/auction amounts (credits: creditEntry). These are signed: CC-t
 * `token.go` mrc010Unauction lowers saleamount for escrow it put in auctionamount. Changed entries are
 * replaced, never assigned into (see cloneWallet).
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
 * The walk both chaincodes' MRC010Subtract start with: `amount` is taken from the wallet's entries of
 * the token in array order, skipping locked ones and those whose balance does not match `digits`.
 * Fails with 5000 when they hold too little; tells whether some entry was drained to "0".
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

/** Tokens `wallet` can spend something of at `now`, in array order, without repeats (in one pass). */
export function spendableTokens(wallet: Wallet, now: number): number[] {
  const seen = new Set<number>();
  for (const e of wallet.balance) {
    // Stored balances are normalised integer strings, so "0" (or "") is the only zero.
    if (now >= e.unlockdate && nonZero(e.balance)) seen.add(e.token);
  }
  return [...seen];
}

/** decimal.NewFromString (util.ParseNotNegative) as the chaincode uses it: anything unparsable counts as zero. */
export function toAmount(value: string): bigint {
  return /^[0-9]+$/.test(value) ? BigInt(value) : 0n;
}

function nonZero(value: string): boolean {
  return value !== '0' && value !== '';
}

/**
 * CC-t `base.go` MoveToken: from pays by `subtract` (CC-22's: cc22.ts), whose "not enough balance"
 * (5000) becomes `shortfall` (Transfer's wording unless the caller has its own), and to is credited.
 */
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
