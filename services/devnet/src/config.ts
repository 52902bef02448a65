import { port } from '@mtc/runtime';
import { z } from 'zod';
import { MAX_TXS_PER_BLOCK, type DevnetOptions } from './chain/options.ts';
import { FAULT_KINDS, NODE_FAULT_KINDS, type FaultOptions } from './server/faults.ts';

/**
 * The fault injector's options (server/faults.ts FaultOptionsSchema, which says what each does) as
 * environment variables, shared by the standalone devnet and the all-in-one explorer's built-in one.
 */
export const DevnetFaultConfigSchema = z.object({
  DEVNET_FAULT_RATE: z.coerce.number().min(0).max(0.9).default(0),
  DEVNET_FAULT_KINDS: z
    .string()
    .default(NODE_FAULT_KINDS.join(','))
    .transform((text) => text.split(',').map((kind) => kind.trim()))
    .pipe(z.array(z.enum(FAULT_KINDS)).min(1)),
  DEVNET_FAULT_SEED: z.coerce.number().int().default(0x0fa017),
  DEVNET_FAULT_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(15_000),
  DEVNET_FAULT_SLOW_BODY_MS: z.coerce.number().int().nonnegative().default(5_000),
  DEVNET_FAULT_BLOCK_MISSING_MS: z.coerce.number().int().nonnegative().default(2_000),
  DEVNET_FAULT_HIDE_BLOCK: z.coerce.number().int().min(1).optional(),
  DEVNET_FAULT_HIDE_BLOCK_MS: z.coerce.number().int().nonnegative().default(30_000),
});

export type DevnetFaultConfig = Readonly<z.output<typeof DevnetFaultConfigSchema>>;

export function faultOptionsFrom(config: DevnetFaultConfig): FaultOptions {
  return {
    faultRate: config.DEVNET_FAULT_RATE,
    faultKinds: config.DEVNET_FAULT_KINDS,
    faultSeed: config.DEVNET_FAULT_SEED,
    faultTimeoutMs: config.DEVNET_FAULT_TIMEOUT_MS,
    faultSlowBodyMs: config.DEVNET_FAULT_SLOW_BODY_MS,
    faultBlockMissingMs: config.DEVNET_FAULT_BLOCK_MISSING_MS,
    faultHideBlock: config.DEVNET_FAULT_HIDE_BLOCK,
    faultHideBlockMs: config.DEVNET_FAULT_HIDE_BLOCK_MS,
  };
}

/** The standalone devnet's environment; every variable is listed in `.env.example`. */
export const DevnetConfigSchema = DevnetFaultConfigSchema.extend({
  DEVNET_HOST: z.string().min(1).default('0.0.0.0'),
  DEVNET_PORT: port.default(20922),
  DEVNET_SEED: z.coerce.number().int().default(1),
  DEVNET_HISTORY_BLOCKS: z.coerce.number().int().nonnegative().default(1_000),
  /** Live block interval, and the mean spacing of the history; 0 = no live blocks. */
  DEVNET_BLOCK_INTERVAL_MS: z.coerce.number().int().nonnegative().default(3_000),
  /** Unix seconds of block 1; unset = placed so that the history ends about now. */
  DEVNET_GENESIS_TIME: z.coerce.number().int().nonnegative().optional(),
  DEVNET_WALLETS: z.coerce.number().int().min(5).default(5_000),
  DEVNET_INVALID_TX_RATE: z.coerce.number().min(0).max(1).default(0.02),
  DEVNET_EMPTY_BLOCK_RATE: z.coerce.number().min(0).max(1).default(0.1),
  /** Share of the history (its first blocks) written by the legacy chaincode. */
  DEVNET_LEGACY_SHARE: z.coerce.number().min(0).max(1).default(0.1),
  /** Mean transactions a non-empty block aims for; unset: the built-in 1–6 mix (mean 3.3). */
  DEVNET_TXS_PER_BLOCK: z.coerce.number().min(1).max(MAX_TXS_PER_BLOCK).optional(),
  /**
   * Directory for the history's files (replaced on every start). Unset: `<schedule file>-history/`
   * beside DEVNET_SCHEDULE_FILE, or without one a temporary directory removed on shutdown.
   */
  DEVNET_HISTORY_DIR: z.string().min(1).optional(),
  /**
   * Keep the chain's schedule in this file: a restart then serves the same chain (extended by the
   * blocks that fell due), which an index built from it needs. Unset: a new chain per start.
   */
  DEVNET_SCHEDULE_FILE: z.string().min(1).optional(),
  /** With a schedule file: days the first history is spread over, ending at the first start. */
  DEVNET_HISTORY_DAYS: z.coerce.number().min(0.01).max(365).default(30),
  /**
   * Origin of the NFT image URLs the devnet's records hold (it serves `/images/…` itself). Unset:
   * `http://127.0.0.1:<DEVNET_PORT>`. A schedule file keeps the origin of the chain's first start.
   */
  DEVNET_IMAGE_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type DevnetConfig = Readonly<z.output<typeof DevnetConfigSchema>>;

/** History spacing when live blocks are off. */
const DEFAULT_SPACING_SEC = 5;

export function devnetOptionsFrom(config: DevnetConfig, nowSec: number): DevnetOptions {
  const spacing = config.DEVNET_BLOCK_INTERVAL_MS > 0 ? config.DEVNET_BLOCK_INTERVAL_MS / 1000 : DEFAULT_SPACING_SEC;
  return {
    seed: config.DEVNET_SEED,
    genesisTime:
      config.DEVNET_GENESIS_TIME ??
      Math.max(0, Math.floor(nowSec) - Math.round(config.DEVNET_HISTORY_BLOCKS * spacing)),
    historyBlocks: config.DEVNET_HISTORY_BLOCKS,
    blockIntervalSec: spacing,
    wallets: config.DEVNET_WALLETS,
    invalidTxRate: config.DEVNET_INVALID_TX_RATE,
    emptyBlockRate: config.DEVNET_EMPTY_BLOCK_RATE,
    legacyShare: config.DEVNET_LEGACY_SHARE,
    txsPerBlock: config.DEVNET_TXS_PER_BLOCK,
    imageOrigin: devnetImageOrigin(config),
  };
}

export function devnetImageOrigin(config: DevnetConfig): string {
  return config.DEVNET_IMAGE_ORIGIN ?? `http://127.0.0.1:${config.DEVNET_PORT}`;
}
