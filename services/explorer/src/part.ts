import { Worker } from 'node:worker_threads';
import type { Logger } from '@mtc/runtime';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/**
 * A part of the all-in-one explorer that runs in its own thread (worker_threads), so that its
 * synchronous work — the devnet cutting blocks, the projector's SQLite commits — never stalls the
 * API's event loop. The thread runs `entry` (a module calling `servePart`), says when it is
 * ready, reports a fatal error, hands over its metrics when asked, and stops cleanly when asked.
 */
export type PartMessage<R> =
  | { type: 'ready'; value: R }
  | { type: 'fatal'; message: string; stack?: string; code?: string }
  | { type: 'stopped' }
  | { type: 'metrics'; id: number; value: PartMetrics };

/** A part's metrics as prom-client's `getMetricsAsJSON` gives them, for `AggregatorRegistry.aggregate`. */
export type PartMetrics = MetricObjectWithValues<MetricValue<string>>[];

export interface RunningPart<R> {
  value: R;
  /** Rejects when the part fails in a way retrying cannot mend (or its thread dies). */
  fatal: Promise<never>;
  /** Asks the part to shut down in order and waits for its thread to end. */
  stop(): Promise<void>;
  /** The part's metrics now; none from a part that does not answer within METRICS_WAIT_MS. */
  metrics(): Promise<PartMetrics>;
}

const STOP_GRACE_MS = 15_000;
const METRICS_WAIT_MS = 1_000;

export async function startPart<R>(name: string, entry: URL, data: unknown, logger: Logger): Promise<RunningPart<R>> {
  const worker = new Worker(entry, { workerData: data, name });
  let stopping = false;
  let failFatal!: (error: unknown) => void;
  const fatal = new Promise<never>((_, reject) => (failFatal = reject));
  fatal.catch(() => {}); // observed by the caller
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const asked = new Map<number, (metrics: PartMetrics) => void>();
  let asks = 0;

  const value = await new Promise<R>((resolve, reject) => {
    worker.on('message', (message: PartMessage<R>) => {
      if (message.type === 'ready') resolve(message.value);
      if (message.type === 'metrics') asked.get(message.id)?.(message.value);
      if (message.type === 'fatal') {
        const error = Object.assign(new Error(`${name}: ${message.message}`), {
          stack: message.stack,
          code: message.code,
        });
        reject(error);
        failFatal(error);
      }
    });
    worker.once('error', (error: Error) => {
      reject(error);
      failFatal(error);
    });
    void exited.then((code) => {
      const error = new Error(`${name} thread exited with code ${code}`);
      reject(error);
      if (!stopping) failFatal(error);
    });
  });

  return {
    value,
    fatal,
    async stop() {
      stopping = true;
      worker.postMessage({ type: 'stop' });
      const timer = setTimeout(() => {
        logger.warn({ part: name }, 'part did not stop in time; terminating its thread');
        void worker.terminate();
      }, STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
    metrics() {
      const id = ++asks;
      return new Promise<PartMetrics>((resolve) => {
        const answer = (metrics: PartMetrics): void => {
          clearTimeout(timer);
          asked.delete(id);
          resolve(metrics);
        };
        const timer = setTimeout(() => answer([]), METRICS_WAIT_MS);
        asked.set(id, answer);
        worker.postMessage({ type: 'metrics', id });
      });
    },
  };
}
