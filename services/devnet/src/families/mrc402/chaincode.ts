import { ordNumber, parsePositiveRaw, sortedEntries, decimalOrZero } from '../../chaincode/util.ts';
import { MRC402 } from '@mtc/domain';
import type { Stub } from '../../world/stub.ts';
import type { NftBalance, Wallet } from '../mrc010/records.ts';
import {
  DEX402_PREFIX,
  MRC402_PREFIX,
  withHolding,
  withoutHolding,
  type Dex402Order,
  type Mrc402Token,
} from './records.ts';
import { parsePositive } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { mrc010Id } from '../mrc010/token.ts';
import { prefixed, readOrder, writeOrder, type OrderBook } from '../dex/order-record.ts';

/**
 * The record and balance helpers of CC-t `mrc402.go` and the bits of `util.go` only MRC-402 uses. Where
 * Go ranges over a map in random order (`initialreserve`, `shareholder`), the devnet takes sorted keys,
 * so a seed gives one chain: it shows in the order of shareholder fees in a settlement's PaymentInfo and
 * of balance entries a melt or burn appends; a real peer could have written either order.
 */

/** MRC402ModifyType: which escrow a balance change also moves (sale or auction amount). */
type Mrc402ModifyKind = 'normal' | 'sell' | 'auction';

/** CC-t `mrc402.go` MRC402DexStatus, as dex402Status derives it from an order's fields. */
export type Dex402Status =
  'sale' | 'cancelled' | 'soldout' | 'auction_wait' | 'auction' | 'auction_end' | 'auction_finish';

/** CC-t `mrc402.go` dex402Status at the peer's clock `now`. */
export function dex402Status(dex: Dex402Order, now: number): Dex402Status {
  if (dex.cancel_date > 0) return 'cancelled';
  if (dex.auction_start_date === 0) return dex.sell_date === 0 ? 'sale' : 'soldout';
  if (dex.auction_start_date > now) return 'auction_wait';
  if (dex.auction_end_date > now) return 'auction';
  return dex.auction_settle_date === 0 ? 'auction_end' : 'auction_finish';
}

/** CC-t GetMRC402: a private copy of the record (its maps are never changed in place). */
export function getMrc402(stub: Stub, id: string): Mrc402Token {
  if (!id.startsWith(MRC402_PREFIX) || id.length !== 40) throw new ChaincodeError('6102,invalid MRC402 ID');
  const value = stub.getState(id);
  if (value === undefined) throw new ChaincodeError(`6004,MRC402 [${id}] not exist`);
  return { ...(value as Mrc402Token) };
}

/** CC-t setMRC402: stamps the job fields (job_args always the JSON array) and writes the record. */
export function setMrc402(stub: Stub, token: Mrc402Token, jobType: string, args: readonly string[]): void {
  if (!token.id.startsWith(MRC402_PREFIX) || token.id.length !== 40) {
    throw new ChaincodeError('6102,invalid MRC402 data address');
  }
  token.job_type = jobType;
  token.jobdate = stub.now;
  token.job_args = JSON.stringify(args);
  stub.putState(token.id, token);
}

const DEX402_BOOK: OrderBook = {
  prefix: DEX402_PREFIX,
  invalidId: '6102,invalid DEX ID',
  family: 'MRC402',
  invalidData: '6102,invalid DEX402 data address',
  types: MRC402,
  cancels: [MRC402.unsell, MRC402.unauction],
  fills: [MRC402.buy],
};

/** CC-t GetDEX402: a private copy of the order. */
export const getDex402 = (stub: Stub, dexid: string) => readOrder<Dex402Order>(stub, DEX402_BOOK, dexid);

/** CC-t setDEX402 (order-record.ts writeOrder). */
export function setDex402(stub: Stub, dex: Dex402Order, jobType: string, args: readonly string[]): void {
  writeOrder(stub, DEX402_BOOK, dex, jobType, args);
}

/**
 * The create, mint, burn and melt loops over the initial reserve (sorted, see the header): per token,
 * it must exist and its per-unit amount be a positive integer, then `apply` moves the MRC-010 amount.
 */
export function forEachReserve(
  stub: Stub,
  reserve: Readonly<Record<string, string>> | null,
  apply: (tokenId: string, perUnit: bigint) => void,
): void {
  sortedEntries(reserve).forEach(([tokenId, amount], index) => {
    prefixed(`3005,${ordNumber(index)} InitialReserve item token error : `, () => mrc010Id(stub, tokenId));
    apply(
      tokenId,
      prefixed(`3005,${ordNumber(index)} InitialReserve item amount error : `, () => parsePositiveRaw(amount)),
    );
  });
}

const NOT_ENOUGH = '5000,Not enough balance';

/**
 * CC-t mrc402Add: credits `amount` to the wallet's holding of `id`, lowering the sale or auction
 * escrow by as much for `sell` / `auction`. A new holding stores the amount string as given (every
 * caller passes a normalised one), sale and auction "0".
 */
export function mrc402Add(stub: Stub, wallet: Wallet, id: string, amount: string, kind: Mrc402ModifyKind): void {
  const add = parsePositive(amount, `1102,${amount} is not positive integer`);
  getMrc402(stub, id);
  credit(wallet, id, amount, add, kind);
}

/**
 * CC-t mrc402Subtract: debits `amount` from the balance (never below 0), raising the sale or auction
 * escrow by as much for `sell` / `auction`. A holding left at "0"/"0"/"0" is deleted from the map.
 */
export function mrc402Subtract(stub: Stub, wallet: Wallet, id: string, amount: string, kind: Mrc402ModifyKind): void {
  const [subtract, known] = held(stub, wallet, id, amount, '1103');
  debit(wallet, id, known, subtract, kind);
}

/** CC-t mrc402SubtractSubBalance: lowers a settled trade's escrow, no floor, no clean-up ("0"/"0"/"0" stays). */
export function mrc402SubtractSubBalance(
  stub: Stub,
  wallet: Wallet,
  id: string,
  amount: string,
  kind: Mrc402ModifyKind,
): void {
  const [subtract, known] = held(stub, wallet, id, amount, '1104');
  const holding: NftBalance = { ...known };
  moveEscrow(holding, kind, -subtract);
  wallet.mrc402 = withHolding(wallet.mrc402, id, holding);
}

/** CC-t mrc402Move: moves `amount` of `id` from one wallet's balance to another's. */
export function mrc402Move(stub: Stub, from: Wallet, to: Wallet, amount: string, id: string): void {
  const [move, known] = held(stub, from, id, amount, '1105');
  debit(from, id, known, move, 'normal');
  credit(to, id, amount, move, 'normal');
}

/** The amount (`code` its message's) and the wallet's holding of an existing `id`, which it must have. */
function held(stub: Stub, wallet: Wallet, id: string, amount: string, code: string): [bigint, NftBalance] {
  const value = parsePositive(amount, `${code},${amount} is not positive integer`);
  getMrc402(stub, id);
  const known = wallet.mrc402?.[id];
  if (!wallet.mrc402 || !known) throw new ChaincodeError(NOT_ENOUGH);
  return [value, known];
}

/** Takes `subtract` off the holding's balance (never below 0); an emptied holding is deleted. */
function debit(wallet: Wallet, id: string, known: NftBalance, subtract: bigint, kind: Mrc402ModifyKind): void {
  const balance = decimalOrZero(known.balance) - subtract;
  if (balance < 0n) throw new ChaincodeError(NOT_ENOUGH);
  const holding: NftBalance = { ...known, balance: balance.toString() };
  moveEscrow(holding, kind, subtract);
  wallet.mrc402 = isEmpty(holding) ? withoutHolding(wallet.mrc402!, id) : withHolding(wallet.mrc402, id, holding);
}

/** Adds `add` (written `amount`) to the holding's balance, or makes one of it. */
function credit(wallet: Wallet, id: string, amount: string, add: bigint, kind: Mrc402ModifyKind): void {
  const known = wallet.mrc402?.[id];
  const holding: NftBalance = known
    ? { ...known, balance: (decimalOrZero(known.balance) + add).toString() }
    : { balance: amount, saleamount: '0', auctionamount: '0' };
  moveEscrow(holding, kind, -add);
  wallet.mrc402 = withHolding(wallet.mrc402, id, holding);
}

/** Adds `delta` to the escrow `kind` names (Go's decimal maths on the stored strings). */
function moveEscrow(holding: NftBalance, kind: Mrc402ModifyKind, delta: bigint): void {
  if (kind === 'sell') holding.saleamount = (decimalOrZero(holding.saleamount) + delta).toString();
  else if (kind === 'auction') holding.auctionamount = (decimalOrZero(holding.auctionamount) + delta).toString();
}

/** The clean-up test of mrc402Subtract / mrc402Move: the stored strings, compared with "0". */
function isEmpty(h: NftBalance): boolean {
  return h.balance === '0' && h.saleamount === '0' && h.auctionamount === '0';
}

// prettier-ignore
const ISO3166 = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '),
);

/** util.ISO3166Check: "" or an ISO 3166-1 alpha-2 code of the chaincode's list (249 codes). */
export function iso3166Check(code: string): void {
  if (code !== '' && !ISO3166.has(code)) throw new ChaincodeError(`${code} is not country code`);
}
