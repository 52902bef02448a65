import { describe, expect, it } from 'vitest';
import { createRng } from '../rng.ts';
import type { Job } from './job.ts';
import { pickJob } from './registry.ts';

const job = (fcn: string, writes: string[], outcomes?: string[]): Job => ({
  fcn,
  weight: 1,
  writes,
  ...(outcomes ? { outcomes } : {}),
  plan: () => null,
  execute: () => {},
});

/** The share of 20,000 draws that fall on `fcn`. */
function share(jobs: readonly Job[], written: ReadonlySet<string>, fcn: string): number {
  const rng = createRng(5);
  const world = { hasWritten: (type: string) => written.has(type) };
  let hits = 0;
  for (let i = 0; i < 20_000; i++) if (pickJob(rng, jobs, world).fcn === fcn) hits++;
  return hits / 20_000;
}

describe('pickJob', () => {
  const jobs = [job('old', ['a']), job('auction', ['b'], ['c'])];

  it('draws a job four times as often while the chain lacks a type it writes or leads to', () => {
    expect(share(jobs, new Set(['a']), 'auction')).toBeCloseTo(0.8, 1);
    expect(share(jobs, new Set(['a', 'b']), 'auction')).toBeCloseTo(0.8, 1);
  });

  it('draws by weight alone once the chain holds every type, or without a world', () => {
    expect(share(jobs, new Set(['a', 'b', 'c']), 'auction')).toBeCloseTo(0.5, 1);
    const rng = createRng(5);
    let hits = 0;
    for (let i = 0; i < 20_000; i++) if (pickJob(rng, jobs).fcn === 'auction') hits++;
    expect(hits / 20_000).toBeCloseTo(0.5, 1);
  });
});
