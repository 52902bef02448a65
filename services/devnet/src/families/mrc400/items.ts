import { dataAssign, numericDataCheck } from '../../chaincode/util.ts';
import { expectHeld, guard, itemIdCheck } from './chaincode.ts';
import type { FieldKind, Mrc401Item } from './records.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';

/**
 * The item data of mrc401create, mrc401createtrade and mrc401update: the client's JSON (CC-m
 * TMRC401job, CC-t TMRC401CreateUpdate) and the field checks both versions run on it.
 */

/** The fields of both versions' item structs (CC-m's adds createdate, CC-t's shareholder). */
const ITEM_FIELDS = {
  mrc400: 'string',
  item_id: 'string',
  item_url: 'string',
  item_image_url: 'string',
  groupid: 'string',
  initial_reserve: 'string',
  initial_token: 'string',
  melting_fee: 'string',
  transferable: 'string',
  sell_fee: 'string',
} as const satisfies Record<string, FieldKind>;

export const OLD_ITEM_FIELDS = { ...ITEM_FIELDS, createdate: 'int' } as const;
export const NEW_ITEM_FIELDS = { ...ITEM_FIELDS, shareholder: 'map' } as const;

/** The fields every item job has, whichever struct it was read into. */
export type ItemJob = Record<Exclude<keyof typeof ITEM_FIELDS, 'mrc400'>, string>;

/** The largest initial reserve an item may lock (40 nines). */
const MAX_RESERVE = '9'.repeat(40);

/**
 * The checks of a new item's fields, in the chaincode's order, assigning what passes to `item`;
 * returns the trimmed item id. `prefix` starts each message.
 */
export function checkNewItem(item: Mrc401Item, job: ItemJob, prefix: string, old: boolean): string {
  const error = (field: string) => (inner: string) => `${prefix}${field} error : ${inner}`;
  const itemId = guard(() => itemIdCheck(job.item_id), error('ItemID'));
  item.item_url = guard(() => dataAssign(job.item_url, 'url', 1, 255, true), error('ItemURL')) ?? item.item_url;
  item.item_image_url =
    guard(() => dataAssign(job.item_image_url, 'url', 1, 255, true), error('ItemImageURL')) ?? item.item_image_url;
  item.groupid = guard(() => dataAssign(job.groupid, 'text', 1, 40, false), error('GroupID')) ?? item.groupid;
  item.initial_reserve = guard(
    () => numericDataCheck(job.initial_reserve, '0', MAX_RESERVE, 0, false)!,
    error('InititalReserve'),
  );
  item.initial_token = guard(() => dataAssign(job.initial_token, 'text', 1, 40, false), error('InititalToken'))!;
  item.melting_fee = guard(() => numericDataCheck(job.melting_fee, '0', '99.9999', 4, false)!, error('MeltingFee'));
  item.transferable = guard(() => dataAssign(job.transferable, 'text', 1, 128, false), error('Transferable'))!;
  checkPolicy(item.transferable, old, prefix);
  item.sell_fee = guard(() => numericDataCheck(job.sell_fee, '0', '99.9999', 4, false)!, error('SellFee'));
  return itemId;
}

/**
 * The checks mrc401update runs on an item's changeable fields ("" clears the URLs and group id).
 * CC-m refuses a fee change (the raw argument against the stored, normalised rate) while the item
 * is on sale or in auction; CC-t refused the whole update before this.
 */
export function checkItemUpdate(item: Mrc401Item, job: ItemJob, old: boolean): void {
  const id = job.item_id;
  const error = (field: string) => (inner: string) => `3005,${id} item ${field} error : ${inner}`;
  item.item_url = guard(() => dataAssign(job.item_url, 'url', 0, 255, false), error('ItemURL'))!;
  item.item_image_url = guard(() => dataAssign(job.item_image_url, 'url', 0, 255, false), error('ItemImageURL'))!;
  item.groupid = guard(() => dataAssign(job.groupid, 'text', 0, 40, false), error('GroupID'))!;
  if (old && job.sell_fee !== item.sell_fee) expectHeld(item, id);
  item.sell_fee = guard(() => numericDataCheck(job.sell_fee, '0', '99.9999', 4, false)!, error('SellFee'));
  if (old && job.melting_fee !== item.melting_fee) expectHeld(item, id);
  item.melting_fee = guard(() => numericDataCheck(job.melting_fee, '0', '99.9999', 4, false)!, error('MeltingFee'));

  if (!policyChangeable(item.transferable, old)) {
    if (job.transferable === item.transferable) return;
    throw new ChaincodeError(`3005,${id} item Transferable value cannot be change`);
  }
  item.transferable = guard(() => dataAssign(job.transferable, 'text', 1, 128, false), error('Transferable'))!;
  // CC-m's message ends with a space, CC-t's does not.
  checkPolicy(item.transferable, old, `3005,${id} item `, old ? ' ' : '');
}

/** The transfer policies: Permanent, Bound, and Temporary (CC-m: "Temprary", sic). */
export const policies = (old: boolean) => ['Permanent', 'Bound', old ? 'Temprary' : 'Temporary'] as const;

/** Whether mrc401update may change a stored policy: while Temporary (CC-t also takes CC-m's "Temprary"). */
export function policyChangeable(transferable: string, old: boolean): boolean {
  return transferable === 'Temprary' || (!old && transferable === 'Temporary');
}

function checkPolicy(transferable: string, old: boolean, prefix: string, end = ' '): void {
  if ((policies(old) as readonly string[]).includes(transferable)) return;
  throw new ChaincodeError(`${prefix}Transferable value is ${policies(old).join(', ')}${end}`);
}
