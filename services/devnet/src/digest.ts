/**
 * Prints what pins the devnet's output for a seed: the generator fingerprint, and a sha256 over every
 * block and transaction of a history, 50 live blocks cut after it, and the world state. A change to the devnet's code that means to
 * keep its chain (a refactor) leaves both lines as they were; compare them before and after.
 *
 *   node services/devnet/src/digest.ts [--blocks=3000] [--seed=1]
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createDevnet } from './chain/devnet.ts';
import { generatorFingerprint } from './chain/schedule.ts';

const { values } = parseArgs({
  options: { blocks: { type: 'string', default: '3000' }, seed: { type: 'string', default: '1' } },
});
const historyBlocks = Number(values.blocks);
const seed = Number(values.seed);
const devnet = createDevnet({ seed, genesisTime: 1_600_000_000, historyBlocks, blockIntervalSec: 30 });
const hash = createHash('sha256');
let txs = 0;
for (let h = 1; h <= devnet.height(); h++) {
  hash.update(devnet.blockJson(h)!);
  for (const { id } of devnet.block(h)!.transaction) {
    hash.update(devnet.transactionJson(id)!);
    txs++;
  }
}
// Live blocks too: they are cut by another path than the history's.
for (let i = 0; i < 50; i++) {
  const block = devnet.cutBlock(1_800_000_000 + i * 7);
  hash.update(JSON.stringify(block));
  for (const { id } of block.transaction) hash.update(devnet.transactionJson(id)!);
}
hash.update(JSON.stringify(devnet.worldState()));
const fingerprint = generatorFingerprint();
console.log(`generator ${fingerprint.version} jobs ${fingerprint.hash}`);
console.log(`history seed=${seed} blocks=${historyBlocks} txs=${txs} sha256 ${hash.digest('hex')}`);
