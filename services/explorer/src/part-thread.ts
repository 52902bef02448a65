import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, createShutdown, type Logger, type Shutdown } from '@mtc/runtime';
import { Registry } from 'prom-client';
import type { PartMessage } from './part.ts';

/**
 * The thread side of `startPart`: runs `start` with the data the main thread sent, tells the main
 * thread when it is ready or has failed, and shuts down in order when asked to stop.
 */
export interface PartStarted<R> {
  value: R;
  /** Rejects when the part can no longer go on. */
  fatal?: Promise<never>;
}

export async function servePart<D extends { LOG_LEVEL: string }, R>(
  part: string,
  start: (data: D, shutdown: Shutdown, logger: Logger, registry: Registry) => Promise<PartStarted<R>>,
): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error(`${part} must run in a worker thread (see part.ts)`);
  const data = workerData as D;
  const logger = createLogger({ level: data.LOG_LEVEL }).child({ part });
  const shutdown = createShutdown(logger);
  // The part's own metrics; the main thread adds them to its /metrics (the process's own it keeps itself).
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'explorer' });
  const send = (message: PartMessage<R>): void => port.postMessage(message);
  const fail = (error: unknown): void => {
    const e = error instanceof Error ? error : new Error(String(error));
    const code = (e as { code?: unknown }).code;
    send({ type: 'fatal', message: e.message, stack: e.stack, code: typeof code === 'string' ? code : undefined });
    void shutdown.run('fatal').then(() => port.close());
  };

  port.on('message', (message: { type: string; id?: number }) => {
    if (message.type === 'stop') void shutdown.run('stop').then(() => port.close());
    if (message.type === 'metrics')
      void registry.getMetricsAsJSON().then((value) => send({ type: 'metrics', id: message.id ?? 0, value }));
  });
  try {
    const started = await start(data, shutdown, logger, registry);
    send({ type: 'ready', value: started.value });
    started.fatal?.catch(fail);
  } catch (error) {
    fail(error);
  }
}
