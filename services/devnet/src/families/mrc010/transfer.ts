import { MRC010 } from '@mtc/domain';
import { isMtAddress } from '../../world/address.ts';
import { expectArgs, getAddressInfo, nonceCheck, parseInt64, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from './token.ts';
import { mrc010Steps } from './versions.ts';
import { fakeMemo, fakeSignature, fakeTag } from '../../jobs/client.ts';
import { type Job, pickOtherWallet, planUnlockdate, portion } from '../../jobs/job.ts';
import { pickFundedWallet } from './plan.ts';

/**
 * CC-t and CC-22 `base.go` Transfer, which differ only in MoveToken (versions.ts). A future unlockdate
 * makes the credit a separate locked entry.
 */
export const transferJob: Job = {
  fcn: 'transfer',
  weight: 55,
  writes: [MRC010.transfer, MRC010.receive],
  plan(ctx) {
    const { rng, now } = ctx;
    const funded = pickFundedWallet(ctx);
    if (!funded) return null;
    const to = pickOtherWallet(ctx, new Set([funded.wallet.id]));
    if (!to) return null;
    const amount = portion(rng, funded.available, 0.5, 60);
    return {
      fcn: 'transfer',
      args: [
        funded.wallet.id,
        to,
        amount.toString(),
        String(funded.token),
        fakeSignature(rng),
        planUnlockdate(rng, now),
        fakeTag(rng),
        fakeMemo(rng),
        funded.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const [from, to, amount, tokenId, , unlockdate, , , nonce] = expectArgs(
      args,
      9,
      '1000,transfer operation must include four arguments : fromAddr, toAddr, amount, tokenID, signature, unlockdate, tag, memo, tkey',
    );
    if (!isMtAddress(from)) throw new ChaincodeError('3001,Invalid from address');
    if (!isMtAddress(to)) throw new ChaincodeError('3002,Invalid to address');
    if (from === to) throw new ChaincodeError('3201,From address and to address must be different values');
    mrc010Id(stub, tokenId);
    const lock = parseInt64(unlockdate, '1102,Invalid unlock date');
    const fromWallet = getAddressInfo(stub, from);
    const toWallet = getAddressInfo(stub, to);
    nonceCheck(stub, fromWallet, nonce);
    mrc010Steps(stub.chaincode).moveToken(stub, fromWallet, toWallet, tokenId, amount, lock);
    setAddressInfo(stub, fromWallet, MRC010.transfer, args);
    setAddressInfo(stub, toWallet, MRC010.receive, args);
  },
};
