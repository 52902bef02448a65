import { z } from 'zod';

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
}

export type ResolvedDevnetOptions = z.output<typeof DevnetOptionsSchema>;
