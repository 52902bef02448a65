/**
 * A chain position as a string that sorts in chain order: height, transaction index in the block,
 * entry index in the transaction. Read models guard every last-write-wins update with it.
 */
export function chainPos(height: number, txIndex = 0, entryIndex = 0): string {
  return `${pad(height, 12)}:${pad(txIndex, 6)}:${pad(entryIndex, 6)}`;
}

/** The position just after everything in `height`: guards per-block aggregates. */
export function blockPos(height: number): string {
  return `${pad(height, 12)}:999999:999999`;
}

function pad(n: number, width: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`bad position component ${n}`);
  const s = String(n);
  if (s.length > width) throw new RangeError(`position component ${n} exceeds ${width} digits`);
  return s.padStart(width, '0');
}
