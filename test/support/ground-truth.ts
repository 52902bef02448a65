import type { Devnet } from '@mtc/devnet';
import type { RawEntry } from '@mtc/domain';
import type { ReadStore } from '@mtc/ports';
import { canonicalJson, COLLECTIONS, type WalletDoc } from '@mtc/read-models';
import { expect } from 'vitest';
import { getJson } from './explorer-process.ts';

/**
 * Assertions that an API serves exactly the devnet's chain: every block, every transaction, every
 * list page, the daily statistics. Shared by the embedded and the distributed end-to-end tests.
 */

/** What /tx/{id} must serve for one node entry (spec: Transaction detail). */
export function expectedDetail(e: RawEntry, blockHash: string, height: number): unknown {
  const v = e.values ?? {};
  return {
    id: e.id,
    type: e.type,
    db_id: e.db_id ?? blockHash,
    db_sn: e.db_sn ?? String(height),
    token: String(e.token ?? ''),
    values: {
      tx_id: e.id,
      job_type: typeof v['job_type'] === 'string' ? v['job_type'] : e.type,
      jobdate: typeof v['jobdate'] === 'number' ? v['jobdate'] : e.timestamp,
      // A wallet's MRC-402 map (the spec: an object or null); a DEX402 order's `mrc402` is the id of
      // the NFT it trades, a string, which is not that map.
      mrc402: typeof v['mrc402'] === 'object' && !Array.isArray(v['mrc402']) ? (v['mrc402'] ?? null) : null,
    },
    address: e.address ?? '',
    datakey: e.datakey ?? '',
    timestamp: e.timestamp,
    parameters: Array.isArray(e.parameters)
      ? e.parameters.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)))
      : [JSON.stringify(e.parameters)],
    validationCode: e.validationCode ?? 0,
  };
}

export function totalTransactions(devnet: Devnet): number {
  let total = 0;
  for (let h = 1; h <= devnet.height(); h++) total += devnet.block(h)!.transaction.length;
  return total;
}

export async function expectBlocksMatch(api: string, devnet: Devnet): Promise<void> {
  for (let h = 1; h <= devnet.height(); h++) {
    const raw = devnet.block(h)!;
    const { status, body } = await getJson(`${api}/api/block/${h}`);
    expect(status).toBe(200);
    expect(body).toEqual({ id: raw.id, sn: raw.sn, timestamp: raw.timestamp, transaction: raw.transaction });
  }
  const byHash = await getJson(`${api}/api/block/${devnet.block(7)!.id}`);
  expect(byHash.body).toMatchObject({ sn: '7' });
}

export async function expectTransactionsMatch(api: string, devnet: Devnet): Promise<void> {
  for (let h = 1; h <= devnet.height(); h++) {
    const raw = devnet.block(h)!;
    for (const t of raw.transaction) {
      const { status, body } = await getJson(`${api}/api/tx/${t.id}`);
      expect(status).toBe(200);
      expect(body).toEqual(devnet.transaction(t.id)!.map((e) => expectedDetail(e, raw.id, h)));
    }
  }
}

/** Every block and transaction once, newest first, across all pages: no gap, no duplicate. */
export async function expectListsComplete(api: string, devnet: Devnet): Promise<void> {
  const heights: number[] = [];
  for (let page = 1; ; page++) {
    const { body } = await getJson<{ blocks: { height: number }[]; totalPages: number }>(
      `${api}/api/blocks?page=${page}&limit=50`,
    );
    heights.push(...body.blocks.map((b) => b.height));
    if (page >= body.totalPages) break;
  }
  expect(heights).toEqual(Array.from({ length: devnet.height() }, (_, i) => devnet.height() - i));

  const expectedIds: string[] = [];
  for (let h = devnet.height(); h >= 1; h--)
    expectedIds.push(
      ...devnet
        .block(h)!
        .transaction.map((t) => t.id)
        .reverse(),
    );
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await getJson<{ transactions: { id: string }[]; totalPages: number }>(
      `${api}/api/transactions?page=${page}&limit=50`,
    );
    ids.push(...body.transactions.map((t) => t.id));
    if (page >= body.totalPages) break;
  }
  expect(ids).toEqual(expectedIds);
}

export async function expectDailyCountsComplete(api: string, devnet: Devnet): Promise<void> {
  const { body } = await getJson<{ history: { count: number }[]; todaySoFar: number }>(`${api}/api/tx-stats?days=30`);
  expect(body.history.reduce((s, d) => s + d.count, 0)).toBe(totalTransactions(devnet));
  // The counters (minute buckets) and the daily read model agree on today once all is indexed.
  expect(body.todaySoFar).toBe(body.history.at(-1)?.count);
}

/**
 * The wallets as the chain holds them, in the read models' normalised form: "" and absent amounts
 * are 0 (legacy 3-field entries have no sale/auction amounts), `mrc402` null when never written.
 */
export function expectedWallets(devnet: Devnet): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const amount = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '0');
  for (const [address, wallet] of Object.entries(devnet.worldState().wallets)) {
    const w = wallet as unknown as Record<string, unknown> & { balance: Record<string, unknown>[] };
    const mrc402 = w['mrc402'] as Record<string, Record<string, unknown>> | null | undefined;
    out.set(address, {
      regdate: w['regdate'],
      addinfo: w['addinfo'] ?? '',
      balances: w.balance.map((b) => ({
        token: b['token'],
        balance: amount(b['balance']),
        unlockdate: b['unlockdate'],
        saleamount: amount(b['saleamount']),
        auctionamount: amount(b['auctionamount']),
      })),
      mrc402:
        mrc402 === null || mrc402 === undefined
          ? null
          : Object.fromEntries(
              Object.entries(mrc402).map(([id, h]) => [
                id,
                {
                  balance: amount(h['balance']),
                  saleamount: amount(h['saleamount']),
                  auctionamount: amount(h['auctionamount']),
                },
              ]),
            ),
    });
  }
  return out;
}

/**
 * Compares every field the read models keep of each wallet (registration, memo, balance entries,
 * MRC-402 map) with the chain's world state; the mismatching addresses, for a readable failure.
 */
export async function walletMismatches(store: ReadStore, devnet: Devnet): Promise<string[]> {
  const expected = expectedWallets(devnet);
  const docs = await store.collection<WalletDoc>(COLLECTIONS.wallets).find({});
  const got = new Map(
    docs.map((d) => [
      d._id,
      {
        regdate: d.regdate,
        addinfo: d.addinfo,
        balances: d.balances.map((b) => ({
          token: b.token,
          balance: b.balance,
          unlockdate: b.unlockdate,
          saleamount: b.saleamount,
          auctionamount: b.auctionamount,
        })),
        mrc402: d.mrc402,
      },
    ]),
  );
  const problems: string[] = [];
  if (got.size !== expected.size) problems.push(`${got.size} wallets indexed, ${expected.size} on chain`);
  for (const [address, want] of expected) {
    if (canonicalJson(got.get(address)) !== canonicalJson(want))
      problems.push(`${address}: indexed ${canonicalJson(got.get(address))} chain ${canonicalJson(want)}`);
  }
  return problems.slice(0, 5);
}

/**
 * Today so far and yesterday at the same time, at `now` (unix s), in a stats zone `offsetMinutes`
 * from UTC: the listed transactions of the blocks whose time falls in [midnight, now] resp. the
 * same span a day earlier, at the counters' minute resolution (the current minute counts whole).
 */
export function expectedTxStats(
  devnet: Devnet,
  now: number,
  offsetMinutes: number,
): { todaySoFar: number; yesterdaySameTime: number } {
  const day = 86_400;
  const offset = offsetMinutes * 60;
  const midnight = Math.floor((now + offset) / day) * day - offset;
  const minuteEnd = (t: number): number => (Math.floor(t / 60) + 1) * 60;
  let todaySoFar = 0;
  let yesterdaySameTime = 0;
  for (let h = 1; h <= devnet.height(); h++) {
    const b = devnet.block(h)!;
    if (b.timestamp >= midnight && b.timestamp < minuteEnd(now)) todaySoFar += b.transaction.length;
    if (b.timestamp >= midnight - day && b.timestamp < minuteEnd(now - day)) yesterdaySameTime += b.transaction.length;
  }
  return { todaySoFar, yesterdaySameTime };
}
