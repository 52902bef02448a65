import type { z } from 'zod';
import { ConfigError, parseConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createShutdown, ShutdownConfigSchema, type Shutdown } from './shutdown.ts';

/**
 * The one context a service's `main` builds and passes down: config, logger and shutdown. Config
 * errors print the readable message and exit 1; a fatal pipeline error shuts down in order and
 * exits 1 (a supervisor restarts the process, which resumes from its committed position).
 */
export interface ServiceContext<C> {
  config: C;
  logger: Logger;
  shutdown: Shutdown;
  /** Logs, shuts down and exits 1. */
  fail(error: unknown): Promise<never>;
}

export function createServiceContext<S extends z.ZodType>(
  name: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): ServiceContext<Readonly<z.infer<S>>> {
  let config: Readonly<z.infer<S>>;
  let timeoutMs: number;
  try {
    config = parseConfig(schema, env);
    timeoutMs = parseConfig(ShutdownConfigSchema, env).SHUTDOWN_TIMEOUT_MS;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${name}: ${error.message}`);
    process.exit(1);
  }
  const level = (config as { LOG_LEVEL?: string }).LOG_LEVEL ?? 'info';
  const logger = createLogger({ level, name });
  const shutdown = createShutdown(logger, { timeoutMs });
  shutdown.installSignalHandlers();
  return {
    config,
    logger,
    shutdown,
    fail: async (error) => {
      logger.fatal({ err: error }, 'fatal error');
      await shutdown.run('fatal');
      process.exit(1);
    },
  };
}
