import { createDevnet, type Devnet } from '@mtc/devnet';

/**
 * A devnet whose history of `blocks` blocks, one every `intervalSec`, ends now. With seed 777 and
 * 1,200 blocks it holds every job family (the end-to-end and fault tests assert it).
 */
export function recentDevnet(seed: number, blocks: number, intervalSec = 150): Devnet {
  const now = Math.floor(Date.now() / 1000);
  return createDevnet({
    seed,
    genesisTime: now - blocks * intervalSec,
    historyBlocks: blocks,
    blockIntervalSec: intervalSec,
  });
}
