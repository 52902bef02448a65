import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHexIndex } from './hex-index.ts';

const hexId = (n: number) => createHash('sha256').update(String(n)).digest('hex');

describe('createHexIndex', () => {
  it('finds every id added, through several doublings, and nothing for ids never added', () => {
    const index = createHexIndex();
    const ids = Array.from({ length: 50_000 }, (_, i) => hexId(i));
    ids.forEach((id, i) => index.add(id, i));
    expect(index.size).toBe(ids.length);
    // The caller confirms a candidate against the stored id; here the array is the store.
    const confirm = (id: string) => (ordinal: number) => ids[ordinal] === id;
    ids.forEach((id, i) => expect(index.find(id, confirm(id))).toBe(i));
    for (let i = 0; i < 1_000; i++) expect(index.find(hexId(-1 - i), confirm(hexId(-1 - i)))).toBeUndefined();
  });

  it('tells apart ids that share their tag (first 32 bits) by asking the caller', () => {
    const index = createHexIndex();
    const a = `00000000${'a'.repeat(56)}`;
    const b = `00000000${'b'.repeat(56)}`;
    const ids = [a, b];
    index.add(a, 0);
    index.add(b, 1);
    const asked: number[] = [];
    expect(
      index.find(b, (ordinal) => {
        asked.push(ordinal);
        return ids[ordinal] === b;
      }),
    ).toBe(1);
    expect(asked).toEqual([0, 1]);
    expect(index.find(`00000000${'c'.repeat(56)}`, (ordinal) => ids[ordinal] === 'c')).toBeUndefined();
  });

  it('holds an id in under 24 bytes (a Map of strings takes about 130)', () => {
    const index = createHexIndex();
    for (let i = 0; i < 100_000; i++) index.add(hexId(i), i);
    expect(index.byteLength() / index.size).toBeLessThan(24);
  });
});
