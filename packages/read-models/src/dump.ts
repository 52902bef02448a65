import { createHash } from 'node:crypto';
import type { ReadStore } from '@mtc/ports';
import { rankDirs, rankedEntries, rankPages, type RankDirDoc, type RankPageDoc } from './holders/ranked.ts';
import { PROJECTION_SPECS } from './registry.ts';

/**
 * A canonical dump of the read models: every projection's documents in `_id` order, keys sorted,
 * hashed. Two stores with the same hash hold the same read models, whichever store, projector
 * count or replay produced them. Caches the API writes (`CACHE_MODELS`) are left out: what they
 * hold depends on which requests were served, not on the chain. For tests and batch checks: it
 * reads everything.
 *
 * Ranked lists are hashed by what they hold — per list its position and entries in order — and
 * their pages not on their own: how entries fall into pages depends on batch boundaries, which
 * differ between a run and its replay.
 */
export interface ReadModelDump {
  sha256: string;
  counts: Record<string, number>;
}

export async function dumpReadModels(store: ReadStore): Promise<ReadModelDump> {
  const hash = createHash('sha256');
  const counts: Record<string, number> = {};
  for (const { name } of PROJECTION_SPECS) {
    if (name === rankPages.name) continue;
    let docs = await store.collection(name).find({}, { sort: [['_id', 1]] });
    if (name === rankDirs.name) docs = await rankedContents(store, docs as RankDirDoc[]);
    counts[name] = docs.length;
    hash.update(`${name}\n`);
    for (const doc of docs) hash.update(`${canonicalJson(doc)}\n`);
  }
  return { sha256: hash.digest('hex'), counts };
}

async function rankedContents(store: ReadStore, dirs: readonly RankDirDoc[]) {
  const pages = store.collection<RankPageDoc>(rankPages.name);
  return Promise.all(
    dirs.map(async (dir) =>
      // A document that is no directory (a test's, a corrupt one) is hashed as it is.
      Array.isArray(dir.pages) ? { _id: dir._id, pos: dir.pos, entries: await rankedEntries(pages, dir) } : dir,
    ),
  );
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
