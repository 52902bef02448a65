import { LEGACY } from '@mtc/domain';
import { expectArgs, getSigner } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { getMrc010, mrc010Id, setMrc010 } from '../token.ts';
import { fakeSignature } from '../../../jobs/client.ts';
import type { Job } from '../../../jobs/job.ts';

/**
 * Legacy `tokenSetBase` (TokenID, BaseTokenSN, sig, tkey) → `SetBase` on the token with the call
 * args as job_args; basetoken := BaseTokenSN ("0" unsets it) (CC-22 `token.go` TokenSetBase, the
 * STO DEX's base token). Quirk kept: the owner's nonce is checked, but its rotation is never saved
 * (the owner wallet is not written).
 */
export const tokenSetBaseJob: Job = {
  fcn: 'tokenSetBase',
  weight: 1.5,
  writes: [LEGACY.setBase],
  plan({ world, rng }) {
    if (world.tokens.length < 2) return null;
    for (let attempt = 0; attempt < 6; attempt++) {
      const id = rng.pick(world.tokens);
      const token = world.token(id)!;
      const unset = token.basetoken !== 0 && id !== 0 && rng.chance(0.3);
      const base = unset ? 0 : rng.pick(world.tokens);
      if (base === id || base === token.basetoken || (token.targettoken && String(base) in token.targettoken)) continue;
      const owner = world.wallet(token.owner)!;
      return { fcn: 'tokenSetBase', args: [String(id), String(base), fakeSignature(rng), owner.nonce] };
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, baseId, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenSetBase operation must include four arguments : TokenID, BaseTokenSN, sign, tkey',
    );
    if (tokenId === baseId) throw new ChaincodeError('4210,Must TokenID and basetoken sn is not qeual');
    const { token } = getMrc010(stub, tokenId);
    const sn = mrc010Id(stub, baseId);
    if (token.basetoken === sn) throw new ChaincodeError('4210,Basetoken same as the existing value');
    if (token.targettoken && String(sn) in token.targettoken) {
      throw new ChaincodeError('4201,Base token are in the target token list');
    }
    getSigner(stub, token.owner, nonce);
    token.basetoken = baseId === '0' ? 0 : sn;
    setMrc010(stub, token, LEGACY.setBase, args);
  },
};
