import type { RawBlock, RawEntry } from '@mtc/domain';
import { LEGACY_JOBS } from '../jobs/legacy/registry.ts';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { createRng } from '../rng.ts';
import { servedWallet, type ChainToken, type LegacyWallet } from '../world/codec.ts';
import type { Dex010Order, Wallet } from '../world/records.ts';
import { tokenKey } from '../world/records.ts';
import { createWorld } from '../world/world.ts';
import { buildBlock, type BlockBuilderDeps, type ChainBlock } from './block-builder.ts';
import { planEras } from './eras.ts';
import { DevnetOptionsSchema, type DevnetOptions } from './options.ts';

/** Ground truth for tests: the chain's current state, as the chaincode holds it. */
export interface WorldState {
  height: number;
  /**
   * The full wallet JSON as on chain, by address, in the shape of the chaincode version that wrote
   * it last (legacy records have no id, …; world/codec.ts), with the bridge's rename of a pre-2.0
   * `token` list to `balance` applied, as every node answer has it.
   */
  wallets: Record<string, Wallet | LegacyWallet>;
  /** The on-chain TOKEN_DATA record (with its `token` field; no `id` if a legacy chaincode wrote it). */
  tokens: Record<string, ChainToken>;
  /** Every DEX010 order record as on chain, by its key (`DEX010_…`). */
  dex010: Record<string, Dex010Order>;
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
  /**
   * Generates one more block with the peers' clock at max(now, the last block's peer time); now
   * defaults to the wall clock. (Block timestamps are client times and may be earlier.)
   */
  cutBlock(now?: number): RawBlock;
  /** The peers' clock at the last block (unix s): what its records are dated by and cutBlock continues from. */
  clock(): number;
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
    legacyJobs: LEGACY_JOBS,
    eras: planEras(opts.historyBlocks, opts.legacyShare),
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

  // The peers' clock at the last block; block timestamps are client times and may run backwards.
  let peerTime = opts.genesisTime;
  const lastTimestamp = (): number => peerTime;
  const next = (timestamp: number): RawBlock => {
    peerTime = timestamp;
    return append(buildBlock(deps, blocks.length + 1, timestamp));
  };

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
      const wallets: Record<string, Wallet | LegacyWallet> = {};
      for (const address of world.wallets) wallets[address] = servedWallet(world.get(address) as object);
      const tokens: Record<string, ChainToken> = {};
      for (const id of world.tokens) tokens[id] = world.get(tokenKey(id)) as ChainToken;
      const dex010: Record<string, Dex010Order> = {};
      for (const id of world.dex010Orders) dex010[id] = world.dex010(id)!;
      return structuredClone({
        height: blocks.length,
        wallets,
        tokens,
        dex010,
        counts: {
          blocks: blocks.length,
          ...counts,
          wallets: world.wallets.length,
          tokens: world.tokens.length,
        },
      });
    },
    clock: () => peerTime,
    cutBlock(now = Date.now() / 1000) {
      return copyBlock(next(Math.max(Math.floor(now), lastTimestamp())));
    },
  };
}

function copyBlock(block: RawBlock): RawBlock {
  return { ...block, transaction: block.transaction.map((tx) => ({ ...tx })) };
}
