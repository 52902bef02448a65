import type { Devnet } from '@mtc/devnet';
import { worldAt, type WorldAt } from './truth-at-height.ts';

/**
 * Comparisons made while the index backfills: each answer is held to the devnet's world at the
 * height the answer names (X-Indexed-Height), computed from the raw chain (`worldAt`).
 */
export interface BackfillComparisons {
  /** Heights answers were compared at. */
  heights: Set<number>;
  compared: number;
  mismatches: string[];
  /** The world after block `height` (computed once per height). */
  world(height: number): WorldAt;
  /** GET `url`; the body and the height it is stamped with. */
  get<T>(url: string): Promise<{ status: number; height: number; body: T }>;
  /** Records one comparison of `got` with `want` at `height`. */
  compare(what: string, height: number, got: unknown, want: unknown): void;
}

export function backfillComparisons(devnet: Devnet): BackfillComparisons {
  const worlds = new Map<number, WorldAt>();
  const out: BackfillComparisons = {
    heights: new Set(),
    compared: 0,
    mismatches: [],
    world(height) {
      let w = worlds.get(height);
      if (!w) worlds.set(height, (w = worldAt(devnet, height)));
      return w;
    },
    async get<T>(url: string) {
      const res = await fetch(url);
      return { status: res.status, height: Number(res.headers.get('x-indexed-height')), body: (await res.json()) as T };
    },
    compare(what, height, got, want) {
      out.heights.add(height);
      out.compared++;
      const a = JSON.stringify(got);
      const b = JSON.stringify(want);
      if (a !== b && out.mismatches.length < 20)
        out.mismatches.push(`${what} at ${height}: got ${a.slice(0, 300)}, want ${b.slice(0, 300)}`);
    },
  };
  return out;
}
