import { createHash } from 'node:crypto';
import { isMtAddress } from '../world/address.ts';
import { ChaincodeError } from './errors.ts';

/**
 * CC-t `util/util.go` as the DEX uses it. Its shopspring decimals are only ever integers or commissions
 * with two fraction digits at most, so integer maths (scaled where needed) reproduces them exactly.
 */

/** The min_trade_unit values a DEX010 order may carry, with their counts of zeros. */
export const MIN_TRADE_UNITS: ReadonlyMap<string, number> = new Map(
  Array.from({ length: 9 }, (_, i) => [(10n ** BigInt(i)).toString(), i] as const),
);

/** `decimal.NewFromString(s)` with the error ignored, as the chaincode reads stored amounts: "" is 0. */
export function decimalOrZero(value: string): bigint {
  return /^-?[0-9]+$/.test(value) ? BigInt(value) : 0n;
}

/** shopspring `Decimal.String()` of a plain decimal literal: "007" → "7", "2.50" → "2.5", "-0" → "0". */
export function decimalString(literal: string): string {
  const m = /^(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(literal);
  if (!m) throw new Error(`not a decimal literal: ${literal}`);
  const whole = m[2]!.replace(/^0+(?=[0-9])/, '');
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  if (/^0*$/.test(whole) && fraction === '') return '0';
  return `${m[1]}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A decimal literal as an integer count of 10^-scale units (the literal has at most `scale` digits after the point). */
export function scaled(literal: string, scale: number): bigint {
  const m = /^(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(literal);
  if (!m) throw new Error(`not a decimal literal: ${literal}`);
  const fraction = (m[3] ?? '').padEnd(scale, '0');
  if (fraction.length > scale) throw new Error(`${literal} has more than ${scale} fraction digits`);
  const value = BigInt(m[2]! + fraction);
  return m[1] === '-' ? -value : value;
}

/**
 * util.NumericDataCheck: returns what the chaincode assigns to `dest` (the normalised number), or
 * undefined when the text is empty and allowed (dest is left as it was).
 */
export function numericDataCheck(
  src: string,
  minValue: string,
  maxValue: string,
  maxDecimal: number,
  allowEmpty: boolean,
): string | undefined {
  const buf = src.trim();
  if (allowEmpty && buf.length === 0) return undefined;
  const pattern = maxDecimal > 0 ? new RegExp(`^[-]?[0-9]+(|(\\.[0-9]{1,${maxDecimal}}))$`) : /^[-]?[0-9]+$/;
  if (!pattern.test(buf)) throw new ChaincodeError(' is invalid data');
  const scale = Math.max(maxDecimal, 2);
  const value = scaled(buf, scale);
  if (minValue !== '' && value < scaled(minValue, scale)) throw new ChaincodeError(` must be bigger then ${minValue}`);
  if (maxValue !== '' && value > scaled(maxValue, scale)) throw new ChaincodeError(` must be smaller then ${maxValue}`);
  return decimalString(buf);
}

/** util.DataAssign for the kinds the DEX uses; undefined as in numericDataCheck. */
export function dataAssign(
  src: string,
  kind: 'address' | 'url' | 'text',
  minLength: number,
  maxLength: number,
  allowEmpty: boolean,
): string | undefined {
  const buf = src.trim();
  if (buf.length === 0) {
    if (minLength === 0) return buf;
    if (allowEmpty) return undefined;
  }
  if (kind === 'address') {
    if (!isMtAddress(buf)) throw new ChaincodeError(`Invalid METACOIN address - ${buf}`);
  } else if (kind === 'url') {
    // url.ParseRequestURI accepts an absolute URL; the scheme must then be http or https.
    let scheme: string;
    try {
      scheme = new URL(buf).protocol;
    } catch {
      throw new ChaincodeError(`invalid url - ${buf}`);
    }
    if (scheme !== 'http:' && scheme !== 'https:') throw new ChaincodeError(`scheme is must http or https - ${buf}`);
    if (Buffer.byteLength(buf) > maxLength) throw new ChaincodeError('too long');
  } else {
    if (Buffer.byteLength(buf) < minLength) throw new ChaincodeError('too short');
    if (Buffer.byteLength(buf) > maxLength) throw new ChaincodeError('too long');
  }
  return buf;
}

/** util.GenerateKey: the 6-character prefix, "_", and md5 of the arguments joined by "|" (39 characters). */
export function generateKey(prefix: string, args: readonly string[]): string {
  const head = `${prefix}000000`.slice(0, 6);
  return `${head}_${createHash('md5').update(args.join('|')).digest('hex')}`;
}

/** util.TradePriceCalc: `amount` at `unitPrice` per `minTradeUnit` units (a multiple of it: the division is exact). */
export function tradePriceCalc(minTradeUnit: string, unitPrice: bigint, amount: bigint): bigint {
  const zeros = MIN_TRADE_UNITS.get(minTradeUnit);
  if (zeros === undefined) throw new ChaincodeError(`MinTradeUnit is invalid : ${minTradeUnit}`);
  if (!amount.toString().endsWith('0'.repeat(zeros))) {
    throw new ChaincodeError(`The trade quantity must be a multiple of ${minTradeUnit}`);
  }
  return (unitPrice * amount) / BigInt(minTradeUnit);
}

/**
 * A JSON call argument json.Unmarshalled into a struct: `fail(why)` is the error for text that is not JSON
 * or a field of another type; an absent or null field reads as its Go zero value.
 */
export function jsonArgument(text: string, fail: (why: string) => Error) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail((error as Error).message);
  }
  const field = <T>(from: object, key: string, zero: T, type: string, ok: (v: unknown) => boolean): T => {
    const v = (from as Record<string, unknown>)[key];
    if (v === undefined || v === null) return zero;
    if (!ok(v)) throw fail(`${key} is not ${type}`);
    return v as T;
  };
  return {
    value,
    string: (from: object, key: string) => field(from, key, '', 'a string', (v) => typeof v === 'string'),
    int: (from: object, key: string) => field(from, key, 0, 'an integer', (v) => Number.isInteger(v)),
  };
}

/** util.ParsePositive with its own messages, for the callers that return them as they are. */
export function parsePositiveRaw(value: string): bigint {
  if (!/^[0-9]*$/.test(value) || value === '') throw new ChaincodeError(`1101, ${value} is not integer string`);
  const n = BigInt(value);
  if (n === 0n) throw new ChaincodeError(`1101, ${value} is either 0 or negative.`);
  return n;
}

/** util.GetOrdNumber (the chaincode counts from 0, so the first item is "0th"). */
export function ordNumber(index: number): string {
  return `${index}${index === 1 ? 'st' : index === 2 ? 'nd' : index === 3 ? 'rd' : 'th'}`;
}

/** A JSON object's entries in Go's json.Marshal order (keys sorted bytewise; chaincode.ts ranges so too). */
export function sortedEntries<V>(map: Readonly<Record<string, V>> | null): [string, V][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
