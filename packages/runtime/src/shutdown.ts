import type { Logger } from 'pino';

/**
 * Ordered shutdown: hooks run in reverse registration order (stop intake first, close clients
 * last), once, on SIGTERM/SIGINT or on a fatal error.
 */
export interface Shutdown {
  /** Aborted when shutdown begins: long-running loops watch it. */
  readonly signal: AbortSignal;
  add(name: string, hook: () => Promise<void>): void;
  run(reason: string): Promise<void>;
  /** Installs SIGTERM/SIGINT handlers that run shutdown then exit. */
  installSignalHandlers(): void;
}

export function createShutdown(logger: Logger): Shutdown {
  const controller = new AbortController();
  const hooks: { name: string; hook: () => Promise<void> }[] = [];
  let running: Promise<void> | undefined;
  const self: Shutdown = {
    signal: controller.signal,
    add: (name, hook) => void hooks.push({ name, hook }),
    run: (reason) =>
      (running ??= (async () => {
        logger.info({ reason }, 'shutting down');
        controller.abort();
        for (const { name, hook } of [...hooks].reverse()) {
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
          void self.run(sig).then(() => process.exit(0));
        });
      }
    },
  };
  return self;
}
