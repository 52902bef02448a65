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

/**
 * `tokenIncrease` (tokenId, amount, memo, sig, nonce) → `ownerIncrease` on the owner (+amount,
 * unlocked) and `tokenIncrease` on the token (totalsupply += amount) (CC-t `token.go` TokenIncrease;
 * CC-22's takes no memo: versions.ts).
 */
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
 * `tokenBurning` (tokenId, amount, memo, sig, nonce) → `ownerBurning` on the owner (−amount, spent
 * like a transfer) and `tokenBurning` on the token (burnningamount += amount; totalsupply unchanged)
 * (CC-t `token.go` TokenBurning; CC-22's takes no memo: versions.ts). The Go guard says 4 but the
 * code reads args[4]; a 4-argument call would panic there (CC-t).
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
  /** The owner's job type, then the token's, which is also the function's name. */
  writes: readonly [string, string];
  /** The function's name in its argument-count error. */
  name: string;
  amountError: string;
  /** The token's total the amount adds to. */
  total: 'totalsupply' | 'burnningamount';
  pick(ctx: PlanContext): { tokenId: number; amount: bigint } | null;
  /** What the amount does to the owner's balance. */
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
