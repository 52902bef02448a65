import { createDevnet, DEFAULT_JOBS } from '@mtc/devnet';
import {
  decodedJobTypes,
  decodeTransaction,
  describeEntry,
  IGNORED,
  KnownActivity,
  LEGACY,
  StateWrite,
  unknownJobTypes,
} from '@mtc/domain';
import { describe, expect, it } from 'vitest';

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

  it('decodes a devnet history without unknown types, each activity valid against the topic contract', () => {
    const devnet = createDevnet({ seed: 11, genesisTime: 1_700_000_000, historyBlocks: 1_500, blockIntervalSec: 5 });
    const kinds = new Set<string>();
    const legacy: string[] = Object.values(LEGACY);
    let seq = 0;
    for (let height = 1; height <= devnet.height(); height++) {
      const block = devnet.block(height)!;
      block.transaction.forEach((t, index) => {
        const entries = devnet.transaction(t.id) ?? [];
        expect(unknownJobTypes(entries), `${t.id}`).toEqual([]);
        const tx = decodeTransaction({ height, index, seq: seq++, id: t.id, timestamp: t.timestamp }, entries);
        for (const raw of tx.activity) {
          const parsed = KnownActivity.safeParse(raw);
          expect(parsed.error, JSON.stringify(raw)).toBeUndefined();
          const a = parsed.data!;
          // Only the legacy families are shown as generic activity.
          if (a.kind === 'other') expect(legacy, `${t.id}: ${a.jobType}`).toContain(a.jobType);
          kinds.add(a.kind);
          // A settlement moved something, and says to whom it paid what.
          if (
            a.kind === 'buy' ||
            a.kind === 'buyRequestAccept' ||
            (a.kind === 'auctionFinish' && a.outcome !== 'failure')
          ) {
            expect(a.amount, JSON.stringify(a)).not.toBe('0');
            expect(a.payments.length, JSON.stringify(a)).toBeGreaterThan(0);
          }
        }
        for (const w of tx.writes) expect(StateWrite.safeParse(w).error, JSON.stringify(w)).toBeUndefined();
        for (const e of entries) expect(describeEntry(e).amount).toMatch(/^(0|[1-9][0-9]*)$/);
      });
    }
    expect(kinds.has('transfer')).toBe(true);
    for (const kind of ['nftCreate', 'nftTransfer', 'nftSell', 'nftBuy', 'nftAuction', 'nftBid', 'nftMelt'])
      expect(kinds.has(kind), kind).toBe(true);
  });
});
