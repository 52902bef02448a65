import { AdapterConfigSchema } from '@mtc/adapters';
import { ApiConfigSchema } from '@mtc/api';
import { DevnetFaultConfigSchema } from '@mtc/devnet';
import { port, ShutdownConfigSchema } from '@mtc/runtime';
import { z } from 'zod';

/**
 * The all-in-one process's configuration: every variable, its default and its bounds in one
 * place (.env.example lists them). With nothing set, a devnet is started and followed.
 */
export const ExplorerConfigSchema = AdapterConfigSchema.extend({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Follow this node instead of starting the built-in devnet. */
  CHAIN_NODE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DEVNET_PORT: port.default(0),
  DEVNET_SEED: z.coerce.number().int().nonnegative().default(1),
  /** Blocks of history the devnet has when it first starts. */
  DEVNET_HISTORY_BLOCKS: z.coerce.number().int().min(1).max(2_000_000).default(3000),
  /** Days the first-start history is spread over, ending now. */
  DEVNET_HISTORY_DAYS: z.coerce.number().min(0.01).max(365).default(30),
  /** One live block per this many ms after the history; 0 stops the chain at its history. */
  DEVNET_BLOCK_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  FOLLOWER_BLOCK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  FOLLOWER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  FOLLOWER_BATCH_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(200),
  PROJECTOR_MAX_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /**
   * Threads answering the API, sharing PORT (the main thread and API_THREADS - 1 more): a cache
   * miss costs about a millisecond of one core, so a second thread answers about twice as many.
   */
  API_THREADS: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * Diagnostics: CPU profiles of the follower's and the projector's threads for PROFILE_SECONDS
   * from the first time each of these heights is published, and projected (comma-separated),
   * into PROFILE_DIR (`follower-at-<height>.cpuprofile`, `projector-at-<height>.cpuprofile`).
   */
  PROFILE_AT_HEIGHTS: z
    .string()
    .regex(/^(\d+(,\d+)*)?$/, 'heights separated by commas, e.g. 1000,27000')
    .default('')
    .transform((s) => (s === '' ? [] : s.split(',').map(Number))),
  PROFILE_SECONDS: z.coerce.number().int().min(1).max(600).default(15),
  PROFILE_DIR: z.string().min(1).default('profiles'),
  /**
   * An ops port beside the API's: /healthz, /readyz and /metrics (Prometheus: every part's
   * metrics, the follower's, the projector's and each API thread's, and the process's own).
   * Unset: none (the API port serves /healthz and /readyz itself).
   */
  OPS_PORT: port.optional(),
  OPS_HOST: z.string().min(1).default('127.0.0.1'),
})
  .extend(ShutdownConfigSchema.shape)
  // The built-in devnet's fault injector (DEVNET_FAULT_*), to drill retries; off by default.
  .extend(DevnetFaultConfigSchema.shape)
  .extend(ApiConfigSchema.shape);

export type ExplorerConfig = z.infer<typeof ExplorerConfigSchema>;
