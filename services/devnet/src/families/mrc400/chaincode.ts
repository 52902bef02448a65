import type { Stub } from '../../world/stub.ts';
import { mrc400Version } from './versions.ts';
import type { Wallet } from '../mrc010/records.ts';
import {
  encodeCollection,
  encodeItem,
  isCollectionKey,
  isItemKey,
  MRC400_PREFIX,
  readCollection,
  readFields,
  readItem,
  zeroItem,
  type FieldKind,
  type Fields,
  type Mrc400Collection,
  type Mrc401Item,
} from './records.ts';
import { isMtAddress } from '../../world/address.ts';
import { getAddressInfo, nonceCheck } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { dataAssign, generateKey, numericDataCheck } from '../../chaincode/util.ts';
import { getMrc010 } from '../mrc010/token.ts';

/**
 * The MRC-400/401 helpers of `mrc400.go`, CC-m 0e78fc1 (`v2.3`, old argument layouts) and CC-t
 * 569b17e (`current`, new layouts), and the bits of util.go and encoding/json they lean on.
 */

/** GetMRC400 and GetMRC401 (the same in both versions): a private copy, id filled from the key when empty. */
function getRecord<T extends object>(stub: Stub, id: string, what: string, read: (key: string, raw: object) => T): T {
  if (!(what === 'MRC400' ? isCollectionKey(id) : isItemKey(id))) {
    throw new ChaincodeError(`6102,invalid ${what} data address`);
  }
  const raw = stub.getState(id);
  if (raw === undefined) throw new ChaincodeError(`6004,${what} [${id}] not exist`);
  return { ...read(id, raw as object) };
}

export const getMrc400 = (stub: Stub, id: string): Mrc400Collection => getRecord(stub, id, 'MRC400', readCollection);
export const getMrc401 = (stub: Stub, id: string): Mrc401Item => getRecord(stub, id, 'MRC401', readItem);

/** setMRC400, under the record's id or `key` (CC-m's Mrc400Create, whose record keeps an empty id). */
export function setMrc400(stub: Stub, c: Mrc400Collection, jobType: string, args: readonly string[], key = c.id): void {
  if (!isCollectionKey(key)) throw new ChaincodeError('6102,invalid MRC401 data address');
  Object.assign(c, { job_type: jobType, jobdate: stub.now, job_args: JSON.stringify(args) });
  stub.putState(key, encodeCollection(c, stub.chaincode));
}

/**
 * setMRC401. CC-m writes under the key it is given (its Mrc401Create leaves the id ""); CC-t under
 * the record's id, which must start with its 40-character collection id.
 */
export function setMrc401(stub: Stub, key: string, item: Mrc401Item, jobType: string, args: readonly string[]): void {
  const { ownItemKey } = mrc400Version(stub.chaincode);
  const target = ownItemKey ? item.id : key;
  if (!isItemKey(target)) throw new ChaincodeError('6102,invalid MRC401 data address');
  if (ownItemKey && (item.mrc400.length !== 40 || !target.startsWith(item.mrc400))) {
    throw new ChaincodeError('6102,invalid MRC401 ID');
  }
  Object.assign(item, { job_type: jobType, jobdate: stub.now, job_args: JSON.stringify(args) });
  stub.putState(target, encodeItem(item, stub.chaincode));
}

/** An item's sale, auction and platform fields as the functions that end them leave them. */
export const NO_SALE = { sell_date: 0, sell_price: '0', sell_token: '0' } as const;
export const NO_AUCTION = {
  auction_date: 0,
  auction_end: 0,
  auction_token: '0',
  auction_bidding_unit: '0',
  auction_start_price: '0',
  auction_buynow_price: '0',
  auction_current_price: '0',
  auction_current_bidder: '',
} as const;
export const NO_PLATFORM = { platform_name: '', platform_url: '', platform_address: '', platform_commission: '' };
export type Platform = typeof NO_PLATFORM;

/**
 * The item literal both versions' Mrc401Create (and CC-t's Mrc401CreateTrade) start from. Quirk
 * kept: auction_current_bidder starts as "0", not "" (the auction functions set it to "").
 */
export function newItem(now: number, id: string, mrc400: string, owner: string, creator: string): Mrc401Item {
  return {
    ...zeroItem(),
    ...NO_SALE,
    ...NO_AUCTION,
    id,
    mrc400,
    owner,
    creator,
    createdate: now,
    initial_reserve: '0',
    initial_token: '0',
    melting_fee: '0.0',
    transferable: 'Permanent',
    sell_fee: '0.0',
    jobdate: now,
    auction_current_bidder: '0',
    last_trade_amount: '0',
    last_trade_token: '0',
  };
}

/** The largest price the chaincode accepts (80 nines). */
export const MAX_PRICE = '9'.repeat(80);

/** CC-t's platform fields of a sale, each optional. Every message says "InititalToken error" (copied in Go). */
export function assignPlatform(stub: Stub, item: Mrc401Item, p: Platform): void {
  const error = (inner: string) => `3005,InititalToken error : ${inner}`;
  item.platform_name = guard(() => dataAssign(p.platform_name, 'text', 1, 255, true), error) ?? item.platform_name;
  item.platform_url = guard(() => dataAssign(p.platform_url, 'url', 1, 255, true), error) ?? item.platform_url;
  item.platform_address =
    guard(() => dataAssign(p.platform_address, 'address', 40, 40, true), error) ?? item.platform_address;
  if (isMtAddress(item.platform_address)) {
    guard(
      () => getAddressInfo(stub, item.platform_address),
      (inner) => `3005,PlatformAddress not found : ${inner}`,
    );
  }
  item.platform_commission =
    guard(() => numericDataCheck(p.platform_commission, '0.00', '10.00', 2, true), error) ?? item.platform_commission;
}

/** An item id not seen before in the call's list. */
export function expectUnique(seen: Set<string>, itemId: string): void {
  if (seen.has(itemId)) throw new ChaincodeError(`3004,MRC401 [${itemId}] is duplicate`);
  seen.add(itemId);
}

/** Neither on sale nor in auction. */
export function expectHeld(item: Mrc401Item, id: string): void {
  if (item.sell_date > 0) throw new ChaincodeError(`3004,MRC401 [${id}] is already sale`);
  if (item.auction_date > 0) throw new ChaincodeError(`3004,MRC401 [${id}] is already auction`);
}

/** That an item of `c` may be priced in `token`: MTC ("0"), the allow_token, or (CC-t, allow_token "0" or "") any. */
export function expectToken(c: Mrc400Collection, token: string, old: boolean, at: string, metacoin = !old): void {
  const allowed = old || c.allow_token !== '' ? c.allow_token : '0';
  if (token === '0' || token === allowed || (!old && allowed === '0')) return;
  const orMtc = metacoin || (old && allowed !== '0') ? ' or metacoin' : '';
  throw new ChaincodeError(`${at} is must ${allowed}${orMtc}`);
}

/** GetMRC010 as the MRC-400/401 functions check a token argument. */
export function checkToken(stub: Stub, token: string): void {
  guard(
    () => getMrc010(stub, token),
    (inner) => `3005,Token id ${token} error : ${inner}`,
  );
}

/** A new collection id: GenerateKey("MRC400_", keyArgs) plus the first free retry digit. */
export function newMrc400Id(stub: Stub, keyArgs: readonly string[]): string {
  const base = generateKey(MRC400_PREFIX, keyArgs);
  for (let i = 0; i < 10; i++) {
    const id = `${base}${i}`;
    if (stub.getState(id) === undefined) return id;
  }
  throw new ChaincodeError('3005,Data generate error, retry again');
}

/** NonceCheck with the message of the installed version (CC-m's has no address in it). */
export function checkNonce(stub: Stub, wallet: Wallet, nonce: string): void {
  try {
    nonceCheck(stub, wallet, nonce);
  } catch (error) {
    if (error instanceof ChaincodeError && mrc400Version(stub.chaincode).plainNonceError)
      throw new ChaincodeError('1102,nonce error');
    throw error;
  }
}

/** GetAddressInfo of the signer, then checkNonce. */
export function getSigner(stub: Stub, address: string, nonce: string): Wallet {
  const wallet = getAddressInfo(stub, address);
  checkNonce(stub, wallet, nonce);
  return wallet;
}

/** Runs a util check and turns its error into the calling chaincode function's message. */
export function guard<T>(check: () => T, message: (inner: string) => string): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ChaincodeError) throw new ChaincodeError(message(error.message));
    throw error;
  }
}

/** util.DataAssign(…, "id", 40, 40, false): the trimmed text must be 40 characters of [a-zA-Z0-9]. */
export function itemIdCheck(src: string): string {
  const buf = src.trim();
  if (!/^[a-zA-Z0-9]{40}$/.test(buf)) throw new ChaincodeError(`not valid data - ${buf}`);
  return buf;
}

/**
 * `base.Mul(rate).Div(100).Floor()` with the rate parsed by decimal.NewFromString, ignoring the
 * error (an unparsable rate is 0): CC-m's sale and auction fees and both versions' melting fee.
 */
export function percentOf(base: bigint, rate: string): bigint {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(rate);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return 0n;
  const fraction = m[3] ?? '';
  const x = base * BigInt(`${m[2] || '0'}${fraction}`) * (m[1] === '-' ? -1n : 1n);
  const d = 100n * 10n ** BigInt(fraction.length);
  // Floor rounds towards −∞.
  return x % d !== 0n && x < 0n ? x / d - 1n : x / d;
}

/**
 * CC-t `base.go` DexFeeCalc for any rate precision (a sell fee has up to four fraction digits) and
 * a base ≥ 0; null where Go errs (an unparsable or non-positive rate, a fee flooring to 0): no fee.
 */
export function dexFee(base: bigint, rate: string): bigint | null {
  const fee = percentOf(base, rate);
  return fee > 0n ? fee : null;
}

/** CC-t MRC401ActionType, as far as Mrc401PermissionCheck tells them apart. */
export type Mrc401Action =
  'transfer' | 'melt' | 'sell' | 'unsell' | 'auction' | 'unauction' | 'create' | 'update' | 'createtrade';

/** The item fields the permission check reads (create calls pass an empty item). */
export type PermissionItem = Pick<Mrc401Item, 'id' | 'owner' | 'creator' | 'last_worker'>;

export const NO_ITEM: PermissionItem = { id: '', owner: '', creator: '', last_worker: '' };

/** A collection's partner roles; those that may sell and withdraw items; those that may create them. */
export const PARTNER_ROLES: readonly string[] = ['partner', 'seller', 'creator'];
export const SELLS: readonly string[] = ['partner', 'seller'];
export const CREATES: readonly string[] = ['partner', 'creator'];

const SELL_DENIED = '[#] sell or auction is only available to MRC400 partner or seller';
const UNSELL_DENIED = '[#] unsell or unauction is only available to MRC400 partner or seller';

/** Per action a partner may take: the roles allowed and the message ("3007,MRC401 " after) for others. */
const PARTNER_RULES: Readonly<Record<string, readonly [readonly string[], string]>> = {
  sell: [SELLS, SELL_DENIED],
  auction: [SELLS, SELL_DENIED],
  unsell: [SELLS, UNSELL_DENIED],
  unauction: [SELLS, UNSELL_DENIED],
  create: [CREATES, 'creation is only available to MRC400 partner or creator'],
  update: [CREATES, 'update is only available to MRC400 partner or creator'],
  // Go's message here says "partner or creator" though the roles checked are partner and seller.
  createtrade: [SELLS, 'creation is only available to MRC400 partner or creator'],
};

/**
 * CC-t Mrc401PermissionCheck. The Go comment says a partner may sell only items never traded
 * (`LastTradeType` empty); the code does not check that.
 */
export function permissionCheck(c: Mrc400Collection, item: PermissionItem, actor: string, action: Mrc401Action): void {
  if (!isMtAddress(actor)) throw new ChaincodeError(`1002,${actor} is not Metacoin address`);
  const creating = action === 'create' || action === 'update' || action === 'createtrade';
  if (creating ? actor === c.owner : item.owner === actor) return;
  if (action === 'transfer' || action === 'melt' || (!creating && item.owner !== c.owner)) {
    throw new ChaincodeError(`3004,MRC401 [${item.id}] is not your item`);
  }
  const role = c.partner?.[actor];
  if (role === undefined) throw new ChaincodeError('3007,MRC401 operation is only available to MRC400 partner');
  const [roles, denied] = PARTNER_RULES[action]!;
  if (!roles.includes(role)) throw new ChaincodeError(`3007,MRC401 ${denied.replace('#', item.id)}`);
  if ((action === 'unsell' || action === 'unauction') && item.last_worker !== actor) {
    throw new ChaincodeError(`3007,MRC401 [${item.id}] unsell or unauction is only available to last worker`);
  }
  if (action === 'update' && item.creator !== actor) {
    throw new ChaincodeError(`3007,MRC401 [${item.id}] update is only available to creator`);
  }
}

// ---------------------------------------------------------------- encoding/json, as the chaincode uses it

/** Go's json.Unmarshal error (the wording is an approximation), for the caller to wrap (guard). */
function cannot(value: unknown, type: string, where = 'Go value'): ChaincodeError {
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return new ChaincodeError(`json: cannot unmarshal ${kind} into ${where} of type ${type}`);
}

function parseJson(text: string): unknown {
  if (text.trim() === '') throw new ChaincodeError('unexpected end of JSON input');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ChaincodeError(`invalid character in ${JSON.stringify(text.slice(0, 20))}`);
  }
}

function decodeString(value: unknown, where: string): string {
  if (typeof value !== 'string') throw cannot(value, 'string', where);
  return value;
}

/** Unmarshal into a map[string]string: Go adds to (and overwrites in) an existing map, null sets it to nil. */
function decodeMap(
  value: unknown,
  into: Readonly<Record<string, string>> | null,
  where: string,
): Record<string, string> | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw cannot(value, 'map[string]string', where);
  const out: Record<string, string> = { ...(into ?? {}) };
  for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = decodeString(v, where);
  return out;
}

/** One JSON object into a struct of `fields`: zero values for absent keys, keys matched case-insensitively. */
function decodeStruct<S extends Record<string, FieldKind>>(value: unknown, fields: S, struct: string): Fields<S> {
  const out: Record<string, unknown> = readFields(fields, {});
  if (value === null) return out as Fields<S>;
  if (typeof value !== 'object' || Array.isArray(value)) throw cannot(value, struct);
  for (const [key, v] of Object.entries(value)) {
    const name = key in fields ? key : Object.keys(fields).find((f) => f.toLowerCase() === key.toLowerCase());
    if (name === undefined || v === null) continue;
    const kind = fields[name]!;
    const where = `Go struct field ${struct}.${name}`;
    if (kind === 'int' && (typeof v !== 'number' || !Number.isSafeInteger(v))) throw cannot(v, 'int64', where);
    if (kind === 'string') out[name] = decodeString(v, where);
    else out[name] = kind === 'int' ? v : decodeMap(v, out[name] as Record<string, string> | null, where);
  }
  return out as Fields<S>;
}

/** json.Unmarshal(text, &[]T): null gives an empty list; each element decoded by `element`. */
function decodeList<T>(text: string, type: string, element: (value: unknown) => T): T[] {
  const value = parseJson(text);
  if (value === null) return [];
  if (!Array.isArray(value)) throw cannot(value, `[]${type}`);
  return value.map((v) => element(v));
}

/** json.Unmarshal(text, &[]Struct): a null element gives a zero struct. */
export function unmarshalList<S extends Record<string, FieldKind>>(text: string, fields: S, struct: string) {
  return decodeList(text, struct, (v) => decodeStruct(v, fields, struct));
}

/** json.Unmarshal(text, &Struct). */
export function unmarshalStruct<S extends Record<string, FieldKind>>(text: string, fields: S, struct: string) {
  return decodeStruct(parseJson(text), fields, struct);
}

/** json.Unmarshal(text, &[]string): a null element gives "". */
export function unmarshalStrings(text: string): string[] {
  return decodeList(text, 'string', (v) => (v === null ? '' : decodeString(v, 'Go value')));
}

/** json.Unmarshal(text, &m) (decodeMap). */
export function unmarshalMapInto(
  text: string,
  into: Readonly<Record<string, string>> | null,
): Record<string, string> | null {
  return decodeMap(parseJson(text), into, 'Go value');
}
