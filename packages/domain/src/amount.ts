import { z } from 'zod';

/**
 * Amounts are non-negative integers in the smallest unit: `bigint` inside, integer strings on the
 * wire. The chain stores them as decimal strings and sometimes as "" (an unset sale/auction amount),
 * which reads as zero.
 */
export type Amount = bigint;

const INTEGER = /^(0|[1-9][0-9]*)$/;

export const AmountString = z.string().regex(INTEGER, 'must be a non-negative integer string').brand<'AmountString'>();
export type AmountString = z.infer<typeof AmountString>;

/** Parses a chain amount; "" and absent values are zero, anything else malformed throws. */
export function parseAmount(value: string | number | null | undefined): Amount {
  if (value === undefined || value === null || value === '') return 0n;
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (/^[0-9]+$/.test(text)) return BigInt(text);
  throw new RangeError(`not an integer amount: ${JSON.stringify(value)}`);
}

/** Like parseAmount, but null instead of throwing: for display paths fed by foreign data. */
export function tryParseAmount(value: unknown): Amount | null {
  if (typeof value !== 'string' && typeof value !== 'number' && value != null) return null;
  try {
    return parseAmount(value);
  } catch {
    return null;
  }
}

export function formatAmount(value: Amount): AmountString {
  if (value < 0n) throw new RangeError(`negative amount: ${value}`);
  return value.toString() as AmountString;
}

/** Fixed-point rendering, e.g. ("100", 10) -> "100.0000000000" for MRC-402 quantities. */
export function toFixedScale(value: Amount, scale: number): string {
  if (scale === 0) return value.toString();
  return `${value.toString()}.${'0'.repeat(scale)}`;
}

/**
 * A zero-padded decimal string that sorts like the number: stores without a native
 * arbitrary-precision type index and sort amounts through it.
 */
export function amountSortKey(value: Amount): string {
  return value.toString().padStart(40, '0');
}
