import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { load, type LoadResult } from './load.ts';

/**
 * The serving ceiling an HTTP endpoint is held to: a bare `node:http` server that answers every
 * request with one fixed JSON body and does nothing else. It runs in a child process, so it has an
 * event loop (and a core) of its own, as the API under test has; the load comes from bench/load.ts
 * with the same connections and duration as the measurement it is compared with.
 *
 * The body size is set per measurement over the IPC channel, so the hot path is only `res.end(body)`.
 * Executed directly with `--serve`, this file is that server.
 */
export interface CeilingServer {
  url: string;
  /** Measures the bare server answering `bytes`-byte bodies. */
  measure(bytes: number, options: { connections: number; durationSec: number }): Promise<LoadResult>;
  /** Makes it answer `bytes`-byte bodies from now on (for a load tool of the caller's). */
  answer(bytes: number): Promise<void>;
  close(): Promise<void>;
}

type ToServer = { bytes: number };
type FromServer = { port: number } | { ready: number };

export async function startCeilingServer(): Promise<CeilingServer> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--disable-warning=ExperimentalWarning'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const port = await nextMessage(child, (m) => ('port' in m ? m.port : undefined));
  const url = `http://127.0.0.1:${port}/`;
  const answer = async (bytes: number): Promise<void> => {
    child.send({ bytes } satisfies ToServer);
    await nextMessage(child, (m) => ('ready' in m && m.ready === bytes ? true : undefined));
  };
  return {
    url,
    answer,
    async measure(bytes, options) {
      await answer(bytes);
      return load(url, options);
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function nextMessage<T>(child: ChildProcess, pick: (message: FromServer) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServer): void => {
      const value = pick(message);
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`ceiling server exited with ${code}`));
    };
    const cleanup = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** A JSON document of exactly `bytes` bytes (a string of x; `0` below two bytes). */
export function jsonBody(bytes: number): Buffer {
  if (bytes < 2) return Buffer.from('0');
  return Buffer.from(`"${'x'.repeat(bytes - 2)}"`);
}

/** The power of two at or below `bytes`: the body size measured for every size in its bucket. */
export function bucketOf(bytes: number): number {
  return 2 ** Math.floor(Math.log2(Math.max(1, bytes)));
}

/**
 * Ceilings measured once per body-size bucket and reused, so a run over thirty endpoints measures
 * a handful of ceilings. The bucket's lower bound is served: a bare server is at least as fast
 * with a smaller body, so a ratio against it is never flattered.
 */
export interface Ceilings {
  forBytes(bytes: number): Promise<{ bucketBytes: number; result: LoadResult }>;
  /** Buckets measured so far: body bytes → req/s. */
  measured(): ReadonlyMap<number, number>;
  close(): Promise<void>;
}

export async function createCeilings(options: { connections: number; durationSec: number }): Promise<Ceilings> {
  const server = await startCeilingServer();
  // Not counted: the first second of a new server is its JIT's, not its serving rate.
  await server.measure(64, { connections: options.connections, durationSec: 1 });
  const cache = new Map<number, Promise<LoadResult>>();
  const done = new Map<number, number>();
  return {
    async forBytes(bytes) {
      const bucketBytes = bucketOf(bytes);
      let pending = cache.get(bucketBytes);
      if (!pending) {
        pending = server.measure(bucketBytes, options);
        cache.set(bucketBytes, pending);
      }
      const result = await pending;
      done.set(bucketBytes, result.reqPerSec);
      return { bucketBytes, result };
    },
    measured: () => done,
    close: () => server.close(),
  };
}

function serve(): void {
  let body = jsonBody(2);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('ceiling server has no port');
    process.send?.({ port: address.port } satisfies FromServer);
  });
  process.on('message', (message: ToServer) => {
    body = jsonBody(message.bytes);
    process.send?.({ ready: message.bytes } satisfies FromServer);
  });
  // The parent going away (a crash included) ends the server too.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

if (import.meta.main && process.argv.includes('--serve')) serve();
