import { writeSync } from 'node:fs';

/**
 * Named places where a fault-injection run may kill the process outright, as a power cut or the
 * kernel's OOM killer would: `FAULT_CRASH_AT=<point>[@<n>]` sends SIGKILL to the process the n-th
 * time (default: the first) it reaches that point. The points sit where a crash is most telling —
 * between a batch's data writes and its head write, between publishing a batch's state and its
 * checkpoint — which random kills hit only by luck. Unset (always, outside tests) the check is
 * one comparison.
 *
 * Points: `follower.published-state`, `follower.published-activity` (before the checkpoint),
 * `follower.published-blocks`; `projector.chain.write-<k>` (after the k-th write call of a block
 * batch: one call on an atomic store; else the "writing" head, the data phases, then the head),
 * `projector.chain.counted` (all written, not yet committed).
 */
const SPEC = /^([a-z][a-z0-9.-]{0,63})(?:@([1-9][0-9]{0,6}))?$/;

function parse(raw: string | undefined): { point: string; nth: number } | null {
  if (raw === undefined || raw === '') return null;
  const m = SPEC.exec(raw);
  if (!m) throw new Error(`FAULT_CRASH_AT=${raw}: expected <point>[@<n>], e.g. projector.chain.write-2@3`);
  return { point: m[1] as string, nth: Number(m[2] ?? 1) };
}

const armed = parse(process.env['FAULT_CRASH_AT']);
let reached = 0;

/** Kills this process with SIGKILL if `FAULT_CRASH_AT` names this point and this is the n-th time. */
export function crashPoint(point: string): void {
  if (armed === null || armed.point !== point) return;
  reached += 1;
  if (reached < armed.nth) return;
  // Synchronous, so the line is out before the signal: the test reads it to know where we died.
  writeSync(2, `crash point ${point}@${reached}: SIGKILL\n`);
  process.kill(process.pid, 'SIGKILL');
}
