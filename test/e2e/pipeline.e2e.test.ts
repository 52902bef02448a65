import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnet, startDevnetServer, type Devnet } from '@mtc/devnet';
import type { RawEntry } from '@mtc/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';

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

/** What /tx/{id} must serve for one node entry (spec: Transaction detail). */
function expectedDetail(e: RawEntry, blockHash: string, height: number): unknown {
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
      mrc402: v['mrc402'] ?? null,
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
    for (let h = 1; h <= devnet.height(); h++) totalTxs += devnet.block(h)!.transaction.length;
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

  it('serves every block exactly as the node has it', async () => {
    const api = explorer!.apiUrl;
    for (let h = 1; h <= devnet.height(); h++) {
      const raw = devnet.block(h)!;
      const { status, body } = await getJson(`${api}/api/block/${h}`);
      expect(status).toBe(200);
      expect(body).toEqual({ id: raw.id, sn: raw.sn, timestamp: raw.timestamp, transaction: raw.transaction });
    }
    const byHash = await getJson(`${api}/api/block/${devnet.block(7)!.id}`);
    expect(byHash.body).toMatchObject({ sn: '7' });
  }, 120_000);

  it('serves every transaction exactly as the node has it', async () => {
    const api = explorer!.apiUrl;
    for (let h = 1; h <= devnet.height(); h++) {
      const raw = devnet.block(h)!;
      for (const t of raw.transaction) {
        const { status, body } = await getJson(`${api}/api/tx/${t.id}`);
        expect(status).toBe(200);
        expect(body).toEqual(devnet.transaction(t.id)!.map((e) => expectedDetail(e, raw.id, h)));
      }
    }
  }, 120_000);

  it('lists every block and every transaction once, newest first, across all pages', async () => {
    const api = explorer!.apiUrl;
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
  }, 120_000);

  it('counts every transaction in the daily statistics', async () => {
    const { body } = await getJson<{ history: { count: number }[] }>(`${explorer!.apiUrl}/api/tx-stats?days=30`);
    expect(body.history.reduce((s, d) => s + d.count, 0)).toBe(totalTxs);
  });
});
