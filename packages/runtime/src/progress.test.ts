import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration, trackCatchUp } from './progress.ts';

/** A stream that keeps what is written, a terminal or not. */
function capture(isTTY: boolean): { stream: Writable & { isTTY: boolean; columns: number }; text(): string } {
  let out = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        done();
      },
    }),
    { isTTY, columns: 120 },
  );
  return { stream, text: () => out };
}

/** A clock the test moves. */
function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('createProgress', () => {
  it('draws a bar with rate and ETA, redrawn in place, when the stream is a terminal', () => {
    const out = capture(true);
    const c = clock();
    const p = createProgress({ label: 'snapshot', unit: 'blocks', total: 1000, stream: out.stream, now: c.now });
    for (let done = 100; done <= 500; done += 100) {
      c.advance(1000);
      p.update(done);
    }
    p.stop();
    const text = out.text();
    // 100 blocks a second, 500 left: 5 s.
    expect(text).toMatch(/snapshot \[[^\]]+\] 50% \| 500\/1000 blocks \| 100 blocks\/s \| ETA 5s/);
    // Redrawn in place: a carriage return or cursor move, not one line per update.
    expect(text).toMatch(/\r|\x1b\[/);
    expect(text.split('\n').filter((l) => l.includes('snapshot')).length).toBeLessThanOrEqual(2);
  });

  it('writes plain lines at a modest rate when the stream is not a terminal, without escape codes', () => {
    const out = capture(false);
    const c = clock();
    const p = createProgress({
      label: 'snapshot',
      unit: 'blocks',
      total: 1000,
      stream: out.stream,
      now: c.now,
      everyMs: 5000,
    });
    for (let done = 10; done <= 1000; done += 10) {
      c.advance(100); // 100 blocks/s, 10 s in all
      p.update(done);
    }
    p.stop();
    const lines = out.text().trimEnd().split('\n');
    // The first update, one per 5 s after it, and the final state: not one per update.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(out.text()).not.toMatch(/\x1b|\r/);
    expect(lines.at(-1)).toBe('snapshot: 1000/1000 blocks (100.0%), 100 blocks/s, ETA 0s');
    expect(lines[1]).toMatch(/^snapshot: 5[0-9]0\/1000 blocks \(5[0-9]\.0%\), 100 blocks\/s, ETA [45]s$/);
  });

  it('logs JSON records through the given logger when not a terminal (logs stay JSON)', () => {
    const logs = capture(false);
    const stderr = capture(false);
    const logger = pino({ level: 'info' }, logs.stream);
    const c = clock();
    const p = createProgress({
      label: 'rebuild',
      unit: 'messages',
      total: 400,
      stream: stderr.stream,
      logger,
      now: c.now,
    });
    c.advance(2000);
    p.update(200);
    p.stop();
    expect(stderr.text()).toBe('');
    const records = logs
      .text()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      component: 'progress',
      msg: 'rebuild progress',
      done: 200,
      total: 400,
      unit: 'messages',
      percent: 50,
    });
  });

  it('says the ETA is unknown until a rate is measured', () => {
    const out = capture(false);
    const c = clock();
    const p = createProgress({ label: 'x', unit: 'blocks', total: 10, stream: out.stream, now: c.now });
    p.update(0);
    expect(out.text()).toBe('x: 0/10 blocks (0.0%), 0.0 blocks/s, ETA ?\n');
  });
});

describe('trackCatchUp', () => {
  it('shows nothing when the gap is small, and a catch-up from its start to its target when it is large', () => {
    const small = capture(false);
    const quiet = trackCatchUp({ label: 'backfill', unit: 'blocks', minGap: 100, stream: small.stream });
    quiet.observe(10, 50);
    quiet.observe(50, 50);
    expect(small.text()).toBe('');

    const out = capture(false);
    const c = clock();
    const t = trackCatchUp({ label: 'backfill', unit: 'blocks', minGap: 100, stream: out.stream, now: c.now });
    t.observe(1000, 3000);
    c.advance(10_000);
    t.observe(3000, 3000);
    t.observe(3000, 3500); // caught up once: the ordinary logs take over
    expect(out.text().trimEnd().split('\n')).toEqual([
      'backfill: 0/2000 blocks (0.0%), 0.0 blocks/s, ETA ?',
      'backfill: 2000/2000 blocks (100.0%), 200 blocks/s, ETA 0s',
    ]);
  });
});

describe('formatDuration', () => {
  it('formats seconds, minutes and hours', () => {
    expect([formatDuration(42), formatDuration(185), formatDuration(3720), formatDuration(null)]).toEqual([
      '42s',
      '3m05s',
      '1h02m',
      '?',
    ]);
  });
});
