import { sortedEntries, dataAssign, decimalOrZero, numericDataCheck } from '../../chaincode/util.ts';
import { MRC402 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract, spendable } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { forEachReserve, getMrc402, mrc402Add, mrc402Subtract, setMrc402 } from './chaincode.ts';
import { prefixed } from '../dex/order-record.ts';
import { type Mrc402Token } from './records.ts';
import { fakeMemo, fakeSignature } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';
import type { Stub } from '../../world/stub.ts';
import { portion } from '../../jobs/job.ts';
import { MAX_SUPPLY } from './create.ts';
import { creatorWallet, heldUnits, pickHolding, pickMrc402 } from './plan.ts';

/**
 * `mrc402mint` (id, amount, memo, sig, nonce) → the record written `mrc402_mint` and the creator
 * `mrc402mint` (CC-t `mrc402.go` Mrc402Mint). The creator gains `amount` and pays amount × per-unit
 * reserve of each reserve token; totalsupply may not pass 99,999,999 (the message says "less than").
 */
export const mrc402MintJob: Job = {
  fcn: 'mrc402mint',
  weight: 0.5,
  writes: [MRC402.mint, MRC402.walletMint],
  plan(ctx) {
    const { rng } = ctx;
    const token = pickMrc402(ctx, (t) => decimalOrZero(t.totalsupply) < MAX_SUPPLY);
    if (!token) return null;
    const creator = creatorWallet(ctx, token);
    if (!creator) return null;
    let max = MAX_SUPPLY - decimalOrZero(token.totalsupply);
    const wanted = portion(rng, decimalOrZero(token.totalsupply) || 1n, 1, 50);
    if (wanted < max) max = wanted;
    for (const [tokenId, perUnit] of reserveOf(token)) {
      if (perUnit === 0n) return null;
      const affordable = spendable(creator, Number(tokenId), ctx.now) / perUnit;
      if (affordable < max) max = affordable;
    }
    if (max < 1n) return null;
    return {
      fcn: 'mrc402mint',
      args: [token.id, portion(rng, max, 1, 100).toString(), fakeMemo(rng), fakeSignature(rng), creator.nonce],
    };
  },
  execute(stub, { args }) {
    const { token, creator, units: mint, params } = readSupplyCall(stub, args);
    mrc402Add(stub, creator, token.id, mint.toString(), 'normal');
    token.totalsupply = checkedSupply(
      decimalOrZero(token.totalsupply) + mint,
      '1',
      '3005,After the mint, the value of TotalSupply is less than 99999999',
    );
    forEachReserve(stub, token.initialreserve, (tokenId, perUnit) =>
      mrc010Subtract(stub, creator, tokenId, (mint * perUnit).toString(), 'normal'),
    );
    setMrc402(stub, token, MRC402.mint, params);
    setAddressInfo(stub, creator, MRC402.walletMint, params);
  },
};

/**
 * `mrc402burn` (id, amount, memo, sig, nonce) → the record written `mrc402_burn` and the creator
 * `mrc402burn` (CC-t `mrc402.go` Mrc402Burn). The creator loses `amount` of its balance and gets
 * amount × per-unit reserve of each reserve token back (credited unlocked). Quirk kept (metacoin-chain.md
 * §7.3): the new totalsupply is totalsupply − meltedamount − amount while meltedamount stays, so every
 * burn after a melt takes the melted units off the supply once more; a burn that would take it below 0
 * is refused ("The maximum amount that can be burn is <totalsupply − meltedamount>").
 */
export const mrc402BurnJob: Job = {
  fcn: 'mrc402burn',
  weight: 0.3,
  writes: [MRC402.burn, MRC402.walletBurn],
  plan(ctx) {
    const { rng } = ctx;
    const token = pickMrc402(ctx, burnable);
    if (!token) return null;
    const creator = creatorWallet(ctx, token);
    if (!creator) return null;
    const held = heldUnits(creator, token.id);
    const limit = decimalOrZero(token.totalsupply) - decimalOrZero(token.meltedamount);
    const max = held < limit ? held : limit;
    if (max < 1n) return null;
    return {
      fcn: 'mrc402burn',
      args: [token.id, portion(rng, max, 1, 40).toString(), fakeMemo(rng), fakeSignature(rng), creator.nonce],
    };
  },
  execute(stub, { args }) {
    const { token, creator, units: burn, params } = readSupplyCall(stub, args);
    mrc402Subtract(stub, creator, token.id, burn.toString(), 'normal');
    const burnableAmount = decimalOrZero(token.totalsupply) - decimalOrZero(token.meltedamount);
    token.totalsupply = checkedSupply(
      burnableAmount - burn,
      '0',
      `3005,The maximum amount that can be burn is ${burnableAmount}`,
    );
    forEachReserve(stub, token.initialreserve, (tokenId, perUnit) =>
      mrc010Add(stub, creator, tokenId, (burn * perUnit).toString(), 0),
    );
    setMrc402(stub, token, MRC402.burn, params);
    setAddressInfo(stub, creator, MRC402.walletBurn, params);
  },
};

/**
 * `mrc402melt` (id, address, amount, sig, nonce) → the record written `mrc402_melt` and the holder
 * `mrc402melt`, both with the call args (CC-t `mrc402.go` Mrc402Melt). Refused before the expiredate
 * (meltable). The holder loses `amount` and gets amount × per-unit reserve of each reserve token
 * (credited unlocked); meltedamount grows by `amount`, totalsupply stays.
 */
export const mrc402MeltJob: Job = {
  fcn: 'mrc402melt',
  weight: 0.7,
  writes: [MRC402.melt, MRC402.walletMelt],
  plan(ctx) {
    const { rng, now } = ctx;
    const holding = pickHolding(ctx, (t) => meltable(t, now));
    if (!holding) return null;
    const amount = rng.chance(0.2) ? holding.units : portion(rng, holding.units, 1, 50);
    return {
      fcn: 'mrc402melt',
      args: [holding.token.id, holding.wallet.id, amount.toString(), fakeSignature(rng), holding.wallet.nonce],
    };
  },
  execute(stub, { args }) {
    const [id, address, amount, , nonce] = expectArgs(
      args,
      5,
      '1000,mrc402melt operation must include four arguments : mrc402id, address, amount, signature, nonce',
    );
    const token = getMrc402(stub, id);
    if (!meltable(token, stub.now)) throw new ChaincodeError('3004,It is not a meltable date');
    const melter = getAddressInfo(stub, address);
    const melt = parsePositive(amount, `1106,${amount} is not positive integer`);
    nonceCheck(stub, melter, nonce);
    mrc402Subtract(stub, melter, token.id, melt.toString(), 'normal');
    token.meltedamount = (decimalOrZero(token.meltedamount) + melt).toString();
    forEachReserve(stub, token.initialreserve, (tokenId, perUnit) =>
      mrc010Add(stub, melter, tokenId, (melt * perUnit).toString(), 0),
    );
    setMrc402(stub, token, MRC402.melt, args);
    setAddressInfo(stub, melter, MRC402.walletMelt, args);
  },
};

/** Melting is allowed once the expiredate is 0 or no longer ahead of the peer's clock. */
export function meltable(token: Mrc402Token, now: number): boolean {
  return token.expiredate === 0 || token.expiredate <= now;
}

/** Whether the burn quirk leaves anything to burn: totalsupply − meltedamount > 0. */
function burnable(token: Mrc402Token): boolean {
  return decimalOrZero(token.totalsupply) > decimalOrZero(token.meltedamount);
}

/** The record's reserve as [tokenId, per-unit amount] (what the chaincode moves per NFT unit). */
function reserveOf(token: Mrc402Token): [string, bigint][] {
  return sortedEntries(token.initialreserve).map(([id, amount]) => [id, decimalOrZero(amount)] as [string, bigint]);
}

/**
 * What mint and burn check first, in this order: the arguments, the record, the amount, the creator's
 * wallet (its signer), the memo (up to 1,024 bytes), its nonce. Both write [id, creator, amount, memo, sig, nonce].
 */
function readSupplyCall(stub: Stub, args: readonly string[]) {
  const [id, amount, memo, sig, nonce] = expectArgs(
    args,
    5,
    '1000,mrc402burning operation must include four arguments : MRC402ID, amount, memo, Signature, Nonce',
  );
  const token = getMrc402(stub, id);
  const units = parsePositive(amount, '1206,The amount must be an integer');
  const creator = getAddressInfo(stub, token.creator);
  prefixed('3005,Data value error : ', () => dataAssign(memo, 'text', 0, 1024, true));
  nonceCheck(stub, creator, nonce);
  return { token, creator, units, params: [token.id, token.creator, amount, memo, sig, nonce] };
}

/** A new totalsupply, if an integer in [min, 99,999,999]; else the call fails with `message`. */
function checkedSupply(supply: bigint, min: string, message: string): string {
  return prefixed(message, () => numericDataCheck(supply.toString(), min, '99999999', 0, false)!, true);
}
