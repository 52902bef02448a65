import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parseInt64, setAddressInfo } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { mrc010Id } from '../token.ts';
import { isMtAddress } from '../../../world/address.ts';
import type { Job } from '../../../jobs/job.ts';
import { multiTransferJob } from '../multitransfer.ts';
import { moveToken22 } from './cc22.ts';

/**
 * Legacy `multitransfer` (CC-22 `base.go` MultiTransfer, since 2021-03): the same call and writes as
 * today's (`receive` per recipient with [from, to, amount, token, sig, unlockdate, tag, memo, nonce],
 * `multi_transfer` on from with the call args), checked in the legacy order (nonce before the list)
 * and moved with the legacy MoveToken (cc22.ts).
 */
export const legacyMultiTransferJob: Job = {
  fcn: 'multitransfer',
  weight: 8,
  writes: [MRC010.multiTransfer, MRC010.receive],
  plan: (ctx) => multiTransferJob.plan(ctx),
  execute(stub, { args }) {
    const [from, transferlist, tokenId, sig, nonce] = expectArgs(
      args,
      5,
      '1000,multitransfer operation must include four arguments : fromAddr, transferlist, tokenID, signature, tkey',
    );
    if (!isMtAddress(from)) throw new ChaincodeError('3001,Invalid from address');
    const fromWallet = getAddressInfo(stub, from);
    nonceCheck(stub, fromWallet, nonce);
    const targets = parseTransferList(transferlist);
    mrc010Id(stub, tokenId);
    if (targets.length < 1) throw new ChaincodeError('3002, There are no multiple transmission recipients');
    if (targets.length > 100) throw new ChaincodeError('3002,There must be 100 or fewer recipients of multitransfer');

    const seen = new Set<string>();
    for (const item of targets) {
      if (!isMtAddress(item.address)) throw new ChaincodeError('3002,Invalid to address');
      if (seen.has(item.address))
        throw new ChaincodeError(`6100, [${item.address}] already exists on the transfer list.`);
      seen.add(item.address);
      if (from === item.address) throw new ChaincodeError('3201,From address and to address must be different values');
      const lock = parseInt64(item.unlockdate, '1102,Invalid unlock date');
      const toWallet = getAddressInfo(stub, item.address);
      moveToken22(stub, fromWallet, toWallet, tokenId, item.amount, lock);
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

interface ListItem {
  address: string;
  amount: string;
  unlockdate: string;
  tag: string;
  memo: string;
}

/** json.Unmarshal into []MultiTransferList (CC-22 adds an unused `tokenid`): present fields are strings. */
function parseTransferList(text: string): ListItem[] {
  const fail = (why: string) => new ChaincodeError(`3290,Transfer list is in the wrong data - ${why}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw fail(error instanceof Error ? error.message : 'invalid JSON');
  }
  if (raw === null) return [];
  if (!Array.isArray(raw)) throw fail('not an array');
  return raw.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) throw fail('item is not an object');
    const field = (name: string): string => {
      const value = (item as Record<string, unknown>)[name];
      if (value === undefined || value === null) return '';
      if (typeof value !== 'string') throw fail(`${name} is not a string`);
      return value;
    };
    field('tokenid');
    return {
      address: field('address'),
      amount: field('amount'),
      unlockdate: field('unlockdate'),
      tag: field('tag'),
      memo: field('memo'),
    };
  });
}
