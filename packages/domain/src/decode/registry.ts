import { LIFECYCLE } from '../job-types.ts';
import { dex010Family } from './dex010.ts';
import type { Family, JobDecoder } from './family.ts';
import { legacyFamily } from './legacy.ts';
import { mrc010Family } from './mrc010.ts';
import { mrc400Family } from './mrc400.ts';
import { mrc402Family } from './mrc402.ts';

/** The job families the decoder knows: add a family module and one line here. */
export const FAMILIES: readonly Family[] = [mrc010Family, dex010Family, mrc402Family, mrc400Family, legacyFamily];

/**
 * Job types deliberately not decoded: no activity, no summary of their own, not counted as
 * unknown. The lifecycle entry of a chaincode install/upgrade writes no business state.
 */
export const IGNORED: ReadonlySet<string> = new Set([LIFECYCLE]);

let table: ReadonlyMap<string, JobDecoder> | undefined;

/** Job type → decoder, built on first use; a type claimed by two families is a programming error. */
function decoders(): ReadonlyMap<string, JobDecoder> {
  if (table) return table;
  const map = new Map<string, JobDecoder>();
  const owner = new Map<string, string>();
  for (const family of FAMILIES)
    for (const [type, decoder] of Object.entries(family.jobs)) {
      const other = owner.get(type);
      if (other !== undefined) throw new Error(`job type ${type} is decoded by both ${other} and ${family.name}`);
      if (IGNORED.has(type)) throw new Error(`job type ${type} is both decoded by ${family.name} and ignored`);
      owner.set(type, family.name);
      map.set(type, decoder);
    }
  return (table = map);
}

export function decoderFor(jobType: string): JobDecoder | undefined {
  return decoders().get(jobType);
}

/** Every job type some family decodes. */
export function decodedJobTypes(): ReadonlySet<string> {
  return new Set(decoders().keys());
}

/** Whether the decoder knows a job type (decodes it or ignores it on purpose). */
export function isKnownJobType(jobType: string): boolean {
  return IGNORED.has(jobType) || decoders().has(jobType);
}
