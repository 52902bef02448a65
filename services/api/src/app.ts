import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import { READINESS_BUDGET_MS, type Readiness } from '@mtc/runtime';
import { openModels } from '@mtc/read-models';
import { withAccessLog, type OnResponse } from './access-log.ts';
import { createConsistentReads } from './consistent.ts';
import { createHeadReader, type ApiDeps, type ApiState, type AppContext } from './context.ts';
import type { Head } from './head.ts';
import { corsMiddleware } from './cors.ts';
import { briefly, errorMiddleware, notFound, toErrorResponse } from './errors.ts';
import { broadcastPeers } from './answer-peers.ts';
import { sharedHeadCell } from './head-cell.ts';
import { createHeldAnswers, REQUEST_ID, type HeldAnswers } from './held.ts';
import { createResponseCache } from './http-cache.ts';
import { answerClientError, answerConnect, requestGate, serverOptions, timeBudget } from './limits.ts';
import { createMainnetHeight } from './mainnet-height.ts';
import { mountRoute, routerPath } from './route.ts';
import { allRoutes } from './routes/index.ts';
import { createMemoryRateLimitBuckets, rateLimit } from './rate-limit.ts';
import { createStreamHub, type StreamHub } from './routes/stream/hub.ts';

export type ApiApp = Koa<ApiState> & {
  /** Closes what the app itself holds (the NFT image fetcher's connections); call once it serves no more. */
  close(): Promise<void>;
  /** The live stream's connections; undefined when the app has no event log to read. */
  streams: StreamHub | undefined;
  /** Held answers sent before Koa (held.ts); undefined when rate limiting must see every request. */
  held: HeldAnswers | undefined;
};

/**
 * Builds the Koa app; opens nothing up front. The caller owns the store, counters and chain clients;
 * the NFT image fetcher is handed over to the app, whose `close` releases it.
 */
export function createApiApp(deps: ApiDeps): ApiApp {
  // The data clock (locks, statistics days) may be pinned by CLOCK_NOW_UNIX; the node-height cache
  // always runs on a clock that moves, or a pinned one would keep the first height forever.
  const ticking = deps.now ?? Date.now;
  const pinned = deps.config.CLOCK_NOW_UNIX;
  const now = deps.now ?? (pinned === undefined ? Date.now : () => pinned * 1000);
  const logger = deps.logger.child({ component: 'api' });
  const models = openModels(deps.store);
  const context: AppContext = {
    config: deps.config,
    logger,
    counters: deps.counters,
    chain: deps.chain,
    now,
    models,
    mainnet: createMainnetHeight({
      chain: deps.chain,
      ttlMs: deps.config.MAINNET_HEIGHT_CACHE_MS,
      now: ticking,
      logger,
    }),
    images: deps.images,
    stopping: deps.stopping ?? new AbortController().signal,
  };
  const onResponse = withAccessLog(deps.config, deps.logger, deps.onResponse);

  // Behind API_PROXY_HOPS proxies, the client is the address the outermost one appended.
  const app = new Koa<ApiState>({ proxy: deps.config.API_PROXY_HOPS > 0, maxIpsCount: deps.config.API_PROXY_HOPS });
  // The one place request failures are logged; the error middleware sends only server faults here.
  app.on('error', (error: unknown, ctx?: Koa.ParameterizedContext<ApiState>) => {
    const log = ctx?.state.logger ?? logger;
    const { status } = toErrorResponse(error);
    const where = { status, method: ctx?.method, path: ctx?.path };
    // A dependency's failure (an image host: 502, the node or the store: 503, or no answer within the
    // time budget) is not a fault of ours: one line, no stack.
    if (status === 502 || status === 503)
      log.warn({ ...where, reason: briefly(error) }, 'request failed: dependency unavailable');
    else log.error({ err: error, ...where }, 'request failed');
  });

  const heads = createHeadReader(
    models,
    deps.config.API_HEAD_CACHE_MS,
    ticking,
    deps.sharedHead ? sharedHeadCell(deps.sharedHead) : undefined,
  );
  const consistent = createConsistentReads(heads);
  const streams = deps.events
    ? createStreamHub({
        log: deps.events.log,
        topic: deps.events.blockTopic,
        head: async () => (await heads.current()).height,
        config: deps.config,
        logger,
      })
    : undefined;
  const peers = deps.sharedAnswers === undefined ? undefined : broadcastPeers(deps.sharedAnswers);
  const answers = createResponseCache({ maxBytes: deps.config.API_RESPONSE_CACHE_MB * 2 ** 20, now: ticking, peers });
  const routes = allRoutes();
  const router = new Router<ApiState>();
  // The few routes with a budget of their own, matched apart so that other requests are not routed twice.
  const budgeted = new Router();
  const budgets = new Map<string, number>();
  for (const route of routes) {
    if (route.timeBudgetMs === undefined) continue;
    budgets.set(route.operationId, route.timeBudgetMs(deps.config));
    budgeted.get(route.operationId, routerPath(route.path), () => {});
  }
  const budgetOf = (path: string): number => {
    if (budgets.size === 0) return deps.config.API_REQUEST_TIMEOUT_MS;
    const name = budgeted.match(path, 'GET').pathAndMethod.find((layer) => layer.name !== undefined)?.name;
    return (name === undefined ? undefined : budgets.get(name)) ?? deps.config.API_REQUEST_TIMEOUT_MS;
  };

  app.use(requestScope(logger, () => heads.current(), onResponse));
  app.use(corsMiddleware());
  app.use(errorMiddleware());
  app.use(requestGate(deps.config));
  // After the gate (a refused method or URL spends nothing), before the budget (a 429 waits on nothing).
  if (deps.config.RATE_LIMIT_ENABLED)
    app.use(
      rateLimit({
        config: deps.config,
        buckets: deps.rateLimitBuckets ?? createMemoryRateLimitBuckets(deps.config),
        routes: routes.map((r) => r.path),
      }),
    );
  // Around everything that may wait on the store or the node, the indexed head's reading included.
  app.use(timeBudget((ctx) => budgetOf(ctx.path)));
  app.use(async (ctx, next) => {
    if (ctx.path === '/api' || ctx.path.startsWith('/api/')) {
      ctx.set('X-Indexed-Height', String((await ctx.state.head()).height));
    }
    await next();
  });
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) throw notFound(`no such path: ${ctx.method} ${ctx.path}`);
  });

  const serving = { context, answers, consistent, streams, budgetOf, now: ticking };
  for (const route of routes) mountRoute(router, route, serving);
  // No allowedMethods(): requestGate has answered every method but GET and HEAD already.
  app.use(router.routes());
  const held = deps.config.RATE_LIMIT_ENABLED
    ? undefined
    : createHeldAnswers({
        answers,
        head: () => heads.peek(),
        maxUrlBytes: deps.config.API_MAX_URL_BYTES,
        onResponse,
      });
  return Object.assign(app, {
    streams,
    held,
    close: async () => {
      peers?.close();
      await streams?.close();
      await deps.images.close();
    },
  });
}

function requestScope(
  logger: Logger,
  readHead: () => Promise<Head>,
  onResponse: OnResponse | undefined,
): Koa.Middleware<ApiState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const given = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    let head: Promise<Head> | null = null;
    ctx.state.requestId = requestId;
    // Made when first used: most requests log nothing.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'logger', { get: () => (child ??= logger.child({ requestId })) });
    ctx.state.head = () => (head ??= readHead());
    ctx.set('X-Request-Id', requestId);
    // Error messages may echo a client's text: never let a browser read them as anything but JSON.
    ctx.set('X-Content-Type-Options', 'nosniff');
    try {
      await next();
    } finally {
      if (onResponse) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const header = ctx.response.get('X-Indexed-Height');
        const height = header === '' ? undefined : Number(header);
        const route = ctx.state.route ?? 'unmatched';
        onResponse({ method: ctx.method, route, status: ctx.status, seconds, url: ctx.url, height, requestId });
      }
    }
  };
}

/** The app as an `http.Server` request listener: held answers first (held.ts), then Koa. */
export function requestListener(app: ApiApp): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = app.callback();
  // Koa's handler settles its own errors; the promise only says when the response is done.
  return (req, res) => {
    if (!app.held?.serve(req, res)) void handle(req, res);
  };
}

export interface RunningApi {
  url: string;
  /** Open live-stream connections (for /metrics). */
  streamConnections(): number;
  /** The API's own /readyz, for an ops port's readiness (`startOpsServer`). */
  readiness(): Promise<Readiness>;
  close(): Promise<void>;
}

/** Listens on `port` (0 = any free port) and resolves once accepting connections. */
export async function startApi(
  deps: ApiDeps & { port: number; host?: string; reusePort?: boolean },
): Promise<RunningApi> {
  const app = createApiApp(deps);
  const serve = requestListener(app);
  const server = createServer(serverOptions(deps.config), serve);
  // What Node would answer itself, with an empty body or none, goes through the API's answers instead.
  const logger = deps.logger.child({ component: 'api' });
  server.on('clientError', answerClientError(deps.config, logger));
  server.on('connect', answerConnect(logger));
  // An Expect other than 100-continue: served as if absent (RFC 9110 allows it) rather than Node's bare 417.
  server.on('checkExpectation', serve);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: deps.port, host: deps.host, reusePort: deps.reusePort ?? false }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = !deps.host || deps.host === '0.0.0.0' || deps.host === '::' ? 'localhost' : deps.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    streamConnections: () => app.streams?.connections() ?? 0,
    async readiness() {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(READINESS_BUDGET_MS) });
      const { error, ...detail } = (await res.json()) as { error?: { message?: unknown } } & Record<string, unknown>;
      return { ready: res.ok, reason: typeof error?.message === 'string' ? error.message : undefined, detail };
    },
    async close() {
      // Streams never end by themselves: end them first, or the server would wait on them for ever.
      await app.streams?.close();
      // No new connections; the requests in flight (a long export) get API_DRAIN_TIMEOUT_MS to end.
      const closed = new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
      });
      // A keep-alive connection goes idle once its request is answered: closed then, not at its timeout.
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), deps.config.API_DRAIN_TIMEOUT_MS);
      });
      if ((await Promise.race([closed, deadline])) === 'deadline') {
        logger.warn(
          { drainTimeoutMs: deps.config.API_DRAIN_TIMEOUT_MS },
          'requests still in flight at the drain deadline: closing their connections',
        );
        server.closeAllConnections();
        await closed;
      }
      clearTimeout(timer);
      clearInterval(idle);
      await app.close();
    },
  };
}
