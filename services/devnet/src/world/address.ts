import { isAddress } from '@mtc/domain';

const MAX_REMEMBERED = 200_000;
const remembered = new Map<string, boolean>();

/**
 * isAddress (MT + 30 characters + CRC-32) memoised: the same few thousand keys are checked on every call,
 * and the CRC was a fifth of generation time. It caches a pure function, so devnets may share it.
 */
export function isMtAddress(key: string): boolean {
  if (key.length !== 40 || !key.startsWith('MT')) return false;
  let known = remembered.get(key);
  if (known === undefined) {
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    known = isAddress(key);
    remembered.set(key, known);
  }
  return known;
}
