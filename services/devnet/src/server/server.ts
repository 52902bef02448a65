import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Devnet } from '../chain/devnet.ts';
import { createImageRenderer, IMAGE_PATH, IMAGE_TYPES, type ImageExt } from './images.ts';
import {
  createFaults,
  FaultOptionsSchema,
  truncate,
  writeProxyError,
  type FaultKind,
  type FaultOptions,
} from './faults.ts';
import { setNodeHeaders, writeReply } from './respond.ts';
import { handle, matchRoute, type ChainRoute, type Reply } from './routes.ts';

const DevnetServerOptionsSchema = FaultOptionsSchema.extend({
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Cut a live block every this many ms; 0 = no live blocks. */
  liveIntervalMs: z.number().int().nonnegative().default(0),
});

export type DevnetServerOptions = z.input<typeof DevnetServerOptionsSchema>;

export interface DevnetServer {
  /** Base URL, e.g. http://127.0.0.1:20922 */
  readonly url: string;
  /** Answers altered so far, by fault kind (also served as JSON on `GET /debug/faults`). */
  faultCounts(): Record<FaultKind, number>;
  /**
   * Answers 404 for block `height` for `forMs` (default: until `revealBlock`), counted from the
   * first request for it once the chain has it; independent of `faultRate`.
   */
  hideBlock(height: number, forMs?: number): void;
  revealBlock(height: number): void;
  /** Stops live blocks and pending fault timers, stops accepting, and closes every connection. */
  close(): Promise<void>;
}

/** Slow bodies arrive in this many pieces. */
const SLOW_PIECES = 8;

/**
 * Serves a devnet over plain HTTP with the node's read routes (`GET /block`, `/block/{n|hash}`,
 * `/transaction/{txid}`), the devnet-only `GET /debug/state` and `GET /debug/faults` (the faults
 * injected so far), and the NFT images its records point at (`GET /images/<name>.png|jpg`,
 * standing in for the web hosts of real NFT images). Only the node's routes are faulted.
 * Connections are kept alive.
 */
export async function startDevnetServer(devnet: Devnet, options: DevnetServerOptions = {}): Promise<DevnetServer> {
  const opts = DevnetServerOptionsSchema.parse(options);
  const faults = createFaults(opts);
  if (opts.faultHideBlock !== undefined)
    faults.hide(opts.faultHideBlock, { forMs: opts.faultHideBlockMs, fromFirstAsk: true });
  /** Cancels of timers still holding a response (timeouts, slow bodies). */
  const pending = new Set<() => void>();

  const later = (res: ServerResponse, ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      pending.delete(cancel);
      run();
    }, ms);
    const cancel = () => {
      clearTimeout(timer);
      pending.delete(cancel);
      res.destroy();
    };
    pending.add(cancel);
    res.once('close', () => {
      clearTimeout(timer);
      pending.delete(cancel);
    });
  };

  const images = createImageRenderer();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const image = method === 'GET' || method === 'HEAD' ? IMAGE_PATH.exec(pathname) : null;
    if (image) return void serveImage(req, res, image[1]!, image[2] as ImageExt);
    const route = matchRoute(method, pathname);
    if (!route) return writeReply(req, res, { kind: 'express-404', method, pathname });
    if (route.name === 'debug-state') return writeReply(req, res, answer(devnet, route));
    if (route.name === 'debug-faults')
      return writeReply(req, res, { kind: 'debug', body: faultReport(opts, faults.counts()) });

    if (route.name === 'block') {
      const height = servedHeight(devnet, route.param);
      if (height !== undefined && faults.isHidden(height)) {
        return blockMissing(req, res, route.param);
      }
    }
    const kind = faults.draw(route.name);
    if (kind === null) return writeReply(req, res, answer(devnet, route));
    injectFault(kind, req, res, route);
  });

  async function serveImage(req: IncomingMessage, res: ServerResponse, name: string, ext: ImageExt): Promise<void> {
    try {
      const bytes = await images.render(name, ext);
      res.setHeader('Content-Type', IMAGE_TYPES[ext]);
      res.setHeader('Content-Length', bytes.length);
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.end(req.method === 'HEAD' ? undefined : bytes);
    } catch {
      res.statusCode = 500;
      res.end();
    }
  }

  /** ND get_block's miss, worded with the parameter as the client sent it (decoded): a fault counted. */
  function blockMissing(req: IncomingMessage, res: ServerResponse, raw: string): void {
    faults.injected('block-missing');
    writeReply(req, res, { kind: 'node', status: 404, body: `Block ${safeDecode(raw)} not found` });
  }

  /** Answers with fault `kind` where it applies to this request (counting it), else normally. */
  function injectFault(kind: FaultKind, req: IncomingMessage, res: ServerResponse, route: ChainRoute): void {
    switch (kind) {
      case 'height-zero':
        faults.injected(kind);
        return writeReply(req, res, { kind: 'node', status: 200, body: '0' });
      case 'tx-not-found':
        faults.injected(kind);
        return writeReply(req, res, { kind: 'node', status: 404, body: `Transaction ${param(route)} not found` });
      case 'block-missing': {
        const height = route.name === 'block' ? servedHeight(devnet, route.param) : undefined;
        if (route.name !== 'block' || height === undefined) return writeReply(req, res, answer(devnet, route));
        faults.hide(height);
        return blockMissing(req, res, route.param);
      }
      case 'proxy-500':
      case 'proxy-502':
        faults.injected(kind);
        return writeProxyError(req, res, kind === 'proxy-500' ? 500 : 502);
      case 'timeout':
        faults.injected(kind);
        return later(res, opts.faultTimeoutMs, () => writeReply(req, res, answer(devnet, route)));
      case 'slow-body': {
        const reply = answer(devnet, route);
        if (reply.kind !== 'node' || req.method === 'HEAD') return writeReply(req, res, reply);
        faults.injected(kind);
        setNodeHeaders(res, reply.body);
        res.writeHead(reply.status);
        res.flushHeaders();
        const bytes = Buffer.from(reply.body, 'utf8');
        const size = Math.ceil(bytes.length / SLOW_PIECES);
        const send = (piece: number): void => {
          const chunk = bytes.subarray(piece * size, (piece + 1) * size);
          if (piece + 1 >= SLOW_PIECES) return void res.end(chunk);
          res.write(chunk);
          later(res, opts.faultSlowBodyMs / SLOW_PIECES, () => send(piece + 1));
        };
        return later(res, opts.faultSlowBodyMs / SLOW_PIECES, () => send(0));
      }
      case 'truncated-json': {
        const reply = answer(devnet, route);
        if (reply.kind !== 'node' || reply.status !== 200 || req.method === 'HEAD') return writeReply(req, res, reply);
        faults.injected(kind);
        const body = truncate(reply.body);
        setNodeHeaders(res, body);
        res.statusCode = 200;
        return void res.end(body);
      }
      case 'reset':
        faults.injected(kind);
        return void req.socket.destroy();
    }
  }

  server.listen(opts.port, opts.host);
  await once(server, 'listening');

  const live = opts.liveIntervalMs > 0 ? setInterval(() => devnet.cutBlock(), opts.liveIntervalMs) : undefined;
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${urlHost(opts.host)}:${port}`,
    faultCounts: () => faults.counts(),
    hideBlock: (height, forMs = Infinity) => faults.hide(height, { forMs, fromFirstAsk: true }),
    revealBlock: (height) => faults.reveal(height),
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(live);
        for (const cancel of [...pending]) cancel();
        server.close((error) => (error ? reject(error) : resolve()));
        // Answers are synchronous, so only connections a fault held (or a client that gave up on
        // one left half-open) are not idle; none of them is worth waiting for.
        server.closeAllConnections();
      }),
  };
}

function answer(devnet: Devnet, route: ChainRoute): Reply {
  try {
    return handle(devnet, route);
  } catch (error) {
    // ND's errorHandler: a thrown error becomes 412 with its message ("not found" ones 404).
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'node', status: message.includes('not found') ? 404 : 412, body: message };
  }
}

/** The height of the block `raw` names if the devnet serves it (by number or by hash). */
function servedHeight(devnet: Devnet, raw: string): number | undefined {
  const block = devnet.block(safeDecode(raw));
  return block ? Number(block.sn) : undefined;
}

function param(route: ChainRoute): string {
  return 'param' in route ? safeDecode(route.param).trim() : '';
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function faultReport(opts: FaultOptions, injected: Record<FaultKind, number>): string {
  return JSON.stringify({ rate: opts.faultRate, kinds: opts.faultKinds, seed: opts.faultSeed, injected });
}
