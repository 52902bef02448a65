import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnet, startDevnetServer, type Devnet } from '@mtc/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import {
  expectBlocksMatch,
  expectDailyCountsComplete,
  expectListsComplete,
  expectTransactionsMatch,
  totalTransactions,
  walletMismatches,
} from '../support/ground-truth.ts';
import { createSqliteReadStore } from '@mtc/adapters';

/**
 * The whole pipeline against the devnet's ground truth: a history of 2,000+ transactions is
 * indexed by the real all-in-one process, which is SIGKILLed part-way and restarted; afterwards
 * every block and transaction the API serves must equal what the node holds, with nothing missing
 * and nothing twice.
 */
const DAY = 86_400;

interface ChainBody {
  localBlock: number;
  mainnetBlock: number;
}

describe('pipeline end to end (embedded adapters)', () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;
  let totalTxs = 0;
  let killedAt = 0;

  beforeAll(async () => {
    const now = Math.floor(Date.now() / 1000);
    devnet = createDevnet({ seed: 4242, genesisTime: now - 10 * DAY, historyBlocks: 900, blockIntervalSec: 900 });
    totalTxs = totalTransactions(devnet);
    // Some requests fail with the node's 412, so the follower's retries are part of the run.
    node = await startDevnetServer(devnet, { port: 0, faultRate: 0.03 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-e2e-'));
  }, 60_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    await node?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ CHAIN_NODE_URL: node.url, DATA_DIR: dataDir, FOLLOWER_BLOCK_CONCURRENCY: '2' });

  it('has a history of at least 2,000 transactions to index', () => {
    expect(totalTxs).toBeGreaterThanOrEqual(2000);
  });

  it('survives a SIGKILL part-way through indexing', async () => {
    explorer = await spawnExplorer(env());
    const first = explorer;
    killedAt = await waitFor('indexing to start', async () => {
      const { body } = await getJson<ChainBody>(`${first.apiUrl}/api/chain`);
      return body.localBlock > 0 ? body.localBlock : undefined;
    });
    await first.kill('SIGKILL');
    expect(killedAt).toBeLessThan(devnet.height());

    explorer = await spawnExplorer(env());
    const second = explorer;
    const done = await waitFor(
      'the index to reach the node head',
      async () => {
        const { body } = await getJson<ChainBody>(`${second.apiUrl}/api/chain`);
        return body.localBlock === devnet.height() ? body : undefined;
      },
      120_000,
      100,
    );
    expect(done.mainnetBlock).toBe(devnet.height());
  }, 180_000);

  it('serves every block exactly as the node has it', () => expectBlocksMatch(explorer!.apiUrl, devnet), 120_000);

  it(
    'serves every transaction exactly as the node has it',
    () => expectTransactionsMatch(explorer!.apiUrl, devnet),
    120_000,
  );

  it(
    'lists every block and every transaction once, newest first, across all pages',
    () => expectListsComplete(explorer!.apiUrl, devnet),
    120_000,
  );

  it('counts every transaction in the daily statistics', () => expectDailyCountsComplete(explorer!.apiUrl, devnet));

  it('holds every wallet exactly as the chain does, to the last unit', async () => {
    // Read the embedded store beside the running process (SQLite allows a second reader).
    const store = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
    try {
      const problems = await waitFor(
        'the wallets to match the chain',
        async () => {
          const p = await walletMismatches(store, devnet);
          return p.length === 0 ? p : undefined;
        },
        30_000,
        200,
      ).catch(async () => walletMismatches(store, devnet));
      expect(problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
