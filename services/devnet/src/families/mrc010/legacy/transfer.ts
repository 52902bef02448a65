import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parseInt64, setAddressInfo } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { mrc010Id } from '../token.ts';
import { isMtAddress } from '../../../world/address.ts';
import type { Job } from '../../../jobs/job.ts';
import { transferJob } from '../transfer.ts';
import { moveToken22 } from './cc22.ts';

/**
 * Legacy `transfer` (CC-22 `base.go` Transfer): the same call, checks and writes as today's
 * (`transfer` on from, `receive` on to, both with the call args), but the legacy MoveToken, whose
 * balance entries have three fields and which keeps an entry spent to exactly "0" (cc22.ts).
 */
export const legacyTransferJob: Job = {
  fcn: 'transfer',
  weight: 55,
  writes: [MRC010.transfer, MRC010.receive],
  plan: (ctx) => transferJob.plan(ctx),
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
    moveToken22(stub, fromWallet, toWallet, tokenId, amount, lock);
    setAddressInfo(stub, fromWallet, MRC010.transfer, args);
    setAddressInfo(stub, toWallet, MRC010.receive, args);
  },
};
