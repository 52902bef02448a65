import type { Logger } from 'pino';
import { z } from 'zod';

/**
 * Ordered shutdown: hooks run in reverse registration order (stop intake first, close clients
 * last), once, on SIGTERM/SIGINT or on a fatal error. A stop by signal that has not finished within
 * SHUTDOWN_TIMEOUT_MS exits 1 anyway, saying which hook it was waiting on: nothing holds a stop for ever.
 */
export interface Shutdown {
  /** Aborted when shutdown begins: long-running loops watch it, /readyz answers 503. */
  readonly signal: AbortSignal;
  add(name: string, hook: () => Promise<void>): void;
  run(reason: string): Promise<void>;
  /** Installs SIGTERM/SIGINT handlers that run shutdown then exit (1 past the deadline). */
  installSignalHandlers(): void;
}

export const ShutdownConfigSchema = z.object({
  /** A stop that has not finished within this many ms exits 1 (the API drains for API_DRAIN_TIMEOUT_MS of it). */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
});

export function createShutdown(
  logger: Logger,
  options: { timeoutMs?: number; exit?: (code: number) => void } = {},
): Shutdown {
  const timeoutMs = options.timeoutMs ?? ShutdownConfigSchema.shape.SHUTDOWN_TIMEOUT_MS.parse(undefined);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const hooks: { name: string; hook: () => Promise<void> }[] = [];
  let running: Promise<void> | undefined;
  let current = '';
  const self: Shutdown = {
    signal: controller.signal,
    add: (name, hook) => void hooks.push({ name, hook }),
    run: (reason) =>
      (running ??= (async () => {
        logger.info({ reason }, 'shutting down');
        controller.abort();
        for (const { name, hook } of [...hooks].reverse()) {
          current = name;
          try {
            await hook();
          } catch (error) {
            logger.error({ err: error, hook: name }, 'shutdown hook failed');
          }
        }
      })()),
    installSignalHandlers: () => {
      for (const sig of ['SIGTERM', 'SIGINT'] as const) {
        process.once(sig, () => {
          const deadline = setTimeout(() => {
            logger.fatal({ timeoutMs, waitingOn: current }, 'shutdown did not finish in time: exiting');
            exit(1);
          }, timeoutMs);
          deadline.unref();
          void self.run(sig).then(() => exit(0));
        });
      }
    },
  };
  return self;
}
