import { BlockEvent } from '@mtc/domain';
import type { EventLog, LogRecord, Subscription } from '@mtc/ports';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { blockEvents, comparePositions, formatEvent, type Position, type StreamFilter } from './events.ts';
import { createLiveTail } from './tail.ts';

/**
 * The live stream's connections, fed from the block topic, never from the store:
 *
 * - One shared tail per server (tail.ts): a single group-less reader at the end of the topic parses
 *   each block once, lets it through once the read models hold it (the cached head, polled while the
 *   next block waits) and keeps the newest STREAM_TAIL_BLOCKS. Live connections and those a little
 *   behind are served from it, so a thousand subscribers cost one log reader, not a thousand.
 * - A connection further back (a resume from far back) reads the topic itself from the block it
 *   needs (`EventLog.read`: no group, nothing committed) until it reaches a block the tail holds,
 *   then joins the tail. Any API replica serves any subscriber: the log is the buffer.
 * - Back-pressure: a connection takes its next block only once the events before it were written to
 *   the socket; a socket whose unsent bytes pass STREAM_BUFFER_BYTES is waited on, and one that stays
 *   over it for STREAM_SLOW_CLIENT_MS is dropped (its client resumes with Last-Event-ID). So a
 *   connection holds at most about STREAM_BUFFER_BYTES plus one block, whatever the client does.
 * - Caps: STREAM_MAX_PER_CLIENT connections per client address (429) and STREAM_MAX_CONNECTIONS in
 *   all (503), refused before the stream starts, both with Retry-After.
 */
export const StreamConfigSchema = z.object({
  /** A comment line this often keeps proxies and clients from timing an idle stream out. */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /** The `retry:` hint: how long an EventSource waits before it reconnects. */
  STREAM_RETRY_MS: z.coerce.number().int().min(0).max(300_000).default(2_000),
  STREAM_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  STREAM_MAX_PER_CLIENT: z.coerce.number().int().min(1).max(10_000).default(8),
  /** Unsent bytes a connection may hold before its reader waits for the client. */
  STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 2 ** 20)
    .default(2 ** 20),
  /** How long a connection may stay over STREAM_BUFFER_BYTES before it is dropped. */
  STREAM_SLOW_CLIENT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** How often a connection waiting for the indexer looks at the (cached) indexed head. */
  STREAM_HEAD_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  /** Newest blocks the shared tail holds for connections a little behind the head. */
  STREAM_TAIL_BLOCKS: z.coerce.number().int().min(1).max(100_000).default(512),
  /** How long the shared tail's log reader runs on after the last connection left. */
  STREAM_TAIL_IDLE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
});
export type StreamConfig = z.output<typeof StreamConfigSchema>;

/** What a connection writes to: an http.ServerResponse, or any Writable in tests. */
export interface StreamSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  end(): void;
  destroy(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

export interface StreamRequest {
  /** Events up to and including this position were seen (Last-Event-ID); null: from the next block. */
  after: Position | null;
  filter: StreamFilter;
}

export interface StreamHubDeps {
  log: EventLog;
  /** The block topic (mtc.blocks.v3 under the deployment's prefix). */
  topic: string;
  /** The indexed head's height, as requests share it (cached). */
  head: () => Promise<number>;
  config: StreamConfig;
  logger: Logger;
}

export interface StreamHub {
  /**
   * Takes a connection slot for `client` (its rate-limit key), or throws the 429/503 ApiError. Call
   * the returned function once when the connection ends.
   */
  admit(client: string): () => void;
  /** Streams to `sink` until the client goes away, the hub closes or the log fails; never rejects. */
  serve(sink: StreamSink, request: StreamRequest): Promise<void>;
  /** Open connections. */
  connections(): number;
  /** Ends every connection (so that the HTTP server can close) and refuses new ones. */
  close(): Promise<void>;
}

/** Why a connection ended, for its log line. */
class Ended extends Error {
  override name = 'Ended';
}

/** Thrown by a connection's own reader once the tail holds its next block. */
class Joined extends Error {
  override name = 'Joined';
}

/** An event of the stream as the socket gets it. */
interface Formatted {
  id: Position;
  text: string;
}

/** The unfiltered stream's events of each block the tail holds, formatted once for every connection. */
const unfiltered = new WeakMap<BlockEvent, Formatted[]>();

/** The events `filter` carries of `block`, as SSE text. */
function eventsOf(block: BlockEvent, filter: StreamFilter): Formatted[] {
  const cached = filter.kind === 'all' ? unfiltered.get(block) : undefined;
  if (cached) return cached;
  const events = blockEvents(block, filter).map((event) => ({ id: event.id, text: formatEvent(event) }));
  if (filter.kind === 'all') unfiltered.set(block, events);
  return events;
}

/** How long a refused client is told to wait (s). */
const RETRY_AFTER_S = 5;

export function createStreamHub(deps: StreamHubDeps): StreamHub {
  const { config, log, topic } = deps;
  const logger = deps.logger.child({ component: 'stream' });
  const perClient = new Map<string, number>();
  let total = 0;
  let closed = false;
  const live = new Set<() => void>();
  const tail = createLiveTail({
    log,
    topic,
    head: deps.head,
    keep: config.STREAM_TAIL_BLOCKS,
    pollMs: config.STREAM_HEAD_POLL_MS,
    idleMs: config.STREAM_TAIL_IDLE_MS,
    logger,
  });

  const admit = (client: string): (() => void) => {
    if (closed) throw new ApiError('unavailable', 'the server is shutting down');
    const mine = perClient.get(client) ?? 0;
    if (mine >= config.STREAM_MAX_PER_CLIENT)
      throw new ApiError(
        'rate_limited',
        `at most ${config.STREAM_MAX_PER_CLIENT} stream connections per client; close one, or retry in ${RETRY_AFTER_S} s`,
        { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
      );
    if (total >= config.STREAM_MAX_CONNECTIONS)
      throw new ApiError(
        'unavailable',
        `this server holds its most stream connections (${config.STREAM_MAX_CONNECTIONS}); retry in ${RETRY_AFTER_S} s`,
        { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
      );
    perClient.set(client, mine + 1);
    total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      total--;
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    };
  };

  const serve = async (sink: StreamSink, request: StreamRequest): Promise<void> => {
    let ended: Ended | undefined;
    const waiting = new Set<() => void>();
    const end = (reason: string): void => {
      ended ??= new Ended(reason);
      for (const wake of [...waiting]) wake();
    };
    const onClose = (): void => end('client went away');
    sink.once('close', onClose);
    const stopHub = (): void => end('server closing');
    live.add(stopHub);
    /** Resolves after `ms`, or at once when the connection ends. */
    const pause = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        waiting.add(wake);
      });
    const check = (): void => {
      if (ended) throw ended;
    };

    /** Writes, then waits while the socket holds more than its buffer; drops a client stuck there. */
    const send = async (text: string): Promise<void> => {
      check();
      sink.write(text);
      if (sink.writableLength <= config.STREAM_BUFFER_BYTES) return;
      const drained = await new Promise<boolean>((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          sink.off('drain', onDrain);
          waiting.delete(onEnd);
          resolve(ok);
        };
        const onDrain = (): void => done(true);
        const onEnd = (): void => done(true);
        const timer = setTimeout(() => done(false), config.STREAM_SLOW_CLIENT_MS);
        sink.once('drain', onDrain);
        waiting.add(onEnd);
      });
      check();
      if (!drained) end('slow client: its buffer stayed full');
      check();
    };

    const heartbeat = setInterval(() => {
      // A full buffer is traffic enough; a heartbeat would only add to it.
      if (!ended && sink.writableLength < config.STREAM_BUFFER_BYTES) sink.write(': heartbeat\n\n');
    }, config.STREAM_HEARTBEAT_MS);

    let reader: Subscription | undefined;
    let leave: (() => void) | undefined;
    try {
      leave = await tail.join();
      check();
      sink.write(`retry: ${config.STREAM_RETRY_MS}\n\n`);
      const after = request.after;
      // The first block to send: the one holding the last seen event (the rest of it), or the next.
      let next = after === null ? (await deps.head()) + 1 : after.length === 1 ? after[0]! + 1 : after[0]!;
      /** Sends what the subscription carries of `block` (the next one) past the last seen event. */
      const sendBlock = async (block: BlockEvent): Promise<void> => {
        for (const event of eventsOf(block, request.filter)) {
          if (after !== null && comparePositions(event.id, after) <= 0) continue;
          await send(event.text);
        }
        next = block.height + 1;
      };
      /** Resolves once the tail lets a block past `height` through (or stops), or the connection ends. */
      const tailPast = (height: number): Promise<void> =>
        new Promise((resolve) => {
          const passed = (): boolean => tail.newest() > height || !tail.willReach(height + 1);
          const done = (): void => {
            unlisten();
            waiting.delete(done);
            resolve();
          };
          const unlisten = tail.listen(() => {
            if (passed()) done();
          });
          waiting.add(done);
          if (ended || passed()) done();
        });

      let indexed = 0;
      /** Waits until the read models hold `height` (for blocks read here rather than by the tail). */
      const gate = async (height: number): Promise<void> => {
        while (indexed < height) {
          check();
          indexed = await deps.head();
          if (indexed < height) await pause(config.STREAM_HEAD_POLL_MS);
        }
      };
      /** Reads the log from `next` with a reader of its own, until the tail holds the next block. */
      const catchUp = async (): Promise<void> => {
        // Block h is at offset h − 1 (the topic holds every block once, in order, from block 1); a log
        // that does not (a block logged twice, after a crash of an older follower) is searched from there.
        let from = Math.max(0, Math.min(next - 1, Number(await log.endOffset(topic))));
        for (;;) {
          check();
          let misplaced: number | null = null;
          const handle = async (batch: readonly LogRecord[]): Promise<void> => {
            for (const record of batch) {
              const block = BlockEvent.parse(record.value);
              if (block.height < next) continue;
              if (block.height > next && from > 0 && misplaced === null && block.height - next <= from) {
                // Started past the block: go back by the difference and look again.
                misplaced = block.height - next;
                throw new Ended('relocate');
              }
              await gate(block.height);
              await sendBlock(block);
              if (tail.block(next)) throw new Joined();
            }
          };
          reader = await log.read({ topic, from: String(from), maxBatch: 50 }, handle);
          const outcome = await Promise.race([
            reader.done.then(
              () => null,
              (error: unknown) => error,
            ),
            new Promise<null>((resolve) => {
              const wake = (): void => {
                waiting.delete(wake);
                resolve(null);
              };
              waiting.add(wake);
              if (ended) wake();
            }),
          ]);
          await reader.stop();
          reader = undefined;
          check();
          if (outcome instanceof Joined) return;
          if (misplaced !== null && outcome instanceof Ended) {
            from = Math.max(0, from - misplaced);
            continue;
          }
          throw outcome instanceof Error ? outcome : new Error('the log reader ended', { cause: outcome });
        }
      };

      for (;;) {
        check();
        const held = tail.block(next);
        if (held) await sendBlock(held);
        else if (next > tail.newest() && tail.willReach(next)) await tailPast(next - 1);
        else await catchUp();
      }
    } catch (error) {
      if (ended || error instanceof Ended) {
        logger.debug({ reason: (ended ?? (error as Ended)).message }, 'stream ended');
      } else {
        logger.error({ err: error }, 'stream failed');
      }
    } finally {
      clearInterval(heartbeat);
      live.delete(stopHub);
      sink.off('close', onClose);
      await reader?.stop();
      leave?.();
      if (!sink.destroyed) {
        // A dropped slow client gets no clean end: its buffer is what we refuse to keep.
        if (ended?.message.startsWith('slow client')) sink.destroy();
        else sink.end();
      }
    }
  };

  return {
    admit,
    serve,
    connections: () => total,
    async close() {
      closed = true;
      for (const stop of [...live]) stop();
      await tail.close();
    },
  };
}
