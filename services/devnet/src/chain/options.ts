import { z } from 'zod';

/** The most transactions a block may aim for on average (its largest blocks list about 1.8 times that). */
export const MAX_TXS_PER_BLOCK = 1_000;

/** Where NFT image URLs point unless a devnet is told otherwise: the standalone devnet's own port. */
export const DEFAULT_IMAGE_ORIGIN = 'http://127.0.0.1:20922';

/** Options of a devnet; defaults live here and nowhere else. */
export const DevnetOptionsSchema = z.object({
  seed: z.number().int(),
  genesisTime: z.number().int().nonnegative(),
  historyBlocks: z.number().int().nonnegative(),
  blockIntervalSec: z.number().nonnegative(),
  /** The wallet population the chain grows to; newwallet calls stop there. */
  wallets: z.number().int().min(5).default(5_000),
  /** Share of transactions committed as MVCC_READ_CONFLICT (listed, not applied). */
  invalidTxRate: z.number().min(0).max(1).default(0.02),
  /** Share of blocks that list no transaction. */
  emptyBlockRate: z.number().min(0).max(1).default(0.1),
  /** Share of the history written by the legacy chaincode (CC-22 and older; see chain/eras.ts). */
  legacyShare: z.number().min(0).max(1).default(0.1),
  /**
   * Mean transactions a non-empty block aims for. No default: unset means the built-in 1–6 mix
   * itself (mean 3.3), so chains made before it existed stay as they were (schedule.ts saves it).
   */
  txsPerBlock: z.number().min(1).max(MAX_TXS_PER_BLOCK).optional(),
  /** Keep the history in files in this directory (history/file-history.ts); unset: in memory. */
  historyDir: z.string().min(1).optional(),
  /**
   * Where NFT records' image URLs point (`<origin>/images/…`, served by the devnet's own server):
   * part of the chain, since clients put those URLs in their calls.
   */
  imageOrigin: z.url({ protocol: /^https?$/ }).default(DEFAULT_IMAGE_ORIGIN),
});

export interface DevnetOptions {
  seed: number;
  /** Unix seconds of block 1. */
  genesisTime: number;
  /** Blocks generated up front. */
  historyBlocks: number;
  /** Mean spacing of the pre-generated blocks (each gap is 50–150 % of it, rounded). */
  blockIntervalSec: number;
  /** Wallet population the chain grows to (default 5,000, at least 5). */
  wallets?: number;
  /** Share of transactions committed as MVCC_READ_CONFLICT (default 0.02). */
  invalidTxRate?: number;
  /** Share of blocks that list no transaction (default 0.1). */
  emptyBlockRate?: number;
  /** Share of the history (its first blocks) written by the legacy chaincode (default 0.1). */
  legacyShare?: number;
  /**
   * Mean transactions a non-empty block aims for (1 … 1,000): each block draws from the built-in
   * 1–6 mix scaled to this mean. Calls that conflict with one earlier in the block are left out, so
   * blocks list somewhat fewer. Unset: the built-in mix itself (mean 3.3), the chain of old.
   */
  txsPerBlock?: number;
  /**
   * Keep blocks and transactions in files in this directory rather than in memory (a long history
   * does not fit): the files a previous devnet left there are replaced. Not part of the chain: the
   * same options give the same chain with or without it. Call `close()` when done.
   */
  historyDir?: string;
  /** Origin of the NFT image URLs the devnet's clients write (default http://127.0.0.1:20922). */
  imageOrigin?: string;
}

export type ResolvedDevnetOptions = z.output<typeof DevnetOptionsSchema>;
