import { randomBytes } from 'node:crypto';

/**
 * Polls `check` until it returns true, failing after `timeoutMs`: tests wait for a condition,
 * never for a fixed time.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  {
    timeoutMs = 10_000,
    intervalMs = 10,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A name no other test (or earlier run against the same server) has used: `<prefix>-<random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
