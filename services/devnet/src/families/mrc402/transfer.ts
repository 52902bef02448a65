import { MRC402 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc402, mrc402Move } from './chaincode.ts';
import { fakeMemo, fakeSignature, fakeTag } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';
import { pickOtherWallet, portion } from '../../jobs/job.ts';
import { pickHolding } from './plan.ts';
import { prefixed } from '../dex/order-record.ts';

/**
 * `mrc402transfer` (from, to, amount, id, tag, memo, sig, nonce) → the sender written `transfer_mrc402`
 * and the recipient `receive_mrc402`, both with the call args as sent (CC-t `mrc402.go` Mrc402Transfer;
 * mrc402Move); the record is read, not written. Tag and memo are not checked at all.
 */
export const mrc402TransferJob: Job = {
  fcn: 'mrc402transfer',
  weight: 1.8,
  writes: [MRC402.transfer, MRC402.receive],
  plan(ctx) {
    const { rng } = ctx;
    const holding = pickHolding(ctx);
    if (!holding) return null;
    const to = pickOtherWallet(ctx, new Set([holding.wallet.id]));
    if (!to) return null;
    const amount = rng.chance(0.15) ? holding.units : portion(rng, holding.units, 1, 40);
    return {
      fcn: 'mrc402transfer',
      args: [
        holding.wallet.id,
        to,
        amount.toString(),
        holding.token.id,
        fakeTag(rng),
        fakeMemo(rng),
        fakeSignature(rng),
        holding.wallet.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const [fromAddress, toAddress, amount, id, , , , nonce] = expectArgs(
      args,
      8,
      '1000,mrc402burning operation must include four arguments : fromAddr, toAddr, amount, MRC402ID, tag, memo, signature, Nonce',
    );
    const from = prefixed('3001,Invalid from address', () => getAddressInfo(stub, fromAddress), true);
    const to = prefixed('3001,Invalid to address', () => getAddressInfo(stub, toAddress), true);
    if (fromAddress === toAddress) {
      throw new ChaincodeError('3201,From address and to address must be different values');
    }
    const units = parsePositive(amount, '1206,The amount must be an integer');
    const token = getMrc402(stub, id);
    nonceCheck(stub, from, nonce);
    mrc402Move(stub, from, to, units.toString(), token.id);
    setAddressInfo(stub, from, MRC402.transfer, args);
    setAddressInfo(stub, to, MRC402.receive, args);
  },
};
