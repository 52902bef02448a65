import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server, for fault tests: clients connect to the proxy instead of the
 * server, and the test decides what the path between them does.
 *
 * - `pass` (the start): bytes flow both ways.
 * - `freeze()`: a server that hangs without closing anything. Open connections stay open but no
 *   byte moves either way (the proxy stops reading, so TCP flow control holds the senders); new
 *   connections are accepted and held without reaching the server. Clients see no error, only
 *   silence, like a deadlocked database.
 * - `thaw()`: everything moves again: held bytes are delivered, held connections are connected to
 *   the server. A client that gave up meanwhile has its connection ended after its held bytes, as a
 *   server that wakes up would still read what was sent before the close.
 *
 * A connection closed or reset on one side is closed on the other, once its side is read again: a
 * frozen proxy reads nothing, so the news waits for the thaw.
 */
export interface TcpProxy {
  /** Where clients connect. */
  readonly host: string;
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's (e.g. a mongodb:// or redis:// URL). */
  rewrite(url: string): string;
  freeze(): void;
  thaw(): void;
  readonly frozen: boolean;
  /** Counts since the start, for a test to say what it injected. */
  stats(): TcpProxyStats;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

export interface TcpProxyStats {
  /** Connections accepted. */
  connections: number;
  /** Of those, open now. */
  open: number;
  /** Connections accepted while frozen (held until a thaw). */
  held: number;
  freezes: number;
  /** Time spent frozen, the current freeze included. */
  frozenMs: number;
}

interface Link {
  client: Socket;
  upstream: Socket | null;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let frozen = false;
  let frozenSince = 0;
  const counts = { connections: 0, held: 0, freezes: 0, frozenMs: 0 };

  /** Moves bytes from `from` to `to`, pausing for back-pressure; a freeze pauses both sides. */
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) from.pause();
    });
    to.on('drain', () => {
      if (!frozen) from.resume();
    });
    from.on('end', () => to.end());
  };

  const open = (link: Link): void => {
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    link.upstream = upstream;
    upstream.setNoDelay(true);
    forward(link.client, upstream);
    forward(upstream, link.client);
    upstream.on('error', () => link.client.destroy());
    upstream.on('close', () => {
      link.client.destroy();
      links.delete(link);
    });
    link.client.resume();
  };

  const server: Server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    counts.connections++;
    client.setNoDelay(true);
    const link: Link = { client, upstream: null };
    links.add(link);
    client.on('error', () => link.upstream?.destroy());
    client.on('close', () => {
      link.upstream?.destroy();
      links.delete(link);
    });
    if (frozen) counts.held++;
    else open(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  const host = '127.0.0.1';
  const port = address.port;

  return {
    host,
    port,
    rewrite(url) {
      const u = new URL(url);
      u.hostname = host;
      u.port = String(port);
      return u.toString();
    },
    freeze() {
      if (frozen) return;
      frozen = true;
      frozenSince = Date.now();
      counts.freezes++;
      for (const { client, upstream } of links) {
        client.pause();
        upstream?.pause();
      }
    },
    thaw() {
      if (!frozen) return;
      frozen = false;
      counts.frozenMs += Date.now() - frozenSince;
      for (const link of [...links]) {
        if (link.upstream === null) open(link);
        else {
          link.client.resume();
          link.upstream.resume();
        }
      }
    },
    get frozen() {
      return frozen;
    },
    stats: () => ({
      connections: counts.connections,
      open: links.size,
      held: counts.held,
      freezes: counts.freezes,
      frozenMs: counts.frozenMs + (frozen ? Date.now() - frozenSince : 0),
    }),
    async close() {
      for (const { client, upstream } of links) {
        client.destroy();
        upstream?.destroy();
      }
      links.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
