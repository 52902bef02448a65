import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, type ExplorerProcess } from '../support/explorer-process.ts';
import { chainIndex, expectedHolders, readAllPages } from '../support/fungible-truth.ts';
import { indexWholeHistory } from '../support/index-history.ts';
import { expectedCollectionHolders, expectedMrc402Holders, withRecordIds } from '../support/nft-truth.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { nftIds, waitForNftRecords } from '../support/snapshot-checks.ts';

/**
 * Every export against the API's paged list of the same rows, at the same indexed height, on a
 * real devnet history (seed 777, 1,200 blocks: every job family) indexed by the all-in-one process.
 * The node is served from this process and makes no new blocks, so the head does not move while
 * the two are read. Each export is read in both formats (NDJSON, and CSV through a real CSV
 * parser) and checked three ways: its rows equal the list's (facts and series reversed, as exports
 * are oldest first; holders compared as sets, then the export's own address order checked); its
 * height (header, first line) is the API's head; and its rows match the devnet's own chain or
 * world state where that is cheap to compute — so the exports are not only held to our own lists.
 *
 * EXPORT_PAGE_ROWS is small and odd so every export crosses many store pages.
 */

type Row = Record<string, unknown>;
type Format = 'csv' | 'ndjson';

/** The row fields of each export, in order: the CSV header (the OpenAPI components of the rows). */
const COLUMNS = {
  txs: [
    'id',
    'type',
    'from',
    'to',
    'amount',
    'token',
    'blockNum',
    'blockTs',
    'tokenSymbol',
    'tokenName',
    'tokenDecimal',
  ],
  activity: [
    'job_type',
    'jobdate',
    'tx_id',
    'db_sn',
    'summary',
    'from',
    'to',
    'amount',
    'nftId',
    'tokenName',
    'tokenSymbol',
    'parentName',
    'tokenId',
    'kind',
  ],
  transfers: ['type', 'from', 'to', 'amount', 'token', 'timestamp', 'tx_id', 'block_sn', 'recipients', 'memo', 'kind'],
  tokenHolders: ['address', 'balance', 'token', 'lock_balance', 'unlockdate', 'locks'],
  nftHolders: ['address', 'amount', 'sellAmount', 'auctionAmount', 'total', 'ratio'],
  daily: ['date', 'count'],
} as const;

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byAddress = <T extends { address: string }>(rows: readonly T[]): T[] =>
  [...rows].sort((a, b) => byteOrder(a.address, b.address));

/** A CSV cell as the exports document it: arrays and objects as compact JSON, a missing field empty. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
}

interface ExportRead {
  /** The X-Indexed-Height header. */
  header: number;
  /** The height the first line states. */
  firstLine: number;
  /** NDJSON: the first line's object; CSV: {}. */
  meta: Row;
  /** NDJSON: the rows as objects. CSV: each record as {column: cell text}. */
  rows: Row[];
}

/** Reads one export whole, checking its status, media type, first line, header row and that it was not cut short. */
async function readExport(url: string, format: Format, columns: readonly string[]): Promise<ExportRead> {
  const sep = url.includes('?') ? '&' : '?';
  const res = await fetch(`${url}${sep}format=${format}`);
  const text = await res.text();
  expect(res.status, `${url} ${format}: ${text.slice(0, 300)}`).toBe(200);
  expect(res.headers.get('content-type'), url).toContain(format === 'csv' ? 'text/csv' : 'application/x-ndjson');
  const header = Number(res.headers.get('x-indexed-height'));
  const lines = text.split('\n');
  expect(lines.at(-1), `${url}: ends with a newline`).toBe('');
  if (format === 'ndjson') {
    const [first, ...rest] = lines.slice(0, -1).map((l) => JSON.parse(l) as Row);
    const rows = rest;
    expect(
      rows.filter((r) => 'error' in r),
      `${url}: an error line`,
    ).toEqual([]);
    return { header, firstLine: first!['indexed_height'] as number, meta: first!, rows };
  }
  const heightLine = /^# indexed_height=([0-9]+)$/.exec(lines[0]!);
  expect(heightLine, `${url}: first line ${lines[0]}`).not.toBeNull();
  expect(
    lines.filter((l) => l.startsWith('# error')),
    `${url}: an error line`,
  ).toEqual([]);
  // As a reader of the file would: the comment line skipped by the parser, the header row named.
  const records: string[][] = parse(text, { comment: '#', comment_no_infix: true });
  const [head, ...body] = records;
  expect(head, `${url}: CSV header`).toEqual(columns);
  const rows = body.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])));
  return { header, firstLine: Number(heightLine![1]), meta: {}, rows };
}

/** The list items as the CSV export must write them: one text cell per column. */
const asCsv = (items: readonly Row[], columns: readonly string[]): Row[] =>
  items.map((item) => Object.fromEntries(columns.map((c) => [c, cell(item[c])])));

describe('exports end to end: each export equals the paged list at the same height (embedded adapters)', () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;
  let api = '';
  let head = 0;
  let now = 0;
  let world: ReturnType<Devnet['worldState']>;

  beforeAll(async () => {
    devnet = recentDevnet(777, 1_200);
    head = devnet.height();
    world = withRecordIds(devnet.worldState());
    // The API's clock just after the head block: today is the head's day, and locks have known answers.
    now = devnet.block(head)!.timestamp + 60;
    node = await startDevnetServer(devnet, { port: 0 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-exports-e2e-'));
  }, 60_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    await node?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * Reads an export in both formats and checks what every export must hold: the header height,
   * the first line's and the API's head are one height; the CSV says what the NDJSON says. Gives
   * the NDJSON rows.
   */
  async function exportRows(path: string, columns: readonly string[]): Promise<{ rows: Row[]; meta: Row }> {
    const { body: chain } = await getJson<{ localBlock: number }>(`${api}/api/chain`);
    expect(chain.localBlock).toBe(head);
    const ndjson = await readExport(`${api}${path}`, 'ndjson', columns);
    const csv = await readExport(`${api}${path}`, 'csv', columns);
    for (const read of [ndjson, csv]) {
      expect(read.header, `${path}: X-Indexed-Height`).toBe(head);
      expect(read.firstLine, `${path}: first line`).toBe(head);
    }
    expect(csv.rows, `${path}: CSV vs NDJSON`).toEqual(asCsv(ndjson.rows, columns));
    return { rows: ndjson.rows, meta: ndjson.meta };
  }

  /** Every transaction of /transactions, walked page by page (50 a page, the most it gives), newest first. */
  async function listedTxs(): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 1; ; page++) {
      const { status, body } = await getJson<{ transactions: Row[]; totalPages: number; currentBlock: number }>(
        `${api}/api/transactions?page=${page}&limit=50`,
      );
      expect(status).toBe(200);
      expect(body.currentBlock).toBe(head);
      rows.push(...body.transactions);
      if (page >= body.totalPages) return rows;
    }
  }

  /** The chain's transaction ids of blocks lo … hi, in chain order (the devnet's own blocks). */
  function chainTxIds(keep: (block: { height: number; timestamp: number }) => boolean): string[] {
    const ids: string[] = [];
    for (let h = 1; h <= head; h++) {
      const b = devnet.block(h)!;
      if (keep({ height: h, timestamp: b.timestamp })) ids.push(...b.transaction.map((t) => t.id));
    }
    return ids;
  }

  it('indexes the whole history of a chain that does not move', async () => {
    explorer = await indexWholeHistory(devnet, dataDir, {
      CHAIN_NODE_URL: node.url,
      CLOCK_NOW_UNIX: String(now),
      EXPORT_PAGE_ROWS: '37',
    });
    api = explorer.apiUrl;
    // NFT records come with the state topic: wait for every one before reading NFT holders.
    const ids = nftIds(devnet);
    await waitForNftRecords(api, ids);
  }, 700_000);

  it('exports every transaction as /transactions lists them, oldest first, and as the chain holds them', async () => {
    const listed = await listedTxs();
    const { rows, meta } = await exportRows('/api/export/txs?fromHeight=1', COLUMNS.txs);
    expect(rows).toEqual([...listed].reverse());
    expect(meta).toMatchObject({ indexed_height: head, export: 'txs', fromHeight: 1, toHeight: head });
    // Ground truth: every transaction of the devnet's blocks, once, in chain order.
    expect(rows.map((r) => r['id'])).toEqual(chainTxIds(() => true));
    expect(rows.length).toBeGreaterThan(1_000);
  }, 300_000);

  it('exports a height range and a time range as the list’s rows of those blocks', async () => {
    const listed = [...(await listedTxs())].reverse();
    const [lo, hi] = [Math.floor(head / 3), Math.floor((2 * head) / 3)];
    const byHeight = await exportRows(`/api/export/txs?fromHeight=${lo}&toHeight=${hi}`, COLUMNS.txs);
    const wantHeight = listed.filter((r) => (r['blockNum'] as number) >= lo && (r['blockNum'] as number) <= hi);
    expect(byHeight.rows).toEqual(wantHeight);
    expect(byHeight.rows.map((r) => r['id'])).toEqual(chainTxIds((b) => b.height >= lo && b.height <= hi));
    expect(byHeight.rows.length).toBeGreaterThan(100);

    // A time window from a second after block lo's time to a second before block hi's.
    const from = devnet.block(lo)!.timestamp + 1;
    const to = devnet.block(hi)!.timestamp - 1;
    const byTime = await exportRows(`/api/export/txs?fromTime=${from}&toTime=${to}`, COLUMNS.txs);
    const wantTime = listed.filter((r) => (r['blockTs'] as number) >= from && (r['blockTs'] as number) <= to);
    expect(byTime.rows).toEqual(wantTime);
    expect(byTime.rows.map((r) => r['id'])).toEqual(chainTxIds((b) => b.timestamp >= from && b.timestamp <= to));
    expect(byTime.rows.length).toBeGreaterThan(100);
    // Block timestamps are client times and may run backwards, so the window is not a height range:
    // it only has to leave out what lies outside it.
    expect(byTime.rows.length).toBeLessThan(listed.length / 2);
  }, 300_000);

  it('exports the activity of the busiest addresses and of a quiet one as /address/{id}/txs, oldest first', async () => {
    const { addressTxs } = chainIndex(devnet);
    const ranked = [...addressTxs].sort((a, b) => b[1].length - a[1].length);
    const quiet = ranked.findLast(([, ids]) => ids.length >= 2)!;
    const chosen = [...ranked.slice(0, 3), quiet];
    expect(ranked[0]![1].length).toBeGreaterThan(100);
    for (const [address, chainIds] of chosen) {
      const listed = await readAllPages<Row>(`${api}/api/address/${address}/txs`, (b) => b['data'] as Row[]);
      const { rows, meta } = await exportRows(`/api/export/address/${address}/activity`, COLUMNS.activity);
      expect(meta, address).toMatchObject({ indexed_height: head, address });
      expect(rows, address).toEqual([...listed.rows].reverse());
      // Ground truth: one row per write of the wallet (or move of its items), in chain order.
      expect(
        rows.map((r) => r['tx_id']),
        address,
      ).toEqual(chainIds);
    }
  }, 300_000);

  it('exports every token’s transfers, token 0 included, as /token/{id}/txs, oldest first', async () => {
    const { transfers } = chainIndex(devnet);
    const tokens = Object.values(world.tokens).map((t) => t.token);
    expect(tokens).toContain(0);
    for (const token of tokens) {
      const listed = await readAllPages<Row>(`${api}/api/token/${token}/txs`, (b) => b['data'] as Row[]);
      const { rows, meta } = await exportRows(`/api/export/token/${token}/transfers`, COLUMNS.transfers);
      expect(meta, `token ${token}`).toMatchObject({ indexed_height: head, token });
      expect(rows, `token ${token}`).toEqual([...listed.rows].reverse());
      // Ground truth: every transfer of the token on chain is a row.
      const ids = new Set(rows.map((r) => r['tx_id']));
      const missing = [...(transfers.get(token) ?? [])].filter((id) => !ids.has(id));
      expect(missing, `token ${token}: chain transfers not exported`).toEqual([]);
    }
  }, 300_000);

  it('exports every token’s holders, token 0 included, in address order: the list’s rows and the world state’s balances', async () => {
    let locked = 0;
    for (const token of Object.values(world.tokens).map((t) => t.token)) {
      const listed = await readAllPages<{ address: string }>(
        `${api}/api/token/${token}/holders`,
        (b) => b['holders'] as { address: string }[],
      );
      const { rows } = await exportRows(`/api/export/token/${token}/holders`, COLUMNS.tokenHolders);
      const addresses = rows.map((r) => r['address'] as string);
      expect(addresses, `token ${token}: address order, each once`).toEqual([...new Set(addresses)].sort(byteOrder));
      expect(rows, `token ${token}`).toEqual(byAddress(listed.rows));
      // Ground truth: the devnet's wallets, balances and locks at the API's clock.
      expect(rows, `token ${token} vs the world state`).toEqual(
        byAddress(expectedHolders(world.wallets, token, now).holders),
      );
      locked += rows.filter((r) => (r['locks'] as unknown[]).length > 0).length;
    }
    expect(locked, 'holders with a lock: the locks column is exercised').toBeGreaterThan(0);
  }, 300_000);

  it('exports the holders of every MRC-402 and every MRC-400 collection in address order, as /nft-holders lists them', async () => {
    const items = Object.values(world.mrc401s);
    const ids = nftIds(devnet);
    expect(ids.some((id) => id.startsWith('MRC402_'))).toBe(true);
    expect(ids.some((id) => id.startsWith('MRC400_'))).toBe(true);
    const held = new Set<string>();
    for (const id of ids) {
      const listed = await readAllPages<{ address: string }>(
        `${api}/api/nft-holders?id=${id}`,
        (b) => b['holders'] as { address: string }[],
      );
      const { rows, meta } = await exportRows(`/api/export/nft/${id}/holders`, COLUMNS.nftHolders);
      expect(meta, id).toMatchObject({ indexed_height: head, id });
      const addresses = rows.map((r) => r['address'] as string);
      expect(addresses, `${id}: address order, each once`).toEqual([...new Set(addresses)].sort(byteOrder));
      expect(rows, id).toEqual(byAddress(listed.rows));
      const truth = id.startsWith('MRC402_')
        ? expectedMrc402Holders(id, world.wallets).holders
        : expectedCollectionHolders(id, items).holders;
      expect(rows, `${id} vs the world state`).toEqual(byAddress(truth as { address: string }[]));
      if (rows.length > 0) held.add(id.slice(0, 6));
    }
    // Some of each kind have holders (a collection may have no items yet): both views are exercised.
    expect([...held].sort()).toEqual(['MRC400', 'MRC402']);
  }, 300_000);

  it('exports the daily transaction counts as /tx-stats history gives them, and as the chain’s blocks count them', async () => {
    const day = (t: number): string => new Date(t * 1000).toISOString().slice(0, 10);
    // From two days before the first block to today (the head's day), in UTC (the default zone).
    const fromDate = day(devnet.block(1)!.timestamp - 2 * 86_400);
    const today = day(now);
    const days = Math.round((Date.parse(today) - Date.parse(fromDate)) / 86_400_000) + 1;
    expect(days).toBeLessThanOrEqual(90);
    const { body } = await getJson<{ history: Row[] }>(`${api}/api/tx-stats?days=${days}`);
    const { rows, meta } = await exportRows(`/api/export/stats/daily-txs?fromDate=${fromDate}`, COLUMNS.daily);
    expect(meta).toMatchObject({ indexed_height: head, fromDate, toDate: today });
    expect(rows).toEqual(body.history);
    // Ground truth: the devnet's blocks' transactions by UTC day, 0 for a day without blocks.
    const perDay = new Map<string, number>();
    for (let h = 1; h <= head; h++) {
      const b = devnet.block(h)!;
      perDay.set(day(b.timestamp), (perDay.get(day(b.timestamp)) ?? 0) + b.transaction.length);
    }
    expect(rows.map((r) => [r['date'], r['count']])).toEqual(
      rows.map((r) => [r['date'], perDay.get(r['date'] as string) ?? 0]),
    );
    // Its own order: every day from fromDate to today once, oldest first.
    const start = Date.parse(fromDate) / 1000;
    expect(rows.map((r) => r['date'])).toEqual(Array.from({ length: days }, (_, i) => day(start + i * 86_400)));
    expect(rows[0]).toEqual({ date: fromDate, count: 0 });
    expect(rows.reduce((s, r) => s + (r['count'] as number), 0)).toBe(chainTxIds(() => true).length);
  }, 120_000);
});
