import { MRC010 } from '@mtc/domain';
import { expectArgs, getSigner, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, spendable, toAmount } from './balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc010, setMrc010 } from './token.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeMemo, fakeSignature } from '../../jobs/client.ts';
import { type Job, type PlanContext, portion } from '../../jobs/job.ts';
import { mrc010Steps } from './versions.ts';
import type { Wallet } from './records.ts';

/** CC-t `token.go` TokenIncrease: the owner gets the amount unlocked (CC-22's takes no memo: versions.ts). */
export const tokenIncreaseJob: Job = supplyJob({
  weight: 3,
  writes: [MRC010.ownerIncrease, MRC010.tokenIncrease],
  name: 'tokenIncrease',
  amountError: '1206,amount must be a positive integer',
  total: 'totalsupply',
  pick({ world, rng }) {
    if (world.tokens.length === 0) return null;
    const tokenId = rng.pick(world.tokens);
    return { tokenId, amount: portion(rng, BigInt(world.token(tokenId)!.totalsupply), 0.1, 10) };
  },
  move: (stub, owner, tokenId, amount) => mrc010Add(stub, owner, tokenId, amount, 0),
});

/**
 * CC-t `token.go` TokenBurning (CC-22's takes no memo): totalsupply stays. CC-t's guard says 4 args but
 * the code reads args[4], so a 4-argument call would panic.
 */
export const tokenBurningJob: Job = supplyJob({
  weight: 3,
  writes: [MRC010.ownerBurning, MRC010.tokenBurning],
  name: 'tokenBurn',
  amountError: '1206,The amount must be an integer',
  total: 'burnningamount',
  pick({ world, rng, now }) {
    for (let attempt = 0; attempt < 8 && world.tokens.length > 0; attempt++) {
      const tokenId = rng.pick(world.tokens);
      const available = spendable(world.wallet(world.token(tokenId)!.owner)!, tokenId, now);
      if (available > 0n) return { tokenId, amount: portion(rng, available, 0.5, 40) };
    }
    return null;
  },
  move: (stub, owner, tokenId, amount) => mrc010Steps(stub.chaincode).burn(stub, owner, tokenId, amount),
});

/** What tokenIncrease and tokenBurning differ in; the rest they share, in each version's order. */
interface SupplyRule {
  weight: number;
  /** The owner's job type, then the token's (also the function's name). */
  writes: readonly [string, string];
  /** The function's name in its argument-count error. */
  name: string;
  amountError: string;
  total: 'totalsupply' | 'burnningamount';
  pick(ctx: PlanContext): { tokenId: number; amount: bigint } | null;
  move(stub: Stub, owner: Wallet, tokenId: string, amount: string): void;
}

function supplyJob(rule: SupplyRule): Job {
  const fcn = rule.writes[1];
  return {
    fcn,
    weight: rule.weight,
    writes: rule.writes,
    plan(ctx) {
      const picked = rule.pick(ctx);
      if (!picked) return null;
      const { world, rng } = ctx;
      const memo = mrc010Steps(ctx.chaincode).supplyMemo ? [fakeMemo(rng)] : [];
      const owner = world.wallet(world.token(picked.tokenId)!.owner)!;
      const args = [String(picked.tokenId), picked.amount.toString(), ...memo, fakeSignature(rng), owner.nonce];
      return { fcn, args };
    },
    execute(stub, { args }) {
      const memo = mrc010Steps(stub.chaincode).supplyMemo;
      const a = expectArgs(
        args,
        memo ? 5 : 4,
        `1000,${rule.name} operation must include four arguments : TokenID, amount, ${memo ? 'memo, ' : ''}sign, tkey`,
      );
      const [tokenId, amount] = a;
      let token = memo ? getMrc010(stub, tokenId).token : undefined;
      const value = parsePositive(amount, rule.amountError);
      if (memo && a[2].length > 4096) throw new ChaincodeError('3005,Memo must be 1 to 4096 characters long');
      token ??= getMrc010(stub, tokenId).token;
      const owner = getSigner(stub, token.owner, a[a.length - 1]!);
      rule.move(stub, owner, tokenId, amount);
      setAddressInfo(stub, owner, rule.writes[0], args);
      token[rule.total] = (toAmount(token[rule.total]) + value).toString();
      setMrc010(stub, token, rule.writes[1], args);
    },
  };
}
