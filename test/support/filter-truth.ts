import type { Devnet } from '@mtc/devnet';
import { expect } from 'vitest';
import { getJson } from './explorer-process.ts';
import { readAllPages, validEntries } from './fungible-truth.ts';

/**
 * Ground truth for the activity filters, read from the raw chain: each transfer and receive entry's
 * token and parties as the chaincode's job_args lay them out (transfer: from, to, amount, tokenId …;
 * metacoin-chain.md §4), per (address, tx). The filtered lists are checked against it for those rows,
 * and against the whole list's rows (whose ids the chain's wallet writes give) for every row.
 */
export function transferTruth(devnet: Devnet): Map<string, { token: number; direction: ('in' | 'out')[] }> {
  const truth = new Map<string, { token: number; direction: ('in' | 'out')[] }>();
  for (const { txId, entry } of validEntries(devnet)) {
    if ((entry.type !== 'transfer' && entry.type !== 'receive') || !Array.isArray(entry.parameters)) continue;
    const [from, to, , token] = entry.parameters as string[];
    const address = entry.datakey ?? '';
    if (!entry.values || (address !== from && address !== to)) continue;
    const direction: ('in' | 'out')[] = [];
    if (address === from) direction.push('out');
    if (address === to) direction.push('in');
    truth.set(`${address}:${txId}`, { token: Number(token), direction });
  }
  return truth;
}

/** The block heights whose time is within [from, to], as a height span (null: none). */
export function heightSpan(devnet: Devnet, from: number, to: number): { lo: number; hi: number } | null {
  let lo = 0;
  let hi = 0;
  for (let h = 1; h <= devnet.height(); h++) {
    const t = devnet.block(h)!.timestamp;
    if (t < from || t > to) continue;
    if (lo === 0) lo = h;
    hi = h;
  }
  return lo === 0 ? null : { lo, hi };
}

export interface ActivityRow {
  tx_id: string;
  db_sn: string;
  job_type: string;
  from: string;
  to: string;
  tokenId: number | null;
  kind: string;
}

type Filter = { token?: number; direction?: 'in' | 'out'; kind?: string };

/** Whether a row of `address`'s list belongs in the list filtered by `f`. */
export function rowMatches(address: string, row: ActivityRow, f: Filter): boolean {
  if (f.token !== undefined && row.tokenId !== f.token) return false;
  if (f.kind !== undefined && row.kind !== f.kind) return false;
  if (f.direction === 'out' && row.from !== address) return false;
  if (f.direction === 'in' && row.to !== address) return false;
  return true;
}

/** The most frequent values of `pick` among `rows`, at most `n`. */
export function commonest<T, V>(rows: readonly T[], pick: (row: T) => V | null, n: number): V[] {
  const counts = new Map<V, number>();
  for (const r of rows) {
    const v = pick(r);
    if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([v]) => v);
}

/** Every combination of the given values of each dimension, each dimension also left open. */
export function combinations(tokens: number[], kinds: string[]): Filter[] {
  const out: Filter[] = [];
  for (const token of [undefined, ...tokens])
    for (const direction of [undefined, 'in' as const, 'out' as const])
      for (const kind of [undefined, ...kinds]) {
        const f: Filter = {};
        if (token !== undefined) f.token = token;
        if (direction !== undefined) f.direction = direction;
        if (kind !== undefined) f.kind = kind;
        out.push(f);
      }
  return out;
}

export const query = (f: Record<string, string | number | undefined>): string =>
  Object.entries(f)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/**
 * Reads a filtered list whole (limit 100) and its deepest page at limit 1 (one row, read by its
 * number like page 1): both must give the rows `want` (tx ids, newest first) and its exact total.
 */
export async function expectFiltered(url: string, want: readonly string[], label: string): Promise<void> {
  const { rows, total } = await readAllPages<ActivityRow>(url, (b) => b['data'] as ActivityRow[]);
  expect(total, label).toBe(want.length);
  expect(
    rows.map((r) => r.tx_id),
    label,
  ).toEqual(want);
  if (want.length === 0) return;
  const sep = url.includes('?') ? '&' : '?';
  const deep = await getJson<{ total: number; data: ActivityRow[] }>(`${url}${sep}limit=1&page=${want.length}`);
  expect(
    deep.body.data.map((r) => r.tx_id),
    `${label}: last page at limit 1`,
  ).toEqual([want.at(-1)]);
}
