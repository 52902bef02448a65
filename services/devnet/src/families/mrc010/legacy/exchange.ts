import { LEGACY } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, setAddressInfo } from '../../../chaincode/base.ts';
import { moveToken, spendable, spendableTokens } from '../balance.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { mrc010Id } from '../token.ts';
import { isMtAddress } from '../../../world/address.ts';
import type { Wallet } from '../records.ts';
import { fakeMemo, fakeSignature, fakeTag } from '../../../jobs/client.ts';
import { type Job, pickActiveWallet, pickOtherWallet, portion } from '../../../jobs/job.ts';
import { pickFundedWallet, type Funded } from '../plan.ts';
import { mrc010Subtract22 } from './cc22.ts';

/**
 * Legacy `exchange` (CC-22 `stodex.go` Exchange, dispatched until ≈ 2022-08), a swap signed by both sides.
 * Quirks kept, from the Go pointer juggling: a fee receiver that is a party shares its wallet, so the key is
 * written twice and the later job type wins (fromFee = to: `exchangeFee` on to; toFee = from or fromFee =
 * toFee: `exchangeFeePair`); the bridge adds the lost role as a second entry, same datakey (chain/entries.ts).
 * A fee receiver that is "" or its own payer is not written; one whose fee is not a positive integer ("0")
 * is, though nothing moves.
 */
export const exchangeJob: Job = {
  fcn: 'exchange',
  weight: 6,
  writes: [LEGACY.exchange, LEGACY.exchangePair, LEGACY.exchangeFee, LEGACY.exchangeFeePair],
  plan(ctx) {
    const { world, rng, now } = ctx;
    const from = pickFundedWallet(ctx);
    if (!from) return null;
    let to: Funded | null = null;
    for (let attempt = 0; attempt < 8 && !to; attempt++) {
      const wallet = world.wallet(pickActiveWallet(ctx, 0.6))!;
      if (wallet.id === from.wallet.id) continue;
      const tokens = spendableTokens(wallet, now).filter((t) => t !== from.token);
      if (tokens.length === 0) continue;
      const token = rng.pick(tokens);
      to = { wallet, token, available: spendable(wallet, token, now) };
    }
    if (!to) return null;

    const fromAmount = portion(rng, from.available, 1, 40);
    const toAmount = portion(rng, to.available, 1, 40);
    const [fromId, toId] = [from.wallet.id, to.wallet.id];
    const operator = (): string => pickOtherWallet(ctx, new Set([fromId, toId])) ?? '';
    const maybe = () => (rng.chance(0.5) ? operator() : '');
    // Who takes the fees, by share: one exchange operator both, two operators, the counterparty the from
    // side's or the to side's, the from side itself (nothing happens), or nobody.
    const feeTakers: [below: number, takers: () => string[]][] = [
      [0.3, () => Array<string>(2).fill(operator())],
      [0.45, () => [operator(), operator()]],
      [0.57, () => [toId, maybe()]],
      [0.69, () => [maybe(), fromId]],
      [0.74, () => [fromId]],
    ];
    const roll = rng.next();
    const [fromFeeAddr = '', toFeeAddr = ''] = feeTakers.find(([below]) => roll < below)?.[1]() ?? [];
    // Each side keeps back up to 1 % of its balance for its fee.
    const side = ({ wallet, token, available }: Funded, amount: bigint, feeAddr: string) => {
      const left = available - amount;
      const fee = feeAddr === '' ? '' : left <= 0n || rng.chance(0.15) ? '0' : portion(rng, left, 0.05, 1).toString();
      const head = [wallet.id, amount.toString(), String(token), feeAddr, fee, String(token)];
      return [...head, fakeTag(rng), fakeMemo(rng), fakeSignature(rng)];
    };
    const args = [...side(from, fromAmount, fromFeeAddr), ...side(to, toAmount, toFeeAddr)];
    return { fcn: 'exchange', args: [...args, from.wallet.nonce, to.wallet.nonce] };
  },
  execute(stub, { args }) {
    const a = expectArgs(
      args,
      20,
      '1000,exchange operation must include four arguments : fromAddr, fromAmount, fromToken, fromFeeSendto, fromFee, fromFeeToken, fromTag, fromMemo, fromSign, toAddr, toAmount, toToken, toFeeSendto, toFee, toFeeToken, toTag, toMemo, toSign, fromTKey, toTKey',
    );
    const [fromAddr, fromAmount, fromToken, fromFeeAddr, fromFee, fromFeeToken] = a;
    const [toAddr, toAmount, toToken, toFeeAddr, toFee, toFeeToken] = a.slice(9, 15) as typeof a;
    const [fromNonce, toNonce] = [a[18], a[19]];
    if (!isMtAddress(fromAddr)) throw new ChaincodeError('3001,Invalid from address');
    if (!isMtAddress(toAddr)) throw new ChaincodeError('3002,Invalid to address');
    if (fromAddr === toAddr) throw new ChaincodeError('3201,From address and to address must be different values');
    if (fromToken === toToken) throw new ChaincodeError('3202,From token and to token must be different values');
    for (const token of [fromToken, toToken, fromFeeToken, toFeeToken]) mrc010Id(stub, token);

    const from = getAddressInfo(stub, fromAddr);
    const to = getAddressInfo(stub, toAddr);
    const feeWallet = (address: string, payer: string, read: [string, Wallet | null][], error: string) => {
      if (address === '' || address === payer) return null;
      const shared = read.find(([key]) => key === address);
      if (shared) return shared[1];
      if (!isMtAddress(address)) throw new ChaincodeError(error);
      return getAddressInfo(stub, address);
    };
    const fromFeeWallet = feeWallet(fromFeeAddr, fromAddr, [[toAddr, to]], '3003,Invalid from fee address');
    const toFeeRead: [string, Wallet | null][] = [
      [fromAddr, from],
      [fromFeeAddr, fromFeeWallet],
    ];
    const toFeeWallet = feeWallet(toFeeAddr, toAddr, toFeeRead, '3004,Invalid to fee address');

    nonceCheck(stub, from, fromNonce);
    nonceCheck(stub, to, toNonce);
    const fromShort = '5001,The balance of fromuser is insufficient';
    const toShort = '5002,The balance of touser is insufficient';
    const pay = (payer: Wallet, payee: Wallet, token: string, amount: string, short: string) =>
      moveToken(stub, payer, payee, token, amount, 0, mrc010Subtract22, short);
    pay(from, to, fromToken, fromAmount, fromShort);
    pay(to, from, toToken, toAmount, toShort);
    if (fromFeeWallet && isPositive(fromFee)) pay(from, fromFeeWallet, fromFeeToken, fromFee, fromShort);
    if (toFeeWallet && isPositive(toFee)) pay(to, toFeeWallet, toFeeToken, toFee, toShort);

    // Go passes each wallet struct by value, so every write is a snapshot (hence the copies); a second
    // write of the same key replaces the first in the write set.
    setAddressInfo(stub, { ...from }, LEGACY.exchange, args);
    setAddressInfo(stub, { ...to }, LEGACY.exchangePair, args);
    if (fromFeeWallet) setAddressInfo(stub, { ...fromFeeWallet }, LEGACY.exchangeFee, args);
    if (toFeeWallet) setAddressInfo(stub, { ...toFeeWallet }, LEGACY.exchangeFeePair, args);
  },
};

/** Whether util.ParsePositive accepts `amount`: digits only and greater than zero. */
function isPositive(amount: string): boolean {
  return /^[0-9]+$/.test(amount) && BigInt(amount) > 0n;
}
