import { join } from 'node:path';
import { createSqliteReadStore } from '@mtc/adapters';
import type { Devnet } from '@mtc/devnet';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from './explorer-process.ts';
import { walletMismatches } from './ground-truth.ts';

/**
 * Starts the all-in-one explorer on `devnet`'s node and waits until it has indexed the whole
 * history: the block topic at the node's head, then the state topic (wallets, tokens, NFT records),
 * which is projected alongside and may trail it, until the store holds every wallet as the chain
 * does. The caller kills the process.
 */
export async function indexWholeHistory(
  devnet: Devnet,
  dataDir: string,
  env: Record<string, string>,
  /** Run at each new height seen during the backfill (the index keeps moving while it runs). */
  during?: (api: string, height: number) => Promise<void>,
): Promise<ExplorerProcess> {
  const explorer = await spawnExplorer({ DATA_DIR: dataDir, FOLLOWER_BLOCK_CONCURRENCY: '8', ...env });
  let seen = 0;
  await waitFor(
    'the index to reach the node head',
    async () => {
      const { body } = await getJson<{ localBlock: number }>(`${explorer.apiUrl}/api/chain`);
      if (body.localBlock === devnet.height()) return true;
      if (during && body.localBlock > seen) {
        seen = body.localBlock;
        await during(explorer.apiUrl, seen);
      }
      return undefined;
    },
    600_000,
    250,
  );
  const store = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
  try {
    await waitFor(
      'the wallets to match the chain',
      async () => ((await walletMismatches(store, devnet)).length === 0 ? true : undefined),
      120_000,
      500,
    );
  } finally {
    await store.close();
  }
  return explorer;
}
