import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Devnet } from '@mtc/devnet';
import { expect } from 'vitest';
import { getJson, waitFor } from './explorer-process.ts';
import { expectedHolders, readAllPages, type ExpectedHolder } from './fungible-truth.ts';
import { expectedCollectionHolders, expectedMrc402Holders } from './nft-truth.ts';
import { spawnService } from './service-process.ts';
import { worldAt, type WorldAt } from './truth-at-height.ts';

/** What `npm run snapshot` printed: one JSON line. */
export interface SnapshotResult {
  height: number;
  blockHash: string;
  blockTime: number;
  files: { path: string; rows: number; sha256: string }[];
}

export interface SnapshotRun {
  code: number | null;
  stdout: string;
  stderr: string;
  result?: SnapshotResult;
}

/** Runs the snapshot command as a user would (a child process); env names the log to read. */
export async function runSnapshot(
  env: Record<string, string | undefined>,
  args: readonly string[],
): Promise<SnapshotRun> {
  const p = spawnService('services/projector/src/snapshot/main.ts', env, args);
  const code = await p.exited;
  const stdout = p.stdout();
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const result = code === 0 ? (JSON.parse(last) as SnapshotResult) : undefined;
  return { code, stdout, stderr: p.stderr(), result };
}

/** Reads an NDJSON snapshot file, checking the printed row count and hash against its bytes. */
export async function readNdjson<T>(file: SnapshotResult['files'][number]): Promise<T[]> {
  const bytes = await readFile(file.path);
  expect(createHash('sha256').update(bytes).digest('hex'), `${file.path} hash`).toBe(file.sha256);
  const text = bytes.toString('utf8');
  const rows =
    text === ''
      ? []
      : text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as T);
  expect(rows.length, `${file.path} rows`).toBe(file.rows);
  return rows;
}

/** A row as RFC 4180 CSV writes it: arrays as compact JSON, a field quoted when it holds `"`, `,` or a newline. */
export function csvLine(values: readonly unknown[]): string {
  return values
    .map((v) => {
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',');
}

const TOKEN_COLUMNS = ['address', 'balance', 'token', 'lock_balance', 'unlockdate', 'locks'] as const;

/** The CSV file says what the NDJSON file of the same snapshot says, with a header, and its hash is of its bytes. */
export async function expectCsvMatches(file: SnapshotResult['files'][number], rows: readonly ExpectedHolder[]) {
  const bytes = await readFile(file.path);
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
  expect(file.rows).toBe(rows.length);
  const want = [TOKEN_COLUMNS.join(','), ...rows.map((r) => csvLine(TOKEN_COLUMNS.map((c) => r[c])))].join('\n');
  expect(bytes.toString('utf8')).toBe(`${want}\n`);
}

/** Token holder rows grouped by token, keeping the file's order within each token. */
export function byToken(rows: readonly ExpectedHolder[]): Map<number, ExpectedHolder[]> {
  const out = new Map<number, ExpectedHolder[]>();
  for (const r of rows) out.set(r.token, [...(out.get(r.token) ?? []), r]);
  return out;
}

/** The files' tokens come in ascending order, each once (the documented canonical order). */
export function expectTokensAscending(rows: readonly ExpectedHolder[]): void {
  const tokens = [...byToken(rows).keys()];
  expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
  const runs = rows.filter((r, i) => i === 0 || rows[i - 1]!.token !== r.token).length;
  expect(runs).toBe(tokens.length);
}

/** Every token's holders as of the snapshot's world, at lock time `lockTime`, vs the file. */
export function expectTokenHoldersAt(world: WorldAt, lockTime: number, rows: readonly ExpectedHolder[]): void {
  expectTokensAscending(rows);
  const got = byToken(rows);
  let holders = 0;
  for (const token of world.tokens) {
    const want = expectedHolders(world.wallets, token, lockTime).holders;
    holders += want.length;
    expect(got.get(token) ?? [], `token ${token} holders`).toEqual(want);
  }
  expect(rows.length).toBe(holders);
}

/** An NFT's holders as of the snapshot's world (an MRC-402 from the wallets, a collection from its items). */
export function expectedNftHoldersAt(world: WorldAt, id: string): unknown[] {
  return id.startsWith('MRC402_')
    ? expectedMrc402Holders(id, world.wallets).holders
    : expectedCollectionHolders(id, world.mrc401s).holders;
}

/** The NFT ids a devnet's world holds at the head: every MRC-402 and every MRC-400 collection. */
export function nftIds(devnet: Devnet): string[] {
  const world = devnet.worldState();
  return [...Object.keys(world.mrc402s), ...Object.keys(world.mrc400s)].sort();
}

/** Waits until the API serves every NFT record of `ids` (they come with the state topic, apart from the blocks). */
export async function waitForNftRecords(api: string, ids: readonly string[]): Promise<void> {
  await waitFor(
    'every NFT record',
    async () => {
      for (const id of ids) if ((await getJson(`${api}/api/nft/${id}`)).status !== 200) return undefined;
      return true;
    },
    120_000,
    500,
  );
}

/**
 * Snapshots every token and every NFT of the raw chain's world at `height` as NDJSON, and checks
 * the files against that world (locks as of the height's block time). Returns the token rows and
 * the NFT ids, for the caller's own checks.
 */
export async function expectSnapshotOfWorldAt(
  env: Record<string, string | undefined>,
  devnet: Devnet,
  height: number,
  outDir: string,
): Promise<{ world: WorldAt; lockTime: number; ids: string[]; rows: ExpectedHolder[] }> {
  const world = worldAt(devnet, height);
  const lockTime = devnet.block(height)!.timestamp;
  const ids = [...world.mrc402s, ...world.mrc400s];
  expect(ids.length).toBeGreaterThan(0);
  const run = await runSnapshot(env, [
    '--height',
    String(height),
    '--all-tokens',
    ...ids.flatMap((id) => ['--nft', id]),
    '--format',
    'ndjson',
    '--out',
    outDir,
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.result).toMatchObject({ height, blockHash: devnet.block(height)!.id, blockTime: lockTime });
  const [tokenFile, ...nftFiles] = run.result!.files;
  const rows = await readNdjson<ExpectedHolder>(tokenFile!);
  expectTokenHoldersAt(world, lockTime, rows);
  for (const [i, id] of ids.entries())
    expect(await readNdjson(nftFiles[i]!), id).toEqual(expectedNftHoldersAt(world, id));
  return { world, lockTime, ids, rows };
}

/** The live API's holder list of a token, every page. */
export async function apiTokenHolders(api: string, token: number): Promise<ExpectedHolder[]> {
  return (
    await readAllPages<ExpectedHolder>(`${api}/api/token/${token}/holders`, (b) => b['holders'] as ExpectedHolder[])
  ).rows;
}

/** The live API's holder list of an NFT, every page. */
export async function apiNftHolders(api: string, id: string): Promise<unknown[]> {
  return (await readAllPages<unknown>(`${api}/api/nft-holders?id=${id}`, (b) => b['holders'] as unknown[])).rows;
}
