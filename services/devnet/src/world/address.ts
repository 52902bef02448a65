import { isAddress } from '@mtc/domain';

const MAX_REMEMBERED = 200_000;
const remembered = new Map<string, boolean>();

/**
 * isAddress (MT + 30 characters + CRC-32) remembered per key: the chaincode and the bridge check the
 * same few thousand keys on every call, and the CRC was a fifth of generation time. The memo only
 * caches a pure function, so it is safe to share between devnets.
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
