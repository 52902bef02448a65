import { BlockEvent } from '@mtc/domain';
import type { EventLog, LogRecord, Subscription } from '@mtc/ports';
import type { Logger } from 'pino';

/**
 * The live end of the block topic, read once per API server for all its stream connections: one
 * group-less log reader started `keep` blocks before the end offset, each block parsed once and let
 * through once the read models hold it (one head poll for every connection), the newest `keep`
 * blocks held for connections a little behind. A connection further back reads the log itself
 * until it reaches what the tail holds (see hub.ts), so the tail is an optimisation: the stream's
 * order and ids never depend on it.
 *
 * The reader starts with the first connection and stops `idleMs` after the last one leaves. A
 * failed reader is started again from the offset after the last record it handled.
 */
export interface LiveTail {
  /**
   * Counts a connection in, starting the reader when none runs; resolves once the reader's start is
   * known (or its start failed: then `willReach` is false and connections read the log themselves).
   * Call the returned function once when the connection ends.
   */
  join(): Promise<() => void>;
  /** The block at `height` when the tail holds it (indexed, among the newest `keep`). */
  block(height: number): BlockEvent | undefined;
  /** The newest block let through (0: none yet). */
  newest(): number;
  /** Whether the running reader is at or before the offset of block `height` (`height` − 1 or later). */
  willReach(height: number): boolean;
  /** Calls `listener` after each block let through; returns the function that removes it. */
  listen(listener: () => void): () => void;
  /** Stops the reader; connections still waiting are woken (they find the tail stopped). */
  close(): Promise<void>;
}

export interface LiveTailDeps {
  log: EventLog;
  topic: string;
  /** The indexed head's height (cached by the caller). */
  head: () => Promise<number>;
  /** How many of the newest blocks are held (the oldest goes first). */
  keep: number;
  /** How often the tail looks at the indexed head while the next block waits for it. */
  pollMs: number;
  /** How long the reader runs on after the last connection left. */
  idleMs: number;
  /** Wait before a failed reader is started again. */
  retryMs?: number;
  logger: Logger;
}

/** Thrown by the tail's own handler to end its reader when it is stopped. */
class Stopped extends Error {
  override name = 'Stopped';
}

interface Run {
  /** Offset the run's reader started at: it will deliver every block whose offset is at or past it. */
  from: number;
  stop(): Promise<void>;
}

export function createLiveTail(deps: LiveTailDeps): LiveTail {
  const { log, topic, logger } = deps;
  const retryMs = deps.retryMs ?? 1_000;
  /** Insertion order is height order: the first key is the oldest held. */
  const held = new Map<number, BlockEvent>();
  const listeners = new Set<() => void>();
  let newest = 0;
  let users = 0;
  let closed = false;
  let run: Run | undefined;
  let idle: NodeJS.Timeout | undefined;
  /** Starts and stops, one after the other. */
  let steps: Promise<void> = Promise.resolve();
  const serially = (step: () => Promise<void>): Promise<void> => (steps = steps.then(step, step));

  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };

  const start = async (): Promise<Run> => {
    const end = Number(await log.endOffset(topic));
    const from = Math.max(0, end - deps.keep);
    let offset = from;
    let stopping = false;
    let reader: Subscription | undefined;
    let wake: (() => void) | undefined;
    const pause = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
      });
    let indexed = 0;
    const handle = async (batch: readonly LogRecord[]): Promise<void> => {
      for (const record of batch) {
        if (stopping) throw new Stopped();
        const block = BlockEvent.parse(record.value);
        // A block logged again (after a crash of an older follower) was let through already.
        if (block.height > newest) {
          while (indexed < block.height) {
            indexed = await deps.head();
            if (indexed >= block.height) break;
            await pause(deps.pollMs);
            if (stopping) throw new Stopped();
          }
          held.set(block.height, block);
          newest = block.height;
          for (const height of held.keys()) {
            if (held.size <= deps.keep) break;
            held.delete(height);
          }
          notify();
        }
        offset = Number(record.offset) + 1;
      }
    };
    const reading = (async () => {
      while (!stopping) {
        try {
          reader = await log.read({ topic, from: String(offset), maxBatch: 50 }, handle);
          await reader.done;
          if (stopping) break;
          logger.warn({ offset }, 'stream tail: the log reader ended; reading again');
        } catch (error) {
          if (stopping || error instanceof Stopped) break;
          logger.warn({ err: error, offset }, 'stream tail: the log reader failed; reading again');
        }
        reader = undefined;
        await pause(retryMs);
      }
    })();
    logger.debug({ from }, 'stream tail started');
    return {
      from,
      async stop() {
        stopping = true;
        wake?.();
        await reader?.stop();
        await reading;
        logger.debug({ offset }, 'stream tail stopped');
      },
    };
  };

  const stop = async (): Promise<void> => {
    const running = run;
    run = undefined;
    await running?.stop();
    held.clear();
    newest = 0;
    notify();
  };

  return {
    async join() {
      users++;
      clearTimeout(idle);
      await serially(async () => {
        if (run || closed) return;
        try {
          run = await start();
        } catch (error) {
          logger.warn({ err: error }, 'stream tail: could not start; connections read the log themselves');
        }
      });
      let left = false;
      return () => {
        if (left) return;
        left = true;
        users--;
        if (users > 0 || closed) return;
        clearTimeout(idle);
        idle = setTimeout(() => void serially(async () => (users === 0 ? stop() : undefined)), deps.idleMs);
        idle.unref();
      };
    },
    block: (height) => held.get(height),
    newest: () => newest,
    willReach: (height) => run !== undefined && height - 1 >= run.from,
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(idle);
      await serially(stop);
    },
  };
}
