import { decodedJobTypes, IGNORED } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import { DEFAULT_JOBS } from '../../services/devnet/src/jobs/registry.ts';

/**
 * The devnet and the decoder name job types from the same constants (@mtc/domain job-types.ts);
 * this holds them together: every type a devnet job can write is decoded by some job family or
 * ignored on purpose, so a family added to the devnet cannot go undecoded unnoticed. (It lives
 * here because @mtc/domain must not depend on @mtc/devnet.)
 */
describe('decoder coverage of the devnet', () => {
  it('decodes or explicitly ignores every job type a devnet job can write', () => {
    const decoded = decodedJobTypes();
    const written = DEFAULT_JOBS.flatMap((job) => job.writes.map((type) => ({ fcn: job.fcn, type })));
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter(({ type }) => !decoded.has(type) && !IGNORED.has(type))).toEqual([]);
  });
});
