import { z } from 'zod';

/** The most transactions a block may aim for on average (its largest blocks list about 1.8 times that). */
export const MAX_TXS_PER_BLOCK = 1_000;

/** Where NFT image URLs point unless a devnet is told otherwise: the standalone devnet's own port. */
export const DEFAULT_IMAGE_ORIGIN = 'http://127.0.0.1:20922';

/** Options of a devnet; defaults live here and nowhere else. */
export const DevnetOptionsSchema = z.object({
  seed: z.number().int(),
  /** Unix seconds of block 1. */
  genesisTime: z.number().int().nonnegative(),
  /** Blocks generated up front. */
  historyBlocks: z.number().int().nonnegative(),
  /** Mean spacing of the pre-generated blocks (each gap is 50–150 % of it, rounded). */
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
  /**
   * Keep blocks and transactions in files in this directory (history/file-history.ts) rather than in
   * memory (a long history does not fit): the files a previous devnet left there are replaced. Not
   * part of the chain: the same options give the same chain with or without it. Call `close()` when
   * done.
   */
  historyDir: z.string().min(1).optional(),
  /**
   * Where NFT records' image URLs point (`<origin>/images/…`, served by the devnet's own server):
   * part of the chain, since clients put those URLs in their calls.
   */
  imageOrigin: z.url({ protocol: /^https?$/ }).default(DEFAULT_IMAGE_ORIGIN),
});

/** What a devnet is asked for: the schema's input (every default optional). */
export type DevnetOptions = z.input<typeof DevnetOptionsSchema>;

export type ResolvedDevnetOptions = z.output<typeof DevnetOptionsSchema>;
