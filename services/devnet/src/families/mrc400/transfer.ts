import { MRC400, MRC400_PAYMENT as PAY } from '@mtc/domain';
import { expectArgs, getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { checkNonce, expectHeld, getSigner, getMrc400, getMrc401, percentOf, setMrc401 } from './chaincode.ts';
import { credit, tradeArgs } from './settle.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import { MELTED, type Mrc401Item } from './records.ts';
import { fakeSignature } from '../../jobs/client.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import { mrc400Version } from './versions.ts';
import type { Job } from '../../jobs/job.ts';
import { pickOtherWallet, wants } from '../../jobs/job.ts';
import { collectionOfItem, free, planner, movable, pickItem } from './plan.ts';

/**
 * `mrc401transfer` (both versions `mrc400.go` Mrc401Transfer) → the item written `mrc401_transfer`
 * with the call args as job_args, its owner `to`; the previous owner's wallet `mrc401transfer`.
 * CC-t also records the first transfer of a never-traded item as last_trade_type "Transfer"
 * (nothing else of the last trade).
 */
export const mrc401TransferJob: Job = {
  fcn: 'mrc401transfer',
  weight: 1.2,
  writes: [MRC400.itemTransfer, MRC400.walletItemTransfer],
  plan: planner((ctx) => {
    const item = pickItem(ctx, ctx.world.mrc400.idle, (item) => movable(ctx, item) && free(ctx, item.owner));
    if (!item) return null;
    const to = pickOtherWallet(ctx, new Set([item.owner]));
    if (to === null) return null;
    const owner = ctx.world.wallet(item.owner)!;
    return { fcn: 'mrc401transfer', args: [item.id, item.owner, to, fakeSignature(ctx.rng), owner.nonce] };
  }),
  execute(stub, { args }) {
    const [id, from, to, sig, nonce] = expectArgs(
      args,
      5,
      '1000,mrc401transfer operation must include four arguments : mrc401id, fromAddr, toAddr, sign, tkey',
    );
    const item = getMrc401(stub, id);
    if (item.transferable === 'Bound' && item.owner !== getMrc400(stub, item.mrc400).owner) {
      throw new ChaincodeError(`5002,MRC401 [${id}] is not transferable`);
    }
    expectHeld(item, id);
    if (item.owner !== from) throw new ChaincodeError(`3004,MRC401 [${id}] is not your item`);
    if (to === from) throw new ChaincodeError('3005,From address and to address must be different values');
    const owner = getAddressInfo(stub, from);
    getAddressInfo(stub, to);
    checkNonce(stub, owner, nonce);
    item.owner = to;
    if (mrc400Version(stub.chaincode).transferTradeType && item.last_trade_type === '')
      item.last_trade_type = 'Transfer';
    setMrc401(stub, id, item, MRC400.itemTransfer, args);
    setAddressInfo(stub, owner, MRC400.walletItemTransfer, [id, from, to, sig, nonce]);
  },
};

/**
 * `mrc401melt` (both versions `mrc400.go` Mrc401Melt) → the item written `mrc401_melt` [mrc401id,
 * owner, PaymentInfo JSON, sig, nonce], owner "MELTED": gone for good. The initial reserve comes
 * back out of the item: the MRC-400 owner gets floor(reserve × melting_fee / 100)
 * (`receive_meltfee`), the owner the rest (`receive_melt`); an owner who is the MRC-400 owner gets
 * the whole reserve and no fee is written. A reserve of 0 pays and lists nothing, and writes no
 * wallet, so the owner's nonce rotation is lost.
 *
 * Quirks kept, where the owner is the MRC-400 owner and the fee is positive: PaymentInfo still
 * lists the fee, and its melt payout is the whole reserve under CC-m (the list adds up to more than
 * the reserve) but reserve − fee under CC-t (less than what was paid). CC-m lists nothing as "[]",
 * CC-t as "null" (a nil slice). CC-t also records the owner as last_worker.
 */
export const mrc401MeltJob: Job = {
  fcn: 'mrc401melt',
  weight: 0.5,
  writes: [MRC400.itemMelt, MRC400.receiveMelt, MRC400.receiveMeltfee],
  plan: planner((ctx) => {
    const meltable = (item: Mrc401Item) =>
      free(ctx, item.owner, collectionOfItem(ctx, item).owner) && ctx.world.wallet(item.owner) !== undefined;
    // Until the chain holds a melting fee paid, an owner melts an item whose reserve pays one.
    const paysFee = (item: Mrc401Item) =>
      item.owner !== collectionOfItem(ctx, item).owner &&
      percentOf(decimalOrZero(item.initial_reserve), item.melting_fee) > 0n &&
      meltable(item);
    const { idle } = ctx.world.mrc400;
    const feeId = wants(ctx, MRC400.receiveMeltfee)
      ? idle.find((id) => free(ctx, id) && paysFee(ctx.world.mrc400.item(id)!))
      : undefined;
    const item = feeId === undefined ? pickItem(ctx, idle, meltable) : ctx.world.mrc400.item(feeId)!;
    if (!item) return null;
    const owner = ctx.world.wallet(item.owner)!;
    return { fcn: 'mrc401melt', args: [item.id, fakeSignature(ctx.rng), owner.nonce] };
  }),
  execute(stub, { args }) {
    const [id, sig, nonce] = expectArgs(
      args,
      3,
      '1000,mrc401melt operation must include four arguments : mrc401id, sign, tkey',
    );
    const old = !mrc400Version(stub.chaincode).meltCcT;
    const item = getMrc401(stub, id);
    expectHeld(item, id);
    const holder = item.owner;
    if (holder === MELTED) throw new ChaincodeError(`3004,MRC401 [${id}] is already melted`);
    const owner = getSigner(stub, holder, nonce);

    const payments: PaymentInfo[] = [];
    const reserve = decimalOrZero(item.initial_reserve);
    if (reserve > 0n) {
      const collectionOwner = getMrc400(stub, item.mrc400).owner;
      const token = item.initial_token;
      const fee = percentOf(reserve, item.melting_fee);
      let receive = reserve - fee;
      const params = (to: string, amount: bigint) => tradeArgs(id, to, amount, token, sig, id, nonce);
      if (fee > 0n) {
        payments.push(payment(id, collectionOwner, fee.toString(), token, '', '', PAY.recvMeltfee));
        if (collectionOwner === holder) {
          if (old) receive = reserve;
        } else {
          credit(stub, collectionOwner, token, fee, MRC400.receiveMeltfee, params(collectionOwner, fee));
        }
      }
      if (receive > 0n) {
        payments.push(payment(id, holder, receive.toString(), token, '', '', PAY.recvMelt));
        // CC-t pays the MRC-400 owner the whole reserve, whatever PaymentInfo says.
        const paid = !old && collectionOwner === holder ? reserve : receive;
        mrc010Add(stub, owner, token, paid.toString(), 0);
        setAddressInfo(stub, owner, MRC400.receiveMelt, params(holder, paid));
      }
    }

    if (!old) item.last_worker = item.owner;
    item.owner = MELTED;
    item.melting_date = stub.now;
    const list = payments.length === 0 && !old ? 'null' : JSON.stringify(payments);
    setMrc401(stub, id, item, MRC400.itemMelt, [id, holder, list, sig, nonce]);
  },
};
