import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import { crawlWhileIndexing } from '../support/height-crawl.ts';

/**
 * One height per answer, embedded: `npm start` on a devnet history of more than 20,000
 * transactions, crawled from the first indexed block through the backfill and on into live blocks.
 * Every answer must be true as of the height in its X-Indexed-Height (height-crawl.ts lists the
 * rules); the crawl must have compared hundreds of same-height pairs to count.
 */
const HISTORY_BLOCKS = 7_000; // ≈ 3 transactions a block

describe('one height per answer while the index moves (embedded)', () => {
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-one-height-'));
    explorer = await spawnExplorer(
      {
        DATA_DIR: dataDir,
        DEVNET_HISTORY_BLOCKS: String(HISTORY_BLOCKS),
        DEVNET_BLOCK_INTERVAL_MS: '300',
        CHAIN_NODE_URL: undefined,
        LOG_LEVEL: 'warn',
      },
      180_000,
    );
  }, 240_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every request as of the one height it names, during the backfill and after it', async () => {
    const api = explorer!.apiUrl;
    const chain = async () => (await getJson<{ localBlock: number; mainnetBlock: number }>(`${api}/api/chain`)).body;
    await waitFor('the first indexed block', async () => ((await chain()).localBlock > 0 ? true : undefined), 120_000);
    const backfilling = (await chain()).localBlock < HISTORY_BLOCKS;
    // Through the backfill, then 20 s of live blocks.
    let caughtUpAt: number | null = null;
    const report = await crawlWhileIndexing({
      apiUrl: api,
      maxMs: 420_000,
      until: async () => {
        if (caughtUpAt === null && (await chain()).localBlock >= HISTORY_BLOCKS) caughtUpAt = Date.now();
        return caughtUpAt !== null && Date.now() - caughtUpAt > 20_000;
      },
    });
    const { localBlock } = await chain();
    // At limit 1 there are as many pages as listed transactions.
    const txs = await getJson<{ totalPages: number }>(`${api}/api/transactions?limit=1`);
    console.info(
      `one height (embedded): ${report.requests} requests over ${report.heights} heights up to ${localBlock} ` +
        `(${txs.body.totalPages} transactions); ` +
        `${report.within} within-answer checks, ${report.sameHeight} same-height pairs, ` +
        `${report.later} later-height lookups; ${report.contradictions.length} contradictions` +
        (backfilling ? '' : ' (the backfill had ended before the crawl began)'),
    );
    expect(txs.body.totalPages).toBeGreaterThanOrEqual(20_000);
    expect(backfilling, 'the crawl began during the backfill').toBe(true);
    expect(caughtUpAt, 'the index caught up within the crawl').not.toBeNull();
    expect(report.contradictions).toEqual([]);
    expect(report.sameHeight).toBeGreaterThanOrEqual(300);
    expect(report.later).toBeGreaterThanOrEqual(300);
    expect(report.heights).toBeGreaterThanOrEqual(20);
  }, 600_000);
});
