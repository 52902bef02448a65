import { describe, expect, it } from 'vitest';
import { amountSortKey, formatAmount, parseAmount, toFixedScale, tryParseAmount } from './amount.ts';

describe('amounts', () => {
  it('parses integer strings beyond 2^53 exactly', () => {
    expect(parseAmount('800000000000000000000000000')).toBe(800000000000000000000000000n);
    expect(formatAmount(parseAmount('9007199254740993'))).toBe('9007199254740993');
  });

  it('reads "" and missing values as zero, as the chain writes unset sale amounts', () => {
    expect(parseAmount('')).toBe(0n);
    expect(parseAmount(undefined)).toBe(0n);
    expect(parseAmount(null)).toBe(0n);
  });

  it('normalises leading zeros and rejects decimals, signs and exponents', () => {
    expect(formatAmount(parseAmount('007'))).toBe('7');
    expect(() => parseAmount('1.5')).toThrow(RangeError);
    expect(() => parseAmount('-1')).toThrow(RangeError);
    expect(() => parseAmount('8e+26')).toThrow(RangeError);
    expect(tryParseAmount('8e+26')).toBeNull();
    expect(tryParseAmount({})).toBeNull();
  });

  it('refuses to format a negative amount', () => {
    expect(() => formatAmount(-1n)).toThrow(RangeError);
  });

  it('renders fixed scales and sort keys that order like numbers', () => {
    expect(toFixedScale(100n, 10)).toBe('100.0000000000');
    expect(amountSortKey(9n) < amountSortKey(10n)).toBe(true);
    expect(amountSortKey(10n ** 30n) > amountSortKey(10n ** 29n)).toBe(true);
  });

  it('orders sort keys like the numbers when they differ in length up to the 40-digit width', () => {
    // Each neighbour has fewer digits but a larger leading digit than the next: only padding to a
    // common width puts them in numeric order.
    const ascending = [7n, 10n ** 20n - 1n, 10n ** 20n, 9n * 10n ** 29n, 10n ** 30n, 9n * 10n ** 38n, 10n ** 39n];
    const byKey = [...ascending].reverse().sort((a, b) => (amountSortKey(a) < amountSortKey(b) ? -1 : 1));
    expect(byKey).toEqual(ascending);
    // The width the stored ranks were written with (HolderDoc.rank): 40 digits.
    expect(amountSortKey(7n)).toBe(`${'0'.repeat(39)}7`);
    expect(amountSortKey(10n ** 39n)).toBe(`1${'0'.repeat(39)}`);
  });
});
