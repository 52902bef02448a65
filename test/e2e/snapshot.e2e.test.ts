import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteReadStore } from '@mtc/adapters';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExplorerProcess } from '../support/explorer-process.ts';
import { expectedHolders, validEntries, type ExpectedHolder } from '../support/fungible-truth.ts';
import { indexWholeHistory } from '../support/index-history.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import {
  apiNftHolders,
  apiTokenHolders,
  byToken,
  expectCsvMatches,
  expectSnapshotOfWorldAt,
  expectTokensAscending,
  nftIds,
  readNdjson,
  runSnapshot,
  waitForNftRecords,
} from '../support/snapshot-checks.ts';
import { worldAt } from '../support/truth-at-height.ts';

/**
 * `npm run snapshot` on the file log of the all-in-one explorer, which keeps running (and writing
 * its log) meanwhile: at the head, the files equal the live API's holder lists (every token, every
 * MRC-402 and MRC-400 collection, all pages; the API's clock pinned to the head block's time, the
 * moment a head snapshot evaluates locks at); at an earlier height, they equal the devnet's ground
 * truth at that height, computed from its raw chain.
 */
describe('snapshot at a past height (embedded: the file log)', () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir: string;
  let outDir: string;
  let explorer: ExplorerProcess | undefined;
  let api = '';
  let head = 0;
  let env: Record<string, string | undefined> = {};

  beforeAll(async () => {
    devnet = recentDevnet(777, 1_200);
    head = devnet.height();
    node = await startDevnetServer(devnet, { port: 0 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-snapshot-e2e-'));
    outDir = await mkdtemp(join(tmpdir(), 'mtc-snapshot-out-'));
    env = { DATA_DIR: dataDir, KAFKA_BROKERS: undefined, MONGO_URL: undefined, REDIS_URL: undefined };
  }, 60_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    await node?.close();
    for (const dir of [dataDir, outDir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('indexes the devnet with the embedded explorer', async () => {
    const headTime = devnet.block(head)!.timestamp;
    explorer = await indexWholeHistory(devnet, dataDir, { CHAIN_NODE_URL: node.url, CLOCK_NOW_UNIX: String(headTime) });
    api = explorer.apiUrl;
    // NFT records come with the state topic: wait for the last of them before reading NFT holders.
    const ids = nftIds(devnet);
    expect(ids.length).toBeGreaterThan(4);
    await waitForNftRecords(api, ids);
  }, 700_000);

  it('computes the ground truth at a height from the raw chain the same as the world state at the head', () => {
    const world = devnet.worldState();
    const atHead = worldAt(devnet, head);
    expect(atHead.wallets).toEqual(world.wallets);
    expect(atHead.tokens).toEqual(
      Object.values(world.tokens)
        .map((t) => t.token)
        .sort((a, b) => a - b),
    );
    expect(atHead.mrc402s).toEqual(Object.keys(world.mrc402s).sort());
    expect(atHead.mrc400s).toEqual(Object.keys(world.mrc400s).sort());
  });

  it('writes, at the head, every token holder list and NFT holder list exactly as the live API pages them', async () => {
    const ids = nftIds(devnet);
    const scratchDir = await mkdtemp(join(tmpdir(), 'mtc-snapshot-tmp-'));
    const run = await runSnapshot({ ...env, TMPDIR: scratchDir }, [
      '--height',
      String(head),
      '--all-tokens',
      ...ids.flatMap((id) => ['--nft', id]),
      '--format',
      'ndjson',
      '--out',
      outDir,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toMatchObject({
      height: head,
      blockHash: devnet.block(head)!.id,
      blockTime: devnet.block(head)!.timestamp,
    });
    const [tokenFile, ...nftFiles] = run.result!.files;
    expect(tokenFile!.path).toBe(join(outDir, `token-holders-at-${head}.ndjson`));
    const rows = await readNdjson<ExpectedHolder>(tokenFile!);
    expectTokensAscending(rows);
    const got = byToken(rows);
    const tokens = Object.values(devnet.worldState().tokens).map((t) => t.token);
    let total = 0;
    for (const token of tokens) {
      const listed = await apiTokenHolders(api, token);
      total += listed.length;
      expect(got.get(token) ?? [], `token ${token}`).toEqual(listed);
    }
    expect(rows.length).toBe(total);
    // Locks are part of what is compared: the history holds locked balances at the head.
    expect(rows.some((r) => r.locks.length > 0)).toBe(true);

    expect(nftFiles.map((f) => f.path)).toEqual(ids.map((id) => join(outDir, `nft-${id}-holders-at-${head}.ndjson`)));
    for (const [i, id] of ids.entries()) {
      const nftRows = await readNdjson<unknown>(nftFiles[i]!);
      expect(nftRows, id).toEqual(await apiNftHolders(api, id));
    }
    // Progress went to stderr, the result alone to stdout; the scratch store is gone.
    expect(run.stderr).toMatch(/snapshot: [0-9]+\/[0-9]+ blocks .* blocks\/s, ETA/);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(await readdir(scratchDir)).toEqual([]);
    await rm(scratchDir, { recursive: true });
  }, 600_000);

  it('writes, at an earlier height, the holders the raw chain gives at that height, with locks as of its block time', async () => {
    const height = Math.floor(head / 2);
    const { ids, lockTime, rows } = await expectSnapshotOfWorldAt(env, devnet, height, outDir);
    expect(ids.length).toBeGreaterThan(2);
    // Not the head's holders: the state moved on after this height.
    const headTruth = worldAt(devnet, head);
    expect(rows).not.toEqual(headTruth.tokens.flatMap((t) => expectedHolders(headTruth.wallets, t, lockTime).holders));
    expect(rows.some((r) => r.locks.length > 0)).toBe(true);
  }, 600_000);

  it('writes CSV with the same rows (array cells as compact JSON) and one token alone', async () => {
    const height = Math.floor(head / 2);
    const world = worldAt(devnet, height);
    const lockTime = devnet.block(height)!.timestamp;
    const token = world.tokens.find((t) =>
      expectedHolders(world.wallets, t, lockTime).holders.some((h) => h.locks.length > 0),
    )!;
    const csvDir = join(outDir, 'csv');
    const run = await runSnapshot(env, ['--height', String(height), '--token', String(token), '--out', csvDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.result!.files[0]!.path).toBe(join(csvDir, `token-${token}-holders-at-${height}.csv`));
    await expectCsvMatches(run.result!.files[0]!, expectedHolders(world.wallets, token, lockTime).holders);
    // Only the finished file is left: no partial file, no scratch store in the output directory.
    expect(await readdir(csvDir)).toEqual([`token-${token}-holders-at-${height}.csv`]);

    // --keep-store keeps the replayed store, where the head is the snapshot's height.
    const kept = await runSnapshot(env, [
      '--height',
      String(height),
      '--token',
      String(token),
      '--out',
      csvDir,
      '--keep-store',
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    const scratch = (kept.result as unknown as { scratchStore: string }).scratchStore;
    const store = createSqliteReadStore({ path: join(scratch, 'read-models.sqlite') });
    try {
      expect(await store.collection('head').get('indexed')).toMatchObject({ height, hash: devnet.block(height)!.id });
    } finally {
      await store.close();
      await rm(scratch, { recursive: true, force: true });
    }
  }, 600_000);

  it('refuses a height above the log newest block, a token that does not exist yet, and bad flags, with one sentence and exit 1', async () => {
    const above = await runSnapshot(env, ['--height', String(head + 1), '--all-tokens', '--out', outDir]);
    expect(above.code).toBe(1);
    expect(above.stderr.trim()).toBe(`snapshot: height ${head + 1} is above the log's newest block (${head})`);

    const newestToken = Math.max(...worldAt(devnet, head).tokens);
    const created = [...validEntries(devnet)].find((e) => e.entry.datakey === `TOKEN_DATA_${newestToken}`)!.height;
    expect(created).toBeGreaterThan(1);
    const early = await runSnapshot(env, [
      '--height',
      String(created - 1),
      '--token',
      String(newestToken),
      '--out',
      outDir,
    ]);
    expect(early.code).toBe(1);
    expect(early.stderr.trim().split('\n').at(-1)).toBe(
      `snapshot: token ${newestToken} does not exist at height ${created - 1}`,
    );

    const bad = await runSnapshot(env, ['--height', 'ten', '--all-tokens']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^snapshot: --height must be a block height/);
    const none = await runSnapshot(env, ['--height', '5']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^snapshot: say what to list/);
  }, 300_000);
});
