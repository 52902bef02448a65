import { describe, expect, it } from 'vitest';
import { createConsistentReads, HeadMoved, type HeadSource } from './consistent.ts';
import type { Head } from './head.ts';
import { notFound } from './errors.ts';

const at = (height: number, writing = false): Head => ({ height, txCount: height * 2, writing });

/** A head whose fresh reads answer as `script` says, one entry per read; the last entry repeats. */
function scripted(script: Head[]): HeadSource {
  let i = 0;
  const next = async (): Promise<Head> => script[Math.min(i++, script.length - 1)]!;
  return { current: next, fresh: next };
}

const far = (): number => performance.now() + 5_000;

describe('createConsistentReads', () => {
  /** A build as the app's: reads at `head`, then validates. */
  const building = (reads: ReturnType<typeof createConsistentReads>, built: number[]) => async (head: Head) => {
    built.push(head.height);
    await reads.validate(head);
    return `state at ${head.height}`;
  };

  it('answers at the head it started with when the head is the same after the reads', async () => {
    const reads = createConsistentReads(scripted([at(7)]));
    const built: number[] = [];
    expect(await reads.atOneHeight(at(7), building(reads, built), { deadline: far() })).toBe('state at 7');
    expect(built).toEqual([7]);
  });

  it('builds again at the new head when the index moved during the reads', async () => {
    // After the first build the head reads 9 (moved), after the second still 9.
    const reads = createConsistentReads(scripted([at(9), at(9)]));
    const built: number[] = [];
    const told: number[] = [];
    const answer = await reads.atOneHeight(at(7), building(reads, built), {
      deadline: far(),
      onHead: (h) => told.push(h.height),
    });
    expect(answer).toBe('state at 9');
    expect(built).toEqual([7, 9]);
    expect(told).toEqual([7, 9]);
  });

  it('does not build while a batch is being written over the head, and waits for it', async () => {
    const reads = createConsistentReads(scripted([at(7, true), at(9), at(9)]));
    const built: number[] = [];
    await reads.atOneHeight(at(7, true), building(reads, built), { deadline: far() });
    expect(built).toEqual([9]);
  });

  it('treats a batch that began during the reads as a move, even at the same height', async () => {
    const reads = createConsistentReads(scripted([at(7, true), at(8), at(8)]));
    const built: number[] = [];
    await reads.atOneHeight(at(7), building(reads, built), { deadline: far() });
    expect(built).toEqual([7, 8]);
  });

  it('checks a "not found" against the head too: one thrown at a head that moved is built again', async () => {
    const reads = createConsistentReads(scripted([at(8), at(8)]));
    const answer = await reads.atOneHeight(
      at(7),
      async (head) => {
        if (head.height < 8) throw notFound('no such address');
        await reads.validate(head);
        return 'found';
      },
      { deadline: far() },
    );
    expect(answer).toBe('found');
  });

  it('passes a "not found" on when the head did not move', async () => {
    const reads = createConsistentReads(scripted([at(7)]));
    await expect(
      reads.atOneHeight(at(7), () => Promise.reject(notFound('no such address')), { deadline: far() }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('answers 503 when the index moves under every attempt until the deadline', async () => {
    let h = 1;
    const moving: HeadSource = { current: async () => at(++h), fresh: async () => at(++h) };
    const reads = createConsistentReads(moving);
    await expect(
      reads.atOneHeight(at(1), building(reads, []), { deadline: performance.now() + 30 }),
    ).rejects.toMatchObject({ status: 503 });
  });

  it('validate throws HeadMoved with the head it read', async () => {
    await expect(createConsistentReads(scripted([at(9)])).validate(at(7))).rejects.toEqual(new HeadMoved(at(9)));
    await expect(createConsistentReads(scripted([at(7)])).validate(at(7))).resolves.toBeUndefined();
  });
});
