import { LEGACY } from '@mtc/domain';
import { expectArgs, getSigner } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { getMrc010, mrc010Id, setMrc010 } from '../token.ts';
import { fakeSignature } from '../../../jobs/client.ts';
import type { Job } from '../../../jobs/job.ts';

/**
 * Legacy `tokenAddTarget` (TokenID, TargetTokenSN, sig, tkey) → `tokenAddTarget` on the token:
 * targettoken[TargetTokenSN] = now (CC-22 `token.go` TokenAddTarget, the STO DEX's tradable pairs).
 * Quirks kept: the owner's nonce rotation is never saved; a token may target itself (only the base
 * token is refused), and some owners do, which is what makes tokenRemoveTarget ever succeed.
 * targettoken is a Go map[int]int64, written with its keys sorted as strings ("10" before "2"); a JS
 * object lists integer keys numerically, so a map mixing 1- and 2-digit ids serialises in another
 * key order than Go's (same JSON value).
 */
export const tokenAddTargetJob: Job = {
  fcn: 'tokenAddTarget',
  weight: 2,
  writes: [LEGACY.tokenAddTarget],
  plan({ world, rng }) {
    if (world.tokens.length < 2) return null;
    for (let attempt = 0; attempt < 6; attempt++) {
      const id = rng.pick(world.tokens);
      const token = world.token(id)!;
      const target = rng.chance(0.3) ? id : rng.pick(world.tokens);
      if (target === token.basetoken || (token.targettoken && String(target) in token.targettoken)) continue;
      const owner = world.wallet(token.owner)!;
      return { fcn: 'tokenAddTarget', args: [String(id), String(target), fakeSignature(rng), owner.nonce] };
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, targetId, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenAddTarget operation must include four arguments : TokenID, TargetTokenSN, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    const sn = mrc010Id(stub, targetId);
    getSigner(stub, token.owner, nonce);
    if (token.basetoken === sn) throw new ChaincodeError('1201,The TargetToken is the same as the BaseToken');
    if (token.targettoken && String(sn) in token.targettoken) {
      throw new ChaincodeError('4205,Target token are in the target token list');
    }
    token.targettoken = { ...token.targettoken, [sn]: stub.now };
    setMrc010(stub, token, LEGACY.tokenAddTarget, args);
  },
};

/**
 * Legacy `tokenRemoveTarget` (TokenID, TargetTokenSN, sig, tkey) → `tokenRemoveTarget` on the token
 * (CC-22 `token.go` TokenRemoveTarget). Quirk kept: the chaincode looks up and deletes the token's
 * own id, not TargetTokenSN (GetToken of TokenID returns its own sn), so it succeeds only for a token
 * that targets itself and then removes that self-target whatever target was asked for.
 */
export const tokenRemoveTargetJob: Job = {
  fcn: 'tokenRemoveTarget',
  weight: 2,
  writes: [LEGACY.tokenRemoveTarget],
  plan({ world, rng }) {
    const candidates = world.tokens.filter((id) => {
      const targets = world.token(id)!.targettoken;
      return targets !== null && String(id) in targets;
    });
    if (candidates.length === 0) return null;
    const id = rng.pick(candidates);
    const token = world.token(id)!;
    const asked = rng.pick(Object.keys(token.targettoken!));
    const owner = world.wallet(token.owner)!;
    return { fcn: 'tokenRemoveTarget', args: [String(id), asked, fakeSignature(rng), owner.nonce] };
  },
  execute(stub, { args }) {
    const [tokenId, , , nonce] = expectArgs(
      args,
      4,
      '1000,tokenRemoveTarget operation must include four arguments : TokenID, TargetTokenSN, sign, tkey',
    );
    const { token, id } = getMrc010(stub, tokenId);
    if (token.targettoken === null || !(String(id) in token.targettoken)) {
      throw new ChaincodeError('4202,Could not find target token in the target token list');
    }
    getSigner(stub, token.owner, nonce);
    const { [String(id)]: _removed, ...rest } = token.targettoken;
    token.targettoken = rest;
    setMrc010(stub, token, LEGACY.tokenRemoveTarget, args);
  },
};
