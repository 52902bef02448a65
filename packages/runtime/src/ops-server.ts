import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The operations surface every service exposes on its own port: `/healthz` (the process lives),
 * `/readyz` (dependencies reachable and lag under the threshold; 503 otherwise) and `/metrics`
 * (Prometheus text format).
 */
export interface Readiness {
  ready: boolean;
  /** Why not, or figures behind the answer; served as JSON. */
  detail: Record<string, unknown>;
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export async function startOpsServer(options: {
  port: number;
  host?: string;
  registry: Registry;
  readiness: () => Promise<Readiness>;
}): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown, type = 'application/json'): void => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return reply(405, { error: { code: 'method_not_allowed', message: 'GET only' } });
    if (path === '/healthz') return reply(200, { status: 'ok' });
    if (path === '/readyz') {
      options.readiness().then(
        (r) =>
          r.ready
            ? reply(200, { status: 'ready', ...r.detail })
            : reply(503, { error: { code: 'unavailable', message: 'not ready' }, ...r.detail }),
        (error: unknown) => reply(503, { error: { code: 'unavailable', message: String(error) } }),
      );
      return;
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => reply(200, text, options.registry.contentType),
        () => reply(500, { error: { code: 'internal', message: 'metrics unavailable' } }),
      );
      return;
    }
    reply(404, { error: { code: 'not_found', message: `no route ${path}` } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
