import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/**
 * The operations surface every service exposes on its own port: `/healthz` (the process lives),
 * `/readyz` (dependencies reachable and lag under the threshold; 503 otherwise) and `/metrics`
 * (Prometheus text format).
 *
 * `/readyz` answers within a budget (READINESS_BUDGET_MS) whatever its checks do: a check waiting
 * on a hung dependency would otherwise hang the probe too, and a prober that gives up learns
 * nothing about why. Checks are given `withinMs`, a little less than the budget, to bound their
 * own probes with `answerWithin`, so the answer names the dependency that did not answer.
 */
export interface Readiness {
  ready: boolean;
  /** Why not, for people: the error message of a 503. */
  reason?: string;
  /** Figures behind the answer; served as JSON. */
  detail: Record<string, unknown>;
}

export const READINESS_BUDGET_MS = 1000;

/** What a readiness check may spend on its probes, leaving time to answer within the budget. */
export const probeBudget = (budgetMs: number): number => Math.max(1, Math.floor(budgetMs * 0.7));

/** A dependency probe that did not settle in time. */
export class ProbeTimeoutError extends Error {
  override name = 'ProbeTimeoutError';
}

/**
 * Settles as `check` does, or rejects with ProbeTimeoutError (`the read store did not answer within
 * 700 ms`) once `ms` have passed. The check is abandoned, not cancelled: probes are reads.
 */
export function answerWithin<T>(what: string, ms: number, check: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ProbeTimeoutError(`${what} did not answer within ${ms} ms`)), ms);
    const settle =
      <A extends unknown[]>(f: (...a: A) => void) =>
      (...a: A): void => {
        clearTimeout(timer);
        f(...a);
      };
    Promise.resolve().then(check).then(settle(resolve), settle(reject));
  });
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

/**
 * The metrics of the store's and the counters' time budgets, for `observeBudgets` (@mtc/adapters):
 * calls timed out by port and call, and whether each port is in a stall.
 */
export function storeBudgetMetrics(registry: Registry): {
  timeout(port: string, op: string): void;
  stalled(port: string, stalled: boolean): void;
} {
  const timeouts = new Counter({
    name: 'mtc_store_timeouts_total',
    help: 'Store and counters calls that got no answer within their time budget, by port and call',
    labelNames: ['port', 'op'],
    registers: [registry],
  });
  const stalled = new Gauge({
    name: 'mtc_store_stalled',
    help: '1 from a call past its time budget until calls are answered in time again, by port',
    labelNames: ['port'],
    registers: [registry],
  });
  return {
    timeout: (port, op) => timeouts.inc({ port, op }),
    stalled: (port, is) => stalled.set({ port }, is ? 1 : 0),
  };
}

type Probes = Record<string, () => Promise<unknown>>;

/**
 * Runs named probes side by side, each within `withinMs` (names are for people: `the read store`).
 * Gives what each answered, and a reason for each that did not, in the order given.
 */
export async function runProbes<P extends Probes>(
  withinMs: number,
  probes: P,
): Promise<{ values: { [K in keyof P]?: Awaited<ReturnType<P[K]>> }; failures: string[] }> {
  const names = Object.keys(probes);
  const settled = await Promise.allSettled(names.map((name) => answerWithin(name, withinMs, probes[name]!)));
  const values: Record<string, unknown> = {};
  const failures: string[] = [];
  settled.forEach((result, i) => {
    const name = names[i]!;
    if (result.status === 'fulfilled') values[name] = result.value;
    else if (result.reason instanceof ProbeTimeoutError) failures.push(result.reason.message);
    else failures.push(`${name} does not answer (${messageOf(result.reason)})`);
  });
  return { values: values as { [K in keyof P]?: Awaited<ReturnType<P[K]>> }, failures };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function startOpsServer(options: {
  port: number;
  host?: string;
  /** What /metrics serves: a registry, or one built at each scrape (e.g. aggregated over threads). */
  registry: Registry | (() => Promise<Registry>);
  readiness: (limits: { withinMs: number }) => Promise<Readiness>;
  /** `/readyz` answers within this many ms (default READINESS_BUDGET_MS). */
  readinessBudgetMs?: number;
  /** Once aborted (the shutdown's signal), `/readyz` answers 503 without asking `readiness`. */
  stopping?: AbortSignal;
}): Promise<OpsServer> {
  const budgetMs = options.readinessBudgetMs ?? READINESS_BUDGET_MS;
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown, type = 'application/json'): void => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return reply(405, { error: { code: 'method_not_allowed', message: 'GET only' } });
    if (path === '/healthz') return reply(200, { status: 'ok' });
    if (path === '/readyz') {
      if (options.stopping?.aborted)
        return reply(503, { error: { code: 'unavailable', message: 'stopping: finishing the work in hand' } });
      const check = () => options.readiness({ withinMs: probeBudget(budgetMs) });
      answerWithin('the readiness check', budgetMs, check).then(
        (r) =>
          r.ready
            ? reply(200, { status: 'ready', ...r.detail })
            : reply(503, { error: { code: 'unavailable', message: r.reason ?? 'not ready' }, ...r.detail }),
        (error: unknown) =>
          reply(503, {
            error: { code: 'unavailable', message: messageOf(error) },
          }),
      );
      return;
    }
    if (path === '/metrics') {
      const { registry } = options;
      const scrape = async (): Promise<[string, string]> => {
        const current = typeof registry === 'function' ? await registry() : registry;
        return [await current.metrics(), current.contentType];
      };
      scrape().then(
        ([text, type]) => reply(200, text, type),
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
