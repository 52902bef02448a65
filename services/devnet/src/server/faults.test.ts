import { describe, expect, it } from 'vitest';
import { createFaults, FAULT_KINDS, truncate } from './faults.ts';

const options = { faultRate: 1, faultSeed: 1, faultBlockMissingMs: 3_000 };

describe('createFaults', () => {
  it('draws only kinds that can happen on the route', () => {
    const faults = createFaults({ ...options, faultKinds: ['height-zero', 'tx-not-found', 'truncated-json'] });
    for (let i = 0; i < 50; i++) {
      expect(faults.draw('height')).toBe('height-zero');
      expect(['tx-not-found', 'truncated-json']).toContain(faults.draw('transaction'));
      expect(faults.draw('block')).toBe('truncated-json');
    }
    expect(createFaults({ ...options, faultKinds: ['tx-not-found'] }).draw('height')).toBeNull();
  });

  it('fails about the configured share of requests', () => {
    const faults = createFaults({ ...options, faultRate: 0.2, faultKinds: [...FAULT_KINDS] });
    let failed = 0;
    for (let i = 0; i < 5_000; i++) if (faults.draw('block') !== null) failed++;
    expect(failed / 5_000).toBeGreaterThan(0.17);
    expect(failed / 5_000).toBeLessThan(0.23);
  });

  it('hides a block for faultBlockMissingMs', () => {
    let now = 1_000;
    const faults = createFaults({ ...options, faultKinds: ['block-missing'] }, () => now);
    faults.hide(7);
    now += 2_999;
    expect(faults.isHidden(7)).toBe(true);
    expect(faults.isHidden(8)).toBe(false);
    now += 1;
    expect(faults.isHidden(7)).toBe(false);
  });

  it('hides a block from the first question about it when asked to, and until revealed for Infinity', () => {
    let now = 1_000;
    const faults = createFaults({ ...options, faultKinds: ['block-missing'] }, () => now);
    faults.hide(7, { forMs: 500, fromFirstAsk: true });
    now += 10_000;
    expect(faults.isHidden(7)).toBe(true);
    now += 499;
    expect(faults.isHidden(7)).toBe(true);
    now += 1;
    expect(faults.isHidden(7)).toBe(false);
    faults.hide(8, { forMs: Infinity });
    now += 1e9;
    expect(faults.isHidden(8)).toBe(true);
    faults.reveal(8);
    expect(faults.isHidden(8)).toBe(false);
  });

  it('counts the answers it altered by kind, every kind present', () => {
    const faults = createFaults({ ...options, faultKinds: [...FAULT_KINDS] });
    faults.injected('reset');
    faults.injected('reset');
    faults.injected('timeout');
    const counts = faults.counts();
    expect(Object.keys(counts).sort()).toEqual([...FAULT_KINDS].sort());
    expect(counts).toMatchObject({ reset: 2, timeout: 1, 'height-zero': 0 });
    counts.reset = 99;
    expect(faults.counts().reset).toBe(2);
  });
});

describe('truncate', () => {
  it('keeps at most half of a body and never all of it', () => {
    expect(truncate('{"a":1}')).toBe('{"a');
    expect(truncate('[]')).toBe('[');
  });
});
