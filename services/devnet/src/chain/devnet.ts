import type { RawBlock, RawEntry } from '@mtc/domain';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { createRng } from '../rng.ts';
import type { Mrc010Token, Wallet } from '../world/records.ts';
import { createWorld } from '../world/world.ts';
import { buildBlock, type BlockBuilderDeps, type ChainBlock } from './block-builder.ts';
import { DevnetOptionsSchema, type DevnetOptions } from './options.ts';

/** Ground truth for tests: the chain's current state, as the chaincode holds it. */
export interface WorldState {
  height: number;
  /** The full wallet JSON as on chain, by address. */
  wallets: Record<string, Wallet>;
  /** The on-chain TOKEN_DATA record (with its `token` field), by token id. */
  tokens: Record<string, Mrc010Token>;
  counts: {
    blocks: number;
    transactions: number;
    invalidTransactions: number;
    entries: number;
    wallets: number;
    tokens: number;
  };
}

export interface Devnet {
  /** Number of the last block; 0 before the first. */
  height(): number;
  /** A block by height (number or decimal string) or by its 64-hex data_hash. */
  block(idOrHeight: string | number): RawBlock | undefined;
  /** A transaction's entries, exactly as `/transaction/{id}` serves them. */
  transaction(txId: string): RawEntry[] | undefined;
  worldState(): WorldState;
  /** Generates one more block at max(now, last block time); now defaults to the wall clock. */
  cutBlock(now?: number): RawBlock;
}

/**
 * A deterministic Metacoin chain: the same options give the same blocks, ids and entries. The
 * history is generated up front; cutBlock extends it. Returned blocks and entries are copies.
 */
export function createDevnet(options: DevnetOptions): Devnet {
  const opts = DevnetOptionsSchema.parse(options);
  const rng = createRng(opts.seed);
  const world = createWorld();
  const deps: BlockBuilderDeps = {
    seed: opts.seed,
    world,
    rng,
    jobs: DEFAULT_JOBS,
    walletCap: opts.wallets,
    invalidTxRate: opts.invalidTxRate,
    emptyBlockRate: opts.emptyBlockRate,
  };

  const blocks: RawBlock[] = [];
  const heightByHash = new Map<string, number>();
  const txs = new Map<string, readonly RawEntry[]>();
  const counts = { transactions: 0, invalidTransactions: 0, entries: 0 };

  function append({ block, txs: blockTxs }: ChainBlock): RawBlock {
    blocks.push(block);
    heightByHash.set(block.id, blocks.length);
    for (const tx of blockTxs) {
      txs.set(tx.id, tx.entries);
      counts.transactions += 1;
      counts.entries += tx.entries.length;
      if (!tx.valid) counts.invalidTransactions += 1;
    }
    return block;
  }

  const lastTimestamp = (): number => blocks.at(-1)?.timestamp ?? opts.genesisTime;
  const next = (timestamp: number): RawBlock => append(buildBlock(deps, blocks.length + 1, timestamp));

  for (let i = 0; i < opts.historyBlocks; i++) {
    const gap = i === 0 ? 0 : Math.round(opts.blockIntervalSec * (0.5 + rng.next()));
    next(lastTimestamp() + gap);
  }

  return {
    height: () => blocks.length,
    block(idOrHeight) {
      const height =
        typeof idOrHeight === 'number'
          ? idOrHeight
          : /^[0-9a-f]{64}$/.test(idOrHeight)
            ? heightByHash.get(idOrHeight)
            : /^[0-9]{1,16}$/.test(idOrHeight)
              ? Number(idOrHeight)
              : undefined;
      const block = height === undefined ? undefined : blocks[height - 1];
      return block && Number.isInteger(height) ? copyBlock(block) : undefined;
    },
    transaction(txId) {
      const entries = txs.get(txId);
      return entries && (JSON.parse(JSON.stringify(entries)) as RawEntry[]);
    },
    worldState() {
      const wallets: Record<string, Wallet> = {};
      for (const address of world.wallets) wallets[address] = world.wallet(address)!;
      const tokens: Record<string, Mrc010Token> = {};
      for (const id of world.tokens) tokens[id] = world.token(id)!;
      return structuredClone({
        height: blocks.length,
        wallets,
        tokens,
        counts: {
          blocks: blocks.length,
          ...counts,
          wallets: world.wallets.length,
          tokens: world.tokens.length,
        },
      });
    },
    cutBlock(now = Date.now() / 1000) {
      return copyBlock(next(Math.max(Math.floor(now), lastTimestamp())));
    },
  };
}

function copyBlock(block: RawBlock): RawBlock {
  return { ...block, transaction: block.transaction.map((tx) => ({ ...tx })) };
}
