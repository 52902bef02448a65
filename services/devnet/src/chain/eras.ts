import type { ChaincodeVersion } from '../chaincode/versions.ts';

/** From height `from` on (until the next era), chaincode `version` is installed. */
export interface ChaincodeEra {
  readonly version: ChaincodeVersion;
  readonly from: number;
}

/**
 * How the legacy part of a history is split over the legacy versions, oldest first. The shares
 * follow the versions' time on mainnet only roughly (2.0: a month; 2.1: half a year; 2.1 with
 * MRC-800: a year; 2.2: two months), squeezed so that each version writes a fair number of records.
 */
const LEGACY_SPLIT: readonly (readonly [ChaincodeVersion, number])[] = [
  ['v2.0', 0.15],
  ['v2.1', 0.25],
  ['v2.1-mrc800', 0.4],
  ['v2.2', 0.2],
];

/**
 * The share of the post-legacy history that runs `v2.3` (CC-m, mainnet's chaincode before the
 * MRC-401 upgrade: old MRC-400/401 argument layouts) before the current one (CC-t) is installed.
 * On mainnet that was about 14 months of the 2.3 line; a third keeps both layouts well represented.
 */
const V23_SHARE = 0.3;

/**
 * The chaincode versions over a history: the first `legacyShare` of its blocks run the legacy
 * chaincode (CC-22 behaviour, with each version's record shapes; see families/mrc010/codec.ts), the next
 * V23_SHARE of the rest `v2.3`, and the remainder and every live block the current one. Block 1 (the genesis wallets and MTC) was written by the oldest,
 * pre-2.0 chaincode; block 2's lifecycle transaction is the upgrade to 2.0. Each later version starts
 * with a lifecycle transaction of its own (block-builder.ts).
 */
export function planEras(historyBlocks: number, legacyShare: number): readonly ChaincodeEra[] {
  const legacyBlocks = Math.round(historyBlocks * legacyShare);
  if (legacyBlocks < 2) return [{ version: 'current', from: 1 }];
  const eras: ChaincodeEra[] = [{ version: 'v1', from: 1 }];
  // Heights 2 … legacyBlocks are split by share; an era squeezed to nothing is left out.
  let from = 2;
  let share = 0;
  for (const [version, part] of LEGACY_SPLIT) {
    const end = 2 + Math.round((legacyBlocks - 1) * (share + part));
    share += part;
    if (end > from) eras.push({ version, from });
    from = Math.max(from, end);
  }
  const v23Blocks = Math.round((historyBlocks - legacyBlocks) * V23_SHARE);
  if (v23Blocks > 0) eras.push({ version: 'v2.3', from: legacyBlocks + 1 });
  eras.push({ version: 'current', from: legacyBlocks + 1 + v23Blocks });
  return eras;
}

export function eraAt(eras: readonly ChaincodeEra[], height: number): ChaincodeEra {
  return eras.findLast((era) => era.from <= height) ?? eras[0]!;
}
