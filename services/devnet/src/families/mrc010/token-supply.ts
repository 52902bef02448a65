import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract, spendable } from './balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc010, setMrc010 } from './token.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeMemo, fakeSignature } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';

/**
 * `tokenIncrease` (tokenId, amount, memo, sig, nonce) → `ownerIncrease` on the owner (+amount,
 * unlocked) and `tokenIncrease` on the token (totalsupply += amount) (CC-t `token.go` TokenIncrease).
 */
export const tokenIncreaseJob: Job = {
  fcn: 'tokenIncrease',
  weight: 3,
  writes: [MRC010.ownerIncrease, MRC010.tokenIncrease],
  plan({ world, rng }) {
    if (world.tokens.length === 0) return null;
    const tokenId = rng.pick(world.tokens);
    const token = world.token(tokenId)!;
    const owner = world.wallet(token.owner)!;
    const amount = portion(rng, BigInt(token.totalsupply), 0.1, 10);
    return {
      fcn: 'tokenIncrease',
      args: [String(tokenId), amount.toString(), fakeMemo(rng), fakeSignature(rng), owner.nonce],
    };
  },
  execute(stub, { args }) {
    const [tokenId, amount, memo, , nonce] = expectArgs(
      args,
      5,
      '1000,tokenIncrease operation must include four arguments : TokenID, amount, memo, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    const increase = parsePositive(amount, '1206,amount must be a positive integer');
    checkMemo(memo);
    const owner = getAddressInfo(stub, token.owner);
    nonceCheck(stub, owner, nonce);
    mrc010Add(stub, owner, tokenId, amount, 0);
    setAddressInfo(stub, owner, MRC010.ownerIncrease, args);
    token.totalsupply = (notNegative(token.totalsupply) + increase).toString();
    setMrc010(stub, token, MRC010.tokenIncrease, args);
  },
};

/**
 * `tokenBurning` (tokenId, amount, memo, sig, nonce) → `ownerBurning` on the owner (−amount, spent
 * like a transfer) and `tokenBurning` on the token (burnningamount += amount; totalsupply unchanged)
 * (CC-t `token.go` TokenBurning).
 */
export const tokenBurningJob: Job = {
  fcn: 'tokenBurning',
  weight: 3,
  writes: [MRC010.ownerBurning, MRC010.tokenBurning],
  plan({ world, rng, now }) {
    for (let attempt = 0; attempt < 8 && world.tokens.length > 0; attempt++) {
      const tokenId = rng.pick(world.tokens);
      const token = world.token(tokenId)!;
      const owner = world.wallet(token.owner)!;
      const available = spendable(owner, tokenId, now);
      if (available === 0n) continue;
      const amount = portion(rng, available, 0.5, 40);
      return {
        fcn: 'tokenBurning',
        args: [String(tokenId), amount.toString(), fakeMemo(rng), fakeSignature(rng), owner.nonce],
      };
    }
    return null;
  },
  execute(stub: Stub, { args }) {
    // The Go guard says 4 but the code reads args[4]; a 4-argument call would panic there.
    const [tokenId, amount, memo, , nonce] = expectArgs(
      args,
      5,
      '1000,tokenBurn operation must include four arguments : TokenID, amount, memo, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    const burn = parsePositive(amount, '1206,The amount must be an integer');
    checkMemo(memo);
    const owner = getAddressInfo(stub, token.owner);
    nonceCheck(stub, owner, nonce);
    mrc010Subtract(stub, owner, tokenId, amount, 'normal');
    setAddressInfo(stub, owner, MRC010.ownerBurning, args);
    token.burnningamount = (notNegative(token.burnningamount) + burn).toString();
    setMrc010(stub, token, MRC010.tokenBurning, args);
  },
};

function checkMemo(memo: string): void {
  if (memo.length > 4096) throw new ChaincodeError('3005,Memo must be 1 to 4096 characters long');
}

/** util.ParseNotNegative with the callers' fallback to zero. */
function notNegative(value: string): bigint {
  return /^[0-9]+$/.test(value) ? BigInt(value) : 0n;
}
