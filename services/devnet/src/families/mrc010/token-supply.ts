import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { spendable } from './balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc010, setMrc010 } from './token.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeMemo, fakeSignature } from '../../jobs/client.ts';
import type { Call, Job, PlanContext } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import { mrc010Steps, type Mrc010Steps } from './versions.ts';

/**
 * `tokenIncrease` (tokenId, amount, memo, sig, nonce) → `ownerIncrease` on the owner (+amount,
 * unlocked) and `tokenIncrease` on the token (totalsupply += amount) (CC-t `token.go` TokenIncrease;
 * CC-22's takes no memo: versions.ts).
 */
export const tokenIncreaseJob: Job = {
  fcn: 'tokenIncrease',
  weight: 3,
  writes: [MRC010.ownerIncrease, MRC010.tokenIncrease],
  plan(ctx) {
    const { world, rng } = ctx;
    if (world.tokens.length === 0) return null;
    const tokenId = rng.pick(world.tokens);
    const token = world.token(tokenId)!;
    const owner = world.wallet(token.owner)!;
    const amount = portion(rng, BigInt(token.totalsupply), 0.1, 10);
    return supplyCall(ctx, 'tokenIncrease', tokenId, amount, owner.nonce);
  },
  execute(stub, { args }) {
    const { steps, tokenId, amount, value, token, owner } = supplyArgs(
      stub,
      args,
      'tokenIncrease',
      '1206,amount must be a positive integer',
    );
    steps.increase(stub, owner, tokenId, amount);
    setAddressInfo(stub, owner, MRC010.ownerIncrease, args);
    token.totalsupply = (notNegative(token.totalsupply) + value).toString();
    setMrc010(stub, token, MRC010.tokenIncrease, args);
  },
};

/**
 * `tokenBurning` (tokenId, amount, memo, sig, nonce) → `ownerBurning` on the owner (−amount, spent
 * like a transfer) and `tokenBurning` on the token (burnningamount += amount; totalsupply unchanged)
 * (CC-t `token.go` TokenBurning; CC-22's takes no memo: versions.ts).
 */
export const tokenBurningJob: Job = {
  fcn: 'tokenBurning',
  weight: 3,
  writes: [MRC010.ownerBurning, MRC010.tokenBurning],
  plan(ctx) {
    const { world, rng, now } = ctx;
    for (let attempt = 0; attempt < 8 && world.tokens.length > 0; attempt++) {
      const tokenId = rng.pick(world.tokens);
      const token = world.token(tokenId)!;
      const owner = world.wallet(token.owner)!;
      const available = spendable(owner, tokenId, now);
      if (available === 0n) continue;
      const amount = portion(rng, available, 0.5, 40);
      return supplyCall(ctx, 'tokenBurning', tokenId, amount, owner.nonce);
    }
    return null;
  },
  execute(stub: Stub, { args }) {
    // The Go guard says 4 but the code reads args[4]; a 4-argument call would panic there (CC-t).
    const { steps, tokenId, amount, value, token, owner } = supplyArgs(
      stub,
      args,
      'tokenBurn',
      '1206,The amount must be an integer',
    );
    steps.burn(stub, owner, tokenId, amount);
    setAddressInfo(stub, owner, MRC010.ownerBurning, args);
    token.burnningamount = (notNegative(token.burnningamount) + value).toString();
    setMrc010(stub, token, MRC010.tokenBurning, args);
  },
};

function supplyCall(ctx: PlanContext, fcn: string, tokenId: number, amount: bigint, nonce: string): Call {
  const memo = mrc010Steps(ctx.chaincode).supplyMemo ? [fakeMemo(ctx.rng)] : [];
  return { fcn, args: [String(tokenId), amount.toString(), ...memo, fakeSignature(ctx.rng), nonce] };
}

/** The arguments and checks tokenIncrease and tokenBurning share, in each version's order. */
function supplyArgs(stub: Stub, args: readonly string[], name: string, amountError: string) {
  const steps: Mrc010Steps = mrc010Steps(stub.chaincode);
  const memo = steps.supplyMemo;
  const a = expectArgs(
    args,
    memo ? 5 : 4,
    `1000,${name} operation must include four arguments : TokenID, amount, ${memo ? 'memo, ' : ''}sign, tkey`,
  );
  const [tokenId, amount] = a;
  let value: bigint;
  let token;
  if (memo) {
    ({ token } = getMrc010(stub, tokenId));
    value = parsePositive(amount, amountError);
    if (a[2].length > 4096) throw new ChaincodeError('3005,Memo must be 1 to 4096 characters long');
  } else {
    value = parsePositive(amount, amountError);
    ({ token } = getMrc010(stub, tokenId));
  }
  const owner = getAddressInfo(stub, token.owner);
  nonceCheck(stub, owner, a[a.length - 1]!);
  return { steps, tokenId, amount, value, token, owner };
}

/** util.ParseNotNegative with the callers' fallback to zero. */
function notNegative(value: string): bigint {
  return /^[0-9]+$/.test(value) ? BigInt(value) : 0n;
}
