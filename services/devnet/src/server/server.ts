import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Devnet } from '../chain/devnet.ts';
import { createRng } from '../rng.ts';
import { writeReply } from './respond.ts';
import { handle, matchRoute, type Reply } from './routes.ts';

export const DevnetServerOptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Cut a live block every this many ms; 0 = no live blocks. */
  liveIntervalMs: z.number().int().nonnegative().default(0),
  /** Share of node-route requests answered 412 "MTC Server connection error" (client retry drills). */
  faultRate: z.number().min(0).max(1).default(0),
});

export type DevnetServerOptions = z.input<typeof DevnetServerOptionsSchema>;

export interface DevnetServer {
  /** Base URL, e.g. http://127.0.0.1:20922 */
  readonly url: string;
  /** Stops live blocks, then stops accepting and closes idle keep-alive connections. */
  close(): Promise<void>;
}

/** Faults are drawn from their own fixed-seed stream, so they never disturb the chain's. */
const FAULT_SEED = 0x0fa017;

/**
 * Serves a devnet over plain HTTP with the node's read routes (`GET /block`, `/block/{n|hash}`,
 * `/transaction/{txid}`) and the devnet-only `GET /debug/state`. Connections are kept alive.
 */
export async function startDevnetServer(devnet: Devnet, options: DevnetServerOptions = {}): Promise<DevnetServer> {
  const opts = DevnetServerOptionsSchema.parse(options);
  const faults = createRng(FAULT_SEED);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    writeReply(
      req,
      res,
      answer(devnet, req, () => faults.next() < opts.faultRate),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const live = opts.liveIntervalMs > 0 ? setInterval(() => devnet.cutBlock(), opts.liveIntervalMs) : undefined;
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${urlHost(opts.host)}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(live);
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

function answer(devnet: Devnet, req: IncomingMessage, fault: () => boolean): Reply {
  const method = req.method ?? 'GET';
  const pathname = (req.url ?? '/').split('?', 1)[0]!;
  const route = matchRoute(method, pathname);
  if (!route) return { kind: 'express-404', method, pathname };
  if (route.name !== 'debug-state' && fault()) {
    return { kind: 'node', status: 412, body: 'MTC Server connection error' };
  }
  try {
    return handle(devnet, route);
  } catch (error) {
    // ND's errorHandler: a thrown error becomes 412 with its message ("not found" ones 404).
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'node', status: message.includes('not found') ? 404 : 412, body: message };
  }
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
