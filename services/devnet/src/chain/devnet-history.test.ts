import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FILES } from '../history/file-history.ts';
import { createDevnet, type Devnet } from './devnet.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mtc-devnet-history-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** sha256 over every block and transaction as served, 30 blocks cut after the history, and the world. */
function chainDigest(devnet: Devnet): string {
  const hash = createHash('sha256');
  for (let h = 1; h <= devnet.height(); h++) {
    const block = devnet.block(h)!;
    hash.update(JSON.stringify(block));
    for (const { id } of block.transaction) hash.update(JSON.stringify(devnet.transaction(id)));
  }
  for (let i = 0; i < 30; i++) hash.update(JSON.stringify(devnet.cutBlock(1_800_000_000 + i * 7)));
  hash.update(JSON.stringify(devnet.worldState()));
  return hash.digest('hex');
}

describe('a devnet with its history on disk', () => {
  // Seed 1 at 30 s spacing: by block 3,000 the busiest wallets hold lists long enough to be chunked.
  const options = { seed: 1, genesisTime: 1_600_000_000, historyBlocks: 3_000, blockIntervalSec: 30 };
  let dir: string;
  let memory: Devnet;
  let disk: Devnet;

  beforeAll(() => {
    dir = tempDir();
    memory = createDevnet(options);
    disk = createDevnet({ ...options, historyDir: dir });
  });
  afterAll(() => disk.close());

  it('serves every block and transaction with the bytes the in-memory devnet serves', () => {
    expect(disk.height()).toBe(memory.height());
    let txs = 0;
    for (let h = 1; h <= memory.height(); h++) {
      const block = memory.blockJson(h)!;
      expect(disk.blockJson(h)).toBe(block);
      expect(disk.blockJson(String(h))).toBe(block);
      const { id, transaction } = memory.block(h)!;
      expect(disk.blockJson(id)).toBe(block);
      expect(disk.block(id)).toEqual(memory.block(h));
      for (const tx of transaction) {
        expect(disk.transactionJson(tx.id)).toBe(memory.transactionJson(tx.id));
        txs++;
      }
    }
    expect(txs).toBeGreaterThan(8_000);
    // Some wallet lists were long enough to go to the chunk log.
    expect(statSync(join(dir, HISTORY_FILES.chunks)).size).toBeGreaterThan(0);
  });

  it('agrees on the world state and on the blocks cut after the history', () => {
    expect(disk.worldState()).toEqual(memory.worldState());
    for (let i = 1; i <= 10; i++) {
      const cut = memory.cutBlock(1_700_000_000 + i);
      expect(disk.cutBlock(1_700_000_000 + i)).toEqual(cut);
      expect(disk.blockJson(cut.id)).toBe(JSON.stringify(cut));
      for (const { id } of cut.transaction) expect(disk.transactionJson(id)).toBe(memory.transactionJson(id));
    }
  });

  it('hands out copies', () => {
    const block = disk.block(5)!;
    block.transaction.length = 0;
    expect(disk.block(5)!.transaction.length).toBeGreaterThan(0);
  });

  it('refuses reads once closed', () => {
    const closing = createDevnet({ ...options, historyBlocks: 20, historyDir: tempDir() });
    const id = closing.block(1)!.transaction[0]!.id;
    closing.close();
    expect(() => closing.transaction(id)).toThrow(/closed/);
  });
});

describe('txsPerBlock', () => {
  const base = { seed: 7, genesisTime: 1_700_000_000, historyBlocks: 1_500, blockIntervalSec: 5 };

  it('leaves the chain of a devnet without it as generator 5 made it', () => {
    // A change detector. Generator 2 (before txsPerBlock and history files, commit 47cf996) gave
    // f0308140…; generator 3 moved the history's block gaps to a stream of their own (0701bf3e…);
    // generator 4 put a v2.3 era before the current chaincode (b6b9d04c…); generator 5 registered
    // the NFT families and steers clients to what the chain lacks, and gives this (the world state
    // now with its NFT records). A change here is a change of every existing chain: bump
    // GENERATOR_VERSION (schedule.ts) with it, unless the job fingerprint sees it (a job set gaining
    // a family).
    const pinned = '576435feea2cf9de515440be6c5e3f904af5c5f1c584c9a8c5af6510898a62ab';
    expect(chainDigest(createDevnet(base))).toBe(pinned);
  });

  it('lists about that many transactions per non-empty block, deterministically', () => {
    const options = { ...base, historyBlocks: 300, txsPerBlock: 20 };
    const devnet = createDevnet(options);
    const sizes = Array.from({ length: devnet.height() }, (_, i) => devnet.block(i + 1)!.transaction.length);
    const listed = sizes.filter((n) => n > 0);
    const mean = listed.reduce((a, b) => a + b, 0) / listed.length;
    expect(mean).toBeGreaterThan(16);
    expect(mean).toBeLessThanOrEqual(20);
    expect(Math.max(...sizes)).toBeGreaterThan(20);
    expect(createDevnet(options).block(300)).toEqual(devnet.block(300));
  });

  it('rejects a rate it cannot honour', () => {
    expect(() => createDevnet({ ...base, txsPerBlock: 0.5 })).toThrow();
    expect(() => createDevnet({ ...base, txsPerBlock: 5_000 })).toThrow();
  });
});
