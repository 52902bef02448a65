/**
 * A small seeded PRNG (xoshiro128**, seeded through splitmix32) and the draws the devnet needs.
 * Written here rather than taken from npm: it is twenty lines, has no dependency to audit, and its
 * output is pinned by our own tests, so a package update can never silently change every devnet.
 * Everything random in the chain (client inputs and the chaincode's own randomness alike) comes from
 * one of these, which is what makes a seed reproduce a chain bit for bit.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by relative weight; weights must not all be 0. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
  /** `length` characters of [a-zA-Z0-9], the chaincode's util.MakeRandomString alphabet. */
  alnum(length: number): string;
  bytes(length: number): Uint8Array;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function createRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer: ${seed}`);
  // Both halves of the seed feed splitmix32, so seeds above 2^32 stay distinct.
  const mix = splitmix32((seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) | 0, 0x9e3779b1));
  let [s0, s1, s2, s3] = [mix(), mix(), mix(), mix()];

  function nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  }

  const next = (): number => nextUint32() / 2 ** 32;
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));

  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
    weighted<T>(choices: readonly (readonly [T, number])[]): T {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
      let point = next() * total;
      for (const [value, weight] of choices) {
        point -= weight;
        if (point < 0) return value;
      }
      return choices[choices.length - 1]![0];
    },
    alnum(length: number): string {
      let out = '';
      for (let i = 0; i < length; i++) out += ALNUM[Math.floor(next() * ALNUM.length)];
      return out;
    },
    bytes(length: number): Uint8Array {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = nextUint32() >>> 24;
      return out;
    },
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function splitmix32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) >>> 0;
  };
}
