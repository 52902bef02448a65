import { describe, expect, it } from 'vitest';
import { createRng } from './rng.ts';

const draw = (seed: number, n: number) => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng.next());
};

describe('createRng', () => {
  it('repeats the same sequence when given the same seed', () => {
    expect(draw(42, 100)).toEqual(draw(42, 100));
  });

  it('gives different sequences when seeds differ, including above 2^32', () => {
    expect(draw(1, 10)).not.toEqual(draw(2, 10));
    expect(draw(5, 10)).not.toEqual(draw(5 + 2 ** 32, 10));
  });

  it('pins its output so a change of algorithm cannot slip in unnoticed', () => {
    expect(createRng(1).alnum(12)).toMatchInlineSnapshot(`"fF3EAFUPiX6B"`);
  });

  it('keeps int() within its inclusive bounds and reaches both ends', () => {
    const rng = createRng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const v = rng.int(-2, 3);
      expect(v).toBeGreaterThanOrEqual(-2);
      expect(v).toBeLessThanOrEqual(3);
      seen.add(v);
    }
    expect([...seen].sort()).toEqual([-1, -2, 0, 1, 2, 3].sort());
  });

  it('never picks a zero-weight choice', () => {
    const rng = createRng(9);
    for (let i = 0; i < 1_000; i++)
      expect(
        rng.weighted([
          ['a', 0],
          ['b', 1],
          ['c', 0],
        ]),
      ).toBe('b');
  });

  it('draws alphanumerics only', () => {
    expect(createRng(3).alnum(500)).toMatch(/^[A-Za-z0-9]{500}$/);
  });

  it('rejects a seed that is not a safe integer', () => {
    expect(() => createRng(1.5)).toThrow(RangeError);
  });
});
