import { MRC010 } from '@mtc/domain';
import { isMtAddress } from '../../world/address.ts';
import { expectArgs, getAddressInfo, getSigner, parseInt64, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from './token.ts';
import { jsonArgument } from '../../chaincode/util.ts';
import { fakeMemo, fakeSignature, fakeTag } from '../../jobs/client.ts';
import { type Job, pickOtherWallet, planUnlockdate, portion } from '../../jobs/job.ts';
import { pickFundedWallet } from './plan.ts';
import { mrc010Steps } from './versions.ts';

const ITEM_FIELDS = ['address', 'amount', 'unlockdate', 'tag', 'memo'] as const;
type TransferListItem = Record<(typeof ITEM_FIELDS)[number], string>;

const MAX_RECIPIENTS = 100;

/** CC-t `base.go` MultiTransfer (CC-22's, since 2021-03, differs in the steps of versions.ts). */
export const multiTransferJob: Job = {
  fcn: 'multitransfer',
  weight: 8,
  writes: [MRC010.multiTransfer, MRC010.receive],
  plan(ctx) {
    const { rng, now } = ctx;
    const funded = pickFundedWallet(ctx);
    if (!funded) return null;
    const wanted = rng.chance(0.03) ? rng.int(20, MAX_RECIPIENTS) : rng.int(2, 8);
    const count = Math.min(wanted, ctx.world.wallets.length - 1, Number(funded.available));
    if (count < 1) return null;

    const taken = new Set([funded.wallet.id]);
    const list: TransferListItem[] = [];
    const budget = portion(rng, funded.available, 1, 50);
    let total = 0n;
    for (let i = 0; i < count; i++) {
      const to = pickOtherWallet(ctx, taken);
      if (!to) break;
      taken.add(to);
      const share = budget / BigInt(count);
      const amount = share > 0n ? portion(rng, share, 50, 150) : 1n;
      total += amount;
      list.push({
        address: to,
        amount: amount.toString(),
        unlockdate: planUnlockdate(rng, now),
        tag: fakeTag(rng),
        memo: fakeMemo(rng),
      });
    }
    if (list.length === 0) return null;
    // Tiny balances: fall back to 1 each, which `count` ≤ available always covers.
    if (total > funded.available) for (const item of list) item.amount = '1';
    return {
      fcn: 'multitransfer',
      args: [funded.wallet.id, JSON.stringify(list), String(funded.token), fakeSignature(rng), funded.wallet.nonce],
    };
  },
  execute(stub, { args }) {
    const [from, transferlist, tokenId, sig, nonce] = expectArgs(
      args,
      5,
      '1000,multitransfer operation must include four arguments : fromAddr, transferlist, tokenID, signature, tkey',
    );
    const steps = mrc010Steps(stub.chaincode);
    if (!isMtAddress(from)) throw new ChaincodeError('3001,Invalid from address');
    const fromWallet = getSigner(stub, from, nonce);
    const targets = parseTransferList(transferlist, steps.listTokenId);
    mrc010Id(stub, tokenId);
    if (targets.length < 1) throw new ChaincodeError('3002, There are no multiple transmission recipients');
    if (targets.length > MAX_RECIPIENTS) {
      throw new ChaincodeError('3002,There must be 100 or fewer recipients of multitransfer');
    }

    const seen = new Set<string>();
    for (const item of targets) {
      if (!isMtAddress(item.address)) throw new ChaincodeError('3002,Invalid to address');
      if (seen.has(item.address)) {
        throw new ChaincodeError(`6100, [${item.address}] already exists on the transfer list.`);
      }
      seen.add(item.address);
      if (from === item.address) throw new ChaincodeError('3201,From address and to address must be different values');
      const lock = parseInt64(item.unlockdate, '1102,Invalid unlock date');
      const toWallet = getAddressInfo(stub, item.address);
      steps.moveToken(stub, fromWallet, toWallet, tokenId, item.amount, lock);
      setAddressInfo(stub, toWallet, MRC010.receive, [
        from,
        item.address,
        item.amount,
        tokenId,
        sig,
        item.unlockdate,
        item.tag.slice(0, 64),
        item.memo.slice(0, 2048),
        nonce,
      ]);
    }
    setAddressInfo(stub, fromWallet, MRC010.multiTransfer, args);
  },
};

/** json.Unmarshal into []TMRC010TransferList (CC-22's MultiTransferList adds an unused `tokenid`). */
function parseTransferList(text: string, tokenid: boolean): TransferListItem[] {
  const fail = (why: string) => new ChaincodeError(`3290,Transfer list is in the wrong data - ${why}`);
  const { value, string } = jsonArgument(text, fail);
  if (value === null) return [];
  if (!Array.isArray(value)) throw fail('not an array');
  return value.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) throw fail('item is not an object');
    if (tokenid) string(item, 'tokenid');
    return Object.fromEntries(ITEM_FIELDS.map((key) => [key, string(item, key)])) as TransferListItem;
  });
}
