import type { RawBlock, RawEntry } from '@mtc/domain';
import { LEGACY_JOBS } from '../families/mrc010/legacy/registry.ts';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { createFileHistory } from '../history/file-history.ts';
import { createMemoryHistory, HEX_ID } from '../history/store.ts';
import type { Job } from '../jobs/job.ts';
import { createRng } from '../rng.ts';
import { servedWallet, type ChainToken, type LegacyWallet } from '../families/mrc010/codec.ts';
import type { Dex010Order, Wallet } from '../families/mrc010/records.ts';
import { tokenKey } from '../families/mrc010/records.ts';
import type { ChainMrc400Collection, ChainMrc401Item } from '../families/mrc400/records.ts';
import type { Dex402Order, Mrc402Token } from '../families/mrc402/records.ts';
import { createWorld } from '../world/world.ts';
import { buildBlock, type BlockBuilderDeps } from './block-builder.ts';
import { planEras } from './eras.ts';
import { DevnetOptionsSchema, type DevnetOptions, type ResolvedDevnetOptions } from './options.ts';

/** Ground truth for tests: the chain's current state, as the chaincode holds it. */
export interface WorldState {
  height: number;
  /**
   * The full wallet JSON as on chain, by address, in the shape of the chaincode version that wrote
   * it last (legacy records have no id, …; families/mrc010/codec.ts), with the bridge's rename of a pre-2.0
   * `token` list to `balance` applied, as every node answer has it.
   */
  wallets: Record<string, Wallet | LegacyWallet>;
  /** The on-chain TOKEN_DATA record (with its `token` field; no `id` if a legacy chaincode wrote it). */
  tokens: Record<string, ChainToken>;
  /** Every DEX010 order record as on chain, by its key (`DEX010_…`). */
  dex010: Record<string, Dex010Order>;
  /**
   * Every MRC-400 collection as on chain, by its key (`MRC400_…`), in the shape of the chaincode
   * version that wrote it last (CC-m's, under v2.3, lacks socialmedia and partner).
   */
  mrc400s: Record<string, ChainMrc400Collection>;
  /**
   * Every MRC-401 item as on chain, by its key (`MRC400_…_…`), in the shape of the version that wrote
   * it last (CC-m's lacks creator, last_worker, shareholder and platform_*); melted: owner `MELTED`.
   */
  mrc401s: Record<string, ChainMrc401Item>;
  /** Every MRC-402 record as on chain, by its key (`MRC402_…`). */
  mrc402s: Record<string, Mrc402Token>;
  /** Every DEX402 order record (MRC-402 sales and auctions) as on chain, by its key (`DEX402_…`). */
  dex402: Record<string, Dex402Order>;
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
  /** JSON.stringify(block(idOrHeight)), read as stored: what `/block/{b}` sends, without a parse. */
  blockJson(idOrHeight: string | number): string | undefined;
  /** JSON.stringify(transaction(txId)), read as stored: what `/transaction/{id}` sends. */
  transactionJson(txId: string): string | undefined;
  worldState(): WorldState;
  /**
   * Generates one more block with the peers' clock at max(now, the last block's peer time); now
   * defaults to the wall clock. (Block timestamps are client times and may be earlier.)
   */
  cutBlock(now?: number): RawBlock;
  /** The peers' clock at the last block (unix s): what its records are dated by and cutBlock continues from. */
  clock(): number;
  /** Closes the history (its files, when on disk); reads afterwards throw. */
  close(): void;
}

/**
 * A deterministic Metacoin chain: the same options give the same blocks, ids and entries. The
 * history is generated up front; cutBlock extends it. Blocks and transactions go to a HistoryStore
 * the moment they are cut (files in `historyDir`, else memory) and are read back as the JSON the
 * node serves, parsed afresh on every read; only the world state stays in memory.
 */
export function createDevnet(options: DevnetOptions, jobs: DevnetJobs = {}): Devnet {
  const opts = DevnetOptionsSchema.parse(options);
  const history = opts.historyDir === undefined ? createMemoryHistory() : createFileHistory(opts.historyDir);
  const deps = builderDeps(opts, jobs);
  const { world } = deps;
  const counts = { transactions: 0, invalidTransactions: 0, entries: 0 };
  /** The peers' clock at the last block; block timestamps are client times and may run backwards. */
  let peerTime = opts.genesisTime;

  const cut = (timestamp: number): RawBlock => {
    peerTime = timestamp;
    const { block, txs } = buildBlock(deps, history.height() + 1, timestamp);
    history.append(block, txs);
    for (const tx of txs) {
      counts.transactions += 1;
      counts.entries += tx.entries.length;
      if (!tx.valid) counts.invalidTransactions += 1;
    }
    return block;
  };

  try {
    for (const timestamp of historyTimes(opts)) cut(timestamp);
  } catch (error) {
    history.close();
    throw error;
  }

  const blockJson = (idOrHeight: string | number): string | undefined => {
    const height =
      typeof idOrHeight === 'number'
        ? idOrHeight
        : HEX_ID.test(idOrHeight)
          ? history.heightOf(idOrHeight)
          : /^[0-9]{1,16}$/.test(idOrHeight)
            ? Number(idOrHeight)
            : undefined;
    return height === undefined ? undefined : history.blockJson(height);
  };

  return {
    height: () => history.height(),
    blockJson,
    block: (idOrHeight) => parsed<RawBlock>(blockJson(idOrHeight)),
    transactionJson: (txId) => history.transactionJson(txId),
    transaction: (txId) => parsed<RawEntry[]>(history.transactionJson(txId)),
    worldState() {
      // The records as stored: get(key) is the value the chain's last write of the key holds.
      const stored = <T, K extends string | number = string>(
        ids: readonly K[],
        read = (id: K) => world.get(String(id)),
      ) => Object.fromEntries(ids.map((id) => [id, read(id) as T])) as Record<string, T>;
      return structuredClone({
        height: history.height(),
        wallets: stored<Wallet | LegacyWallet>(world.wallets, (address) => servedWallet(world.get(address) as object)),
        tokens: stored<ChainToken, number>(world.tokens, (id) => world.get(tokenKey(id))),
        dex010: stored<Dex010Order>(world.dex010Orders),
        mrc400s: stored<ChainMrc400Collection>(world.mrc400.collections),
        mrc401s: stored<ChainMrc401Item>(world.mrc400.items),
        mrc402s: stored<Mrc402Token>(world.mrc402Ids),
        dex402: stored<Dex402Order>(world.dex402Orders),
        counts: {
          blocks: history.height(),
          ...counts,
          wallets: world.wallets.length,
          tokens: world.tokens.length,
        },
      });
    },
    clock: () => peerTime,
    cutBlock(now = Date.now() / 1000) {
      // The block built is handed out as is: the history holds its own copy.
      return cut(Math.max(Math.floor(now), peerTime));
    },
    close: () => history.close(),
  };
}

function parsed<T>(json: string | undefined): T | undefined {
  return json === undefined ? undefined : (JSON.parse(json) as T);
}

/**
 * The peers' clock at the end of the history `options` describe, without generating it: the gaps
 * between history blocks come from a stream of their own (historyTimes), so the span is a sum of
 * draws whatever the genesis time. What a schedule needs to place a new chain so that its history
 * ends now.
 */
export function historyClock(options: DevnetOptions): number {
  const opts = DevnetOptionsSchema.parse(options);
  let clock = opts.genesisTime;
  for (const timestamp of historyTimes(opts)) clock = timestamp;
  return clock;
}

/**
 * The peers' clock at each history block: the first at genesisTime, each next 50–150 % of the
 * interval later. The gaps are drawn from a stream apart from the chain's, which timestamps steer
 * (auctions end, orders expire), so the history's span depends on the seed and the interval alone.
 */
function* historyTimes(opts: ResolvedDevnetOptions): Generator<number> {
  // Any fixed change of the seed gives a stream unrelated to the chain's (splitmix32 mixes it).
  const rng = createRng(opts.seed >= 0 ? opts.seed - 0x5bd1e995 : opts.seed + 0x5bd1e995);
  let clock = opts.genesisTime;
  for (let i = 0; i < opts.historyBlocks; i++) {
    if (i > 0) clock += Math.round(opts.blockIntervalSec * (0.5 + rng.next()));
    yield clock;
  }
}

/**
 * The chaincode functions a devnet plans, when not the registered ones: job families under
 * construction are tried in a history of their own before they join the registry (and change
 * every seed's chain).
 */
export interface DevnetJobs {
  current?: readonly Job[];
  legacy?: readonly Job[];
}

function builderDeps(opts: ResolvedDevnetOptions, jobs: DevnetJobs): BlockBuilderDeps {
  return {
    seed: opts.seed,
    world: createWorld(),
    rng: createRng(opts.seed),
    jobs: jobs.current ?? DEFAULT_JOBS,
    legacyJobs: jobs.legacy ?? LEGACY_JOBS,
    imageOrigin: opts.imageOrigin,
    eras: planEras(opts.historyBlocks, opts.legacyShare),
    walletCap: opts.wallets,
    invalidTxRate: opts.invalidTxRate,
    emptyBlockRate: opts.emptyBlockRate,
    txsPerBlock: opts.txsPerBlock,
  };
}
