import { describe, expect, it } from 'vitest';
import { eraAt, planEras } from './eras.ts';

describe('planEras', () => {
  it('gives the first 10 % of a 3,000-block history to the legacy versions, oldest first, 30 % of the rest to v2.3, then the current one', () => {
    const eras = planEras(3_000, 0.1);
    expect(eras.map((e) => e.version)).toEqual(['v1', 'v2.0', 'v2.1', 'v2.1-mrc800', 'v2.2', 'v2.3', 'current']);
    expect(eras[0]).toEqual({ version: 'v1', from: 1 });
    expect(eras[1]).toEqual({ version: 'v2.0', from: 2 });
    // 2,700 blocks after the legacy ones: 810 (30 %) run v2.3.
    expect(eras.at(-2)).toEqual({ version: 'v2.3', from: 301 });
    expect(eras.at(-1)).toEqual({ version: 'current', from: 1_111 });
    for (let i = 1; i < eras.length; i++) expect(eras[i]!.from).toBeGreaterThan(eras[i - 1]!.from);
  });

  it('runs the current chaincode throughout when the legacy share is too small to hold a block after genesis', () => {
    expect(planEras(10, 0.1)).toEqual([{ version: 'current', from: 1 }]);
    expect(planEras(0, 0.1)).toEqual([{ version: 'current', from: 1 }]);
    expect(planEras(3_000, 0)).toEqual([{ version: 'current', from: 1 }]);
  });

  it('finds the era in force at a height', () => {
    const eras = planEras(3_000, 0.1);
    expect(eraAt(eras, 1).version).toBe('v1');
    expect(eraAt(eras, 300).version).toBe('v2.2');
    expect(eraAt(eras, 301).version).toBe('v2.3');
    expect(eraAt(eras, 1_110).version).toBe('v2.3');
    expect(eraAt(eras, 1_111).version).toBe('current');
    expect(eraAt(eras, 1_000_000).version).toBe('current');
  });
});
