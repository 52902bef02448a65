import { LEGACY } from '@mtc/domain';
import { expectArgs, getAddressInfo, getSigner } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { getMrc010, setMrc010 } from '../token.ts';
import { fakeSignature } from '../../../jobs/client.ts';
import type { Job, PlanContext } from '../../../jobs/job.ts';
import { pickActiveWallet } from '../../../jobs/job.ts';
import { sortedKeys } from './cc22.ts';

/**
 * Legacy `tokenAddLogger` (TokenID, logger, sig, tkey) → `tokenAddLogger` on the token:
 * logger[address] = now, keys sorted as Go writes a map[string]int64 (CC-22 `token.go`
 * TokenAddLogger; BR `POST /mrc100/logger`). Loggers may write MRC-100 logs for the token. The logger
 * must be an existing wallet other than the owner. Quirk kept: the owner's nonce rotation is never
 * saved.
 */
export const tokenAddLoggerJob: Job = {
  fcn: 'tokenAddLogger',
  weight: 2,
  writes: [LEGACY.tokenAddLogger],
  plan(ctx) {
    const { world, rng } = ctx;
    const id = pickGameToken(ctx);
    if (id === null || world.wallets.length < 2) return null;
    const token = world.token(id)!;
    for (let attempt = 0; attempt < 6; attempt++) {
      const logger = pickActiveWallet(ctx, 0.5);
      if (logger === token.owner || (token.logger && logger in token.logger)) continue;
      const owner = world.wallet(token.owner)!;
      return { fcn: 'tokenAddLogger', args: [String(id), logger, fakeSignature(rng), owner.nonce] };
    }
    return null;
  },
  execute(stub, { args }) {
    const [tokenId, logger, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenAddLogger operation must include four arguments : TokenID, logger, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    try {
      getAddressInfo(stub, logger);
    } catch {
      throw new ChaincodeError('1202,The Logger is not exists');
    }
    getSigner(stub, token.owner, nonce);
    if (logger === token.owner) throw new ChaincodeError('1201,The Logger is the same as the token owner');
    if (token.logger && logger in token.logger) {
      throw new ChaincodeError('4205,Target token are in the target token list');
    }
    token.logger = sortedKeys({ ...token.logger, [logger]: stub.now });
    setMrc010(stub, token, LEGACY.tokenAddLogger, args);
  },
};

/**
 * Legacy `tokenRemoveLogger` (TokenID, logger, sig, tkey) → `tokenRemoveLogger` on the token,
 * deleting logger[address] (CC-22 `token.go` TokenRemoveLogger; BR `DELETE /mrc100/logger`). An
 * emptied map stays `{}` (Go's delete leaves a non-nil map). The owner's nonce rotation is never saved.
 */
export const tokenRemoveLoggerJob: Job = {
  fcn: 'tokenRemoveLogger',
  weight: 1.5,
  writes: [LEGACY.tokenRemoveLogger],
  plan({ world, rng }) {
    const candidates = world.tokens.filter((id) => Object.keys(world.token(id)!.logger ?? {}).length > 0);
    if (candidates.length === 0) return null;
    const id = rng.pick(candidates);
    const token = world.token(id)!;
    const logger = rng.pick(Object.keys(token.logger!));
    const owner = world.wallet(token.owner)!;
    return { fcn: 'tokenRemoveLogger', args: [String(id), logger, fakeSignature(rng), owner.nonce] };
  },
  execute(stub, { args }) {
    const [tokenId, logger, , nonce] = expectArgs(
      args,
      4,
      '1000,tokenRemoveLogger operation must include four arguments : TokenID, logger, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    if (token.logger === null || !(logger in token.logger)) {
      throw new ChaincodeError('4202,Could not find logger in the logger list');
    }
    getSigner(stub, token.owner, nonce);
    const { [logger]: _removed, ...rest } = token.logger;
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
