import { describe, expect, it } from 'vitest';
import { DEX010, LEGACY, LIFECYCLE, MRC010, MRC400, MRC402 } from '../job-types.ts';
import { decodedJobTypes, FAMILIES, IGNORED, isKnownJobType } from './registry.ts';

describe('decoder registry', () => {
  it('decodes every job type named in job-types.ts, except those ignored on purpose', () => {
    // The devnet writes only these constants, so this also covers job families being added to it.
    const named: string[] = [
      ...Object.values(MRC010),
      ...Object.values(DEX010),
      ...(Object.values(MRC402) as string[]),
      ...(Object.values(MRC400) as string[]),
      ...Object.values(LEGACY),
      LIFECYCLE,
    ];
    const decoded = decodedJobTypes();
    expect(named.filter((t) => !decoded.has(t) && !IGNORED.has(t))).toEqual([]);
    expect([...IGNORED]).toEqual([LIFECYCLE]);
    expect(named.every(isKnownJobType)).toBe(true);
    expect(isKnownJobType('mrc999_buy')).toBe(false);
  });

  it('gives every job type to exactly one family', () => {
    const seen = new Map<string, string>();
    for (const family of FAMILIES)
      for (const type of Object.keys(family.jobs)) {
        expect(seen.get(type), `${type} in ${family.name}`).toBeUndefined();
        seen.set(type, family.name);
      }
    expect(seen.size).toBe(decodedJobTypes().size);
  });
});
