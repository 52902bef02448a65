import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../../chaincode/base.ts';
import { spendable } from '../balance.ts';
import { getMrc010, setMrc010 } from '../token.ts';
import { fakeSignature } from '../../../jobs/client.ts';
import type { Job } from '../../../jobs/job.ts';
import { portion } from '../../../jobs/job.ts';
import { mrc010Add22, mrc010Subtract22 } from './cc22.ts';

/**
 * Legacy `tokenIncrease` (CC-22 `token.go` TokenIncrease): four call args (tokenId, amount, sig,
 * tkey) — no memo — which are also the job_args of both writes: `ownerIncrease` on the owner
 * (+amount, unlocked, legacy MRC010Add) and `tokenIncrease` on the token (totalsupply += amount).
 */
export const legacyTokenIncreaseJob: Job = {
  fcn: 'tokenIncrease',
  weight: 3,
  writes: [MRC010.ownerIncrease, MRC010.tokenIncrease],
  plan({ world, rng }) {
    if (world.tokens.length === 0) return null;
    const tokenId = rng.pick(world.tokens);
    const token = world.token(tokenId)!;
    const owner = world.wallet(token.owner)!;
    const amount = portion(rng, BigInt(token.totalsupply), 0.1, 10);
    return { fcn: 'tokenIncrease', args: [String(tokenId), amount.toString(), fakeSignature(rng), owner.nonce] };
  },
  execute(stub, { args }) {
    const [tokenId, amount, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenIncrease operation must include four arguments : TokenID, amount, sign, tkey',
    );
    const increase = parsePositive(amount, '1206,amount must be a positive integer');
    const { token } = getMrc010(stub, tokenId);
    const owner = getAddressInfo(stub, token.owner);
    nonceCheck(stub, owner, nonce);
    mrc010Add22(stub, owner, tokenId, amount, 0);
    setAddressInfo(stub, owner, MRC010.ownerIncrease, args);
    token.totalsupply = (notNegative(token.totalsupply) + increase).toString();
    setMrc010(stub, token, MRC010.tokenIncrease, args);
  },
};

/**
 * Legacy `tokenBurning` (CC-22 `token.go` TokenBurning): four call args (tokenId, amount, sig, tkey),
 * `ownerBurning` on the owner (−amount, legacy MRC010Subtract) and `tokenBurning` on the token
 * (burnningamount += amount; totalsupply unchanged).
 */
export const legacyTokenBurningJob: Job = {
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
      return { fcn: 'tokenBurning', args: [String(tokenId), amount.toString(), fakeSignature(rng), owner.nonce] };
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, amount, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenBurn operation must include four arguments : TokenID, amount, sign, tkey',
    );
    const burn = parsePositive(amount, '1206,The amount must be an integer');
    const { token } = getMrc010(stub, tokenId);
    const owner = getAddressInfo(stub, token.owner);
    nonceCheck(stub, owner, nonce);
    mrc010Subtract22(stub, owner, tokenId, amount);
    setAddressInfo(stub, owner, MRC010.ownerBurning, args);
    token.burnningamount = (notNegative(token.burnningamount) + burn).toString();
    setMrc010(stub, token, MRC010.tokenBurning, args);
  },
};

/** util.ParseNotNegative with the callers' fallback to zero. */
function notNegative(value: string): bigint {
  return /^[0-9]+$/.test(value) ? BigInt(value) : 0n;
}
