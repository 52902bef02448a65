import type { Devnet } from '@mtc/devnet';
import { expect } from 'vitest';
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

/**
 * An address's activity walked by its cursors while the index moves: down from page 1 by `next`
 * (once the index has moved past page 1's height), then back up by `prev` to the newest page. Held to the chain: the walk down lists the address's
 * transactions at or below the height page 1 names, newest first; the walk up every one at or
 * below the height its last page names, also newest first; each exactly once. `txs` are the
 * address's transactions in chain order with their heights. The heights the walk saw.
 */
export async function walkActivityByCursors(
  url: string,
  txs: readonly { id: string; height: number }[],
  during: BackfillComparisons,
  limit = 50,
): Promise<{ first: number; last: number }> {
  type Page = { data: { tx_id: string }[]; next: string | null; prev: string | null };
  const at = async (query: string) => {
    const r = await during.get<Page>(`${url}?${query}`);
    expect(r.status, `${url}?${query}`).toBe(200);
    return r;
  };
  const upTo = (h: number) => txs.filter((t) => t.height <= h).map((t) => t.id);
  let r = await at(`limit=${limit}`);
  const first = r.height;
  // Blocks arrive before the second page: wait (a minute at most) for the index to move on.
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    if ((await at('limit=1')).height > first) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const down: string[] = [];
  for (let n = 0; ; n++) {
    down.push(...r.body.data.map((d) => d.tx_id));
    if (r.body.next === null || n > txs.length) break;
    r = await at(`limit=${limit}&cursor=${encodeURIComponent(r.body.next)}`);
  }
  during.compare(`${url} by next from page 1`, first, down, upTo(first).reverse());
  const up: string[] = [];
  for (let n = 0; ; n++) {
    up.unshift(...r.body.data.map((d) => d.tx_id));
    if (r.body.prev === null || n > txs.length) break;
    r = await at(`limit=${limit + 7}&cursor=${encodeURIComponent(r.body.prev)}`);
  }
  // Each page by prev is put before the older ones: the list in its own order, newest first.
  during.compare(`${url} by prev to the newest page`, r.height, up, upTo(r.height).reverse());
  return { first, last: r.height };
}
