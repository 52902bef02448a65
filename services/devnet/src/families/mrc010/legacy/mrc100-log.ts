import { createHash } from 'node:crypto';
import { LEGACY } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { getMrc010 } from '../token.ts';
import type { Rng } from '../../../rng.ts';
import { fakeSignature, fakeWords } from '../../../jobs/client.ts';
import type { Job } from '../../../jobs/job.ts';
import { pickGameToken } from './token-admin.ts';

/**
 * Legacy `mrc100Log` (CC-22 `mrc100.go` Mrc100Log): job_args is the log text, not JSON; the key is made by
 * BR `mtcbridge.js` post_mrc100_log @483b344. Quirk kept: the logger's nonce rotation is never saved (no
 * wallet is written). The bridge makes it the one entry kind with an integer `token` (chain/entries.ts).
 */
export const mrc100LogJob: Job = {
  fcn: 'mrc100Log',
  weight: 6,
  writes: [LEGACY.mrc100Log],
  plan(ctx) {
    const { world, rng, now } = ctx;
    const id = pickGameToken(ctx);
    if (id === null) return null;
    const token = world.token(id)!;
    const loggers = Object.keys(token.logger ?? {});
    const logger = loggers.length > 0 && rng.chance(0.7) ? rng.pick(loggers) : token.owner;
    const wallet = world.wallet(logger);
    if (!wallet) return null;
    const log = gameLog(rng);
    const signature = fakeSignature(rng);
    const md5 = createHash('md5').update(log + signature + wallet.nonce);
    const key = `MRC100_${id}_${now}_${md5.digest('hex')}`;
    return { fcn: 'mrc100Log', args: [key, String(id), logger, log, signature, wallet.nonce] };
  },
  execute(stub, { args }) {
    const [key, tokenId, logger, log, , nonce] = expectArgs(
      args,
      6,
      '1000,mrc100Log operation must include four arguments : key, TokenID, logger, log, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    if (token.owner !== logger && !(token.logger && logger in token.logger)) {
      throw new ChaincodeError('6030,you do not have permission to log this token');
    }
    const wallet = getAddressInfo(stub, logger);
    if (token.type !== '100' && token.type !== '101') throw new ChaincodeError('6032,This token cannot log');
    nonceCheck(stub, wallet, nonce);
    if (stub.getState(key) !== undefined) throw new ChaincodeError('6013,MRC100 already exists');
    // CC-22 `mtc.go` MRC100Log, in its struct order. It has no jobdate: regdate is the peer's clock.
    stub.putState(key, { regdate: stub.now, token: token.token, logger, job_type: LEGACY.mrc100Log, job_args: log });
  },
};

/** What a game server logs: a small JSON text (the bridge cuts logs at 2,048 characters). */
function gameLog(rng: Rng): string {
  const event = rng.pick(['match_end', 'level_up', 'item_drop', 'ranking', 'session']);
  return JSON.stringify({
    event,
    player: `p${rng.int(1, 99_999)}`,
    score: rng.int(0, 1_000_000),
    note: fakeWords(rng, 0, 3),
  });
}
