import { LEGACY } from '@mtc/domain';
import { expectArgs, getAddressInfo, getSigner } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { getMrc010, mrc010Id, setMrc010 } from '../token.ts';
import { fakeSignature } from '../../../jobs/client.ts';
import { type Call, type Job, pickActiveWallet, type PlanContext } from '../../../jobs/job.ts';
import { sortedKeys } from './cc22.ts';

/** Legacy `tokenSetBase` → `SetBase`; "0" unsets the STO DEX's base token (CC-22 `token.go` TokenSetBase). */
export const tokenSetBaseJob: Job = {
  fcn: 'tokenSetBase',
  weight: 1.5,
  writes: [LEGACY.setBase],
  plan(ctx) {
    const { world, rng } = ctx;
    if (world.tokens.length < 2) return null;
    for (let attempt = 0; attempt < 6; attempt++) {
      const id = rng.pick(world.tokens);
      const token = world.token(id)!;
      const unset = token.basetoken !== 0 && id !== 0 && rng.chance(0.3);
      const base = unset ? 0 : rng.pick(world.tokens);
      if (base === id || base === token.basetoken || listed(token.targettoken, base)) continue;
      return ownerCall(ctx, 'tokenSetBase', id, String(base));
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, baseId, , nonce] = tokenAdminArgs('tokenSetBase', 'BaseTokenSN', args);
    if (tokenId === baseId) throw new ChaincodeError('4210,Must TokenID and basetoken sn is not qeual');
    const { token } = getMrc010(stub, tokenId);
    const sn = mrc010Id(stub, baseId);
    if (token.basetoken === sn) throw new ChaincodeError('4210,Basetoken same as the existing value');
    if (listed(token.targettoken, sn)) throw new ChaincodeError('4201,Base token are in the target token list');
    getSigner(stub, token.owner, nonce);
    token.basetoken = baseId === '0' ? 0 : sn;
    setMrc010(stub, token, LEGACY.setBase, args);
  },
};

/**
 * Legacy `tokenAddTarget`: the STO DEX's tradable pairs (CC-22 `token.go` TokenAddTarget). Quirk kept: a
 * token may target itself (only the base is refused), the one way tokenRemoveTarget succeeds. Go sorts
 * this map[int]int64's keys as strings ("10" before "2"), JS numerically: the same JSON value.
 */
export const tokenAddTargetJob: Job = {
  fcn: 'tokenAddTarget',
  weight: 2,
  writes: [LEGACY.tokenAddTarget],
  plan(ctx) {
    const { world, rng } = ctx;
    if (world.tokens.length < 2) return null;
    for (let attempt = 0; attempt < 6; attempt++) {
      const id = rng.pick(world.tokens);
      const token = world.token(id)!;
      const target = rng.chance(0.3) ? id : rng.pick(world.tokens);
      if (target === token.basetoken || listed(token.targettoken, target)) continue;
      return ownerCall(ctx, 'tokenAddTarget', id, String(target));
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, targetId, , nonce] = tokenAdminArgs('tokenAddTarget', 'TargetTokenSN', args);
    const { token } = getMrc010(stub, tokenId);
    const sn = mrc010Id(stub, targetId);
    getSigner(stub, token.owner, nonce);
    if (token.basetoken === sn) throw new ChaincodeError('1201,The TargetToken is the same as the BaseToken');
    if (listed(token.targettoken, sn)) throw new ChaincodeError('4205,Target token are in the target token list');
    token.targettoken = { ...token.targettoken, [sn]: stub.now };
    setMrc010(stub, token, LEGACY.tokenAddTarget, args);
  },
};

/**
 * Legacy `tokenRemoveTarget` (CC-22 `token.go` TokenRemoveTarget). Quirk kept: it deletes the token's own
 * sn (GetToken of TokenID), not TargetTokenSN, so it works only on a self-target, whatever was asked.
 */
export const tokenRemoveTargetJob: Job = {
  fcn: 'tokenRemoveTarget',
  weight: 2,
  writes: [LEGACY.tokenRemoveTarget],
  plan(ctx) {
    const { world, rng } = ctx;
    const candidates = world.tokens.filter((id) => listed(world.token(id)!.targettoken, id));
    if (candidates.length === 0) return null;
    const id = rng.pick(candidates);
    return ownerCall(ctx, 'tokenRemoveTarget', id, rng.pick(Object.keys(world.token(id)!.targettoken!)));
  },
  execute(stub, { args }) {
    const [tokenId, , , nonce] = tokenAdminArgs('tokenRemoveTarget', 'TargetTokenSN', args);
    const { token, id } = getMrc010(stub, tokenId);
    if (!listed(token.targettoken, id))
      throw new ChaincodeError('4202,Could not find target token in the target token list');
    getSigner(stub, token.owner, nonce);
    const { [String(id)]: _removed, ...rest } = token.targettoken!;
    token.targettoken = rest;
    setMrc010(stub, token, LEGACY.tokenRemoveTarget, args);
  },
};

/**
 * Legacy `tokenAddLogger`: loggers may write the token's MRC-100 logs; keys sorted as Go writes a
 * map[string]int64 (CC-22 `token.go` TokenAddLogger; BR `POST /mrc100/logger`).
 */
export const tokenAddLoggerJob: Job = {
  fcn: 'tokenAddLogger',
  weight: 2,
  writes: [LEGACY.tokenAddLogger],
  plan(ctx) {
    const { world } = ctx;
    const id = pickGameToken(ctx);
    if (id === null || world.wallets.length < 2) return null;
    const token = world.token(id)!;
    for (let attempt = 0; attempt < 6; attempt++) {
      const logger = pickActiveWallet(ctx, 0.5);
      if (logger === token.owner || listed(token.logger, logger)) continue;
      return ownerCall(ctx, 'tokenAddLogger', id, logger);
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, logger, , nonce] = tokenAdminArgs('tokenAddLogger', 'logger', args);
    const { token } = getMrc010(stub, tokenId);
    try {
      getAddressInfo(stub, logger);
    } catch {
      throw new ChaincodeError('1202,The Logger is not exists');
    }
    getSigner(stub, token.owner, nonce);
    if (logger === token.owner) throw new ChaincodeError('1201,The Logger is the same as the token owner');
    if (listed(token.logger, logger)) throw new ChaincodeError('4205,Target token are in the target token list');
    token.logger = sortedKeys({ ...token.logger, [logger]: stub.now });
    setMrc010(stub, token, LEGACY.tokenAddLogger, args);
  },
};

/** CC-22 `token.go` TokenRemoveLogger (BR `DELETE /mrc100/logger`); an emptied map stays `{}`, as Go's delete. */
export const tokenRemoveLoggerJob: Job = {
  fcn: 'tokenRemoveLogger',
  weight: 1.5,
  writes: [LEGACY.tokenRemoveLogger],
  plan(ctx) {
    const { world, rng } = ctx;
    const candidates = world.tokens.filter((id) => Object.keys(world.token(id)!.logger ?? {}).length > 0);
    if (candidates.length === 0) return null;
    const id = rng.pick(candidates);
    return ownerCall(ctx, 'tokenRemoveLogger', id, rng.pick(Object.keys(world.token(id)!.logger!)));
  },
  execute(stub, { args }) {
    const [tokenId, logger, , nonce] = tokenAdminArgs('tokenRemoveLogger', 'logger', args);
    const { token } = getMrc010(stub, tokenId);
    if (!listed(token.logger, logger)) throw new ChaincodeError('4202,Could not find logger in the logger list');
    getSigner(stub, token.owner, nonce);
    const { [logger]: _removed, ...rest } = token.logger!;
    token.logger = rest;
    setMrc010(stub, token, LEGACY.tokenRemoveLogger, args);
  },
};

/** A random MRC-100 game token (type "100"/"101"), or null when there is none yet. */
export function pickGameToken({ world, rng }: PlanContext): number | null {
  const games = world.tokens.filter((id) => {
    const type = world.token(id)!.type;
    return type === '100' || type === '101';
  });
  return games.length === 0 ? null : rng.pick(games);
}

/** (TokenID, `second`, sig, tkey) of a token-admin call; quirk kept: the owner's nonce rotation is never saved. */
function tokenAdminArgs(fcn: string, second: string, args: readonly string[]) {
  return expectArgs(args, 4, `1000,${fcn} operation must include four arguments : TokenID, ${second}, sign, tkey`);
}

function ownerCall({ world, rng }: PlanContext, fcn: string, id: number, second: string): Call {
  return { fcn, args: [String(id), second, fakeSignature(rng), world.wallet(world.token(id)!.owner)!.nonce] };
}

function listed(map: Record<string, number> | null, key: string | number): boolean {
  return map !== null && String(key) in map;
}
