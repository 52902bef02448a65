import { pipeline, type Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Router } from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import type { ApiConfig } from './config.ts';
import type { ConsistentReads } from './consistent.ts';
import { watchedContext, type ApiState, type AppContext } from './context.ts';
import type { Head } from './head.ts';
import { badRequest, invalidInput, type ErrorStatus } from './errors.ts';
import { CACHE, sendAnswer, toAnswer, type CachePolicy, type ResponseCache } from './http-cache.ts';
import type { StreamHub } from './routes/stream/hub.ts';

/**
 * A route is declared once, as data: its path, the zod schemas of its parameters and of its
 * response, and a handler typed by them. The router decodes parameters through those schemas before
 * the handler runs (a bad one is a 400; one of the right form that names nothing that can exist, such
 * as an address whose checksum fails, is a 404: see NO_SUCH_ENTITY), and the OpenAPI document is generated from the same
 * declaration, so the contract and the code cannot disagree.
 *
 * One rule for the query string, on every route: a parameter the route does not declare is a 400, and
 * so is a declared one given more than once, each naming the parameter. So a handler only ever sees
 * the declared parameters, each a single string before its schema decodes it: `id[$ne]=x` is an
 * unknown parameter named `id[$ne]`, never an object that could reach a store filter.
 */

export interface RouteInput<P, Q> {
  params: P;
  query: Q;
  /** The indexed head, read at most once per request. */
  head: () => Promise<Head>;
}

type Params = z.ZodObject;
const NONE = z.object({});

/**
 * An OpenAPI link from a route's 200 answer to another operation: which of that operation's parameters
 * a value of this answer (or of this request) fills, as a runtime expression such as
 * `$response.body#/items/0/id` or `$request.path.id`. A client, or a stateful fuzzer, follows them from
 * a list to its entries; a test checks that each names a real operation, its parameters and a field
 * this answer has.
 */
export interface RouteLink {
  operationId: string;
  parameters: Readonly<Record<string, string>>;
}
export type RouteLinks = Readonly<Record<string, RouteLink>>;

/** Links to each of `operationIds`, named after it, each filling `parameters` the same way. */
export function linksTo(operationIds: readonly string[], parameters: Readonly<Record<string, string>>): RouteLinks {
  return Object.fromEntries(operationIds.map((operationId) => [operationId, { operationId, parameters }]));
}

export interface RouteSpec<P extends Params, Q extends Params, R extends z.ZodType> {
  /** OpenAPI path template, e.g. `/api/block/{id}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  /** The 200 body. Export it from the feature's `schemas.ts` to name it in the OpenAPI components. */
  response: R;
  /** Error statuses the route answers besides 500. */
  errors: readonly ErrorStatus[];
  /** Operations a 200 answer leads to, by link name (see RouteLink). */
  links?: RouteLinks;
  /**
   * How long a request may take before it is answered 503, when API_REQUEST_TIMEOUT_MS is not enough
   * (a route that fetches from outside, under a deadline of its own).
   */
  timeBudgetMs?: (config: ApiConfig) => number;
  /**
   * True when every read of the route selects rows by height at most H (or by sequence below the
   * head's transaction count) from models that never change once written (blocks, transactions):
   * such an answer is true at H however the head moves while it is built, so it is not validated
   * against the head and never waits on a batch being written (consistent.ts). It can then not
   * starve on a slow store while the index moves. Anything else a route reads makes it false.
   */
  heightGated?: boolean;
  cache: CachePolicy | ((result: z.output<R>) => CachePolicy);
  handle(input: RouteInput<z.output<P>, z.output<Q>>, app: AppContext): Promise<z.output<R>>;
}

/** What the router hands a route besides its parameters: the head. */
export interface RawInput {
  params: unknown;
  query: unknown;
  head: () => Promise<Head>;
}

/** What the router hands a stream route besides: the client's side. */
export interface RawStreamInput extends RawInput {
  /** Aborted when the client goes away (streams stop reading the store). */
  signal: AbortSignal;
  /** The client's Accept header, for content negotiation. */
  accept: string;
}

/** What every kind of route declares the same way, as the router and the OpenAPI generator see it. */
interface DeclaredRoute {
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string | undefined;
  readonly params: Params;
  readonly query: Params;
  readonly errors: readonly ErrorStatus[];
  readonly links: RouteLinks;
  /** See RouteSpec.timeBudgetMs; undefined: API_REQUEST_TIMEOUT_MS. */
  readonly timeBudgetMs: ((config: ApiConfig) => number) | undefined;
  /** See RouteSpec.heightGated. */
  readonly heightGated: boolean;
}

/** A route whose 200 body is JSON described by a zod schema. */
export interface JsonRoute extends DeclaredRoute {
  readonly kind: 'json';
  readonly response: { readonly schema: z.ZodType };
  /** False when every answer is `no-store` (probes): such a route is never served from memory. */
  readonly cacheable: boolean;
  run(raw: RawInput, app: AppContext): Promise<{ body: unknown; policy: CachePolicy }>;
}

/** A route whose 200 body is bytes of one of the media types listed. */
export interface BytesRoute extends DeclaredRoute {
  readonly kind: 'bytes';
  readonly response: { readonly mediaTypes: readonly string[]; readonly description: string };
  run(
    raw: RawInput,
    app: AppContext,
  ): Promise<{ body: Uint8Array; mediaType: string; cacheControl: string; etag: string | undefined }>;
}

/** A route whose 200 body is streamed in one of the media types listed (`rows`: the fields of each row, documented). */
export interface StreamRoute extends DeclaredRoute {
  readonly kind: 'stream';
  readonly response: {
    readonly mediaTypes: readonly string[];
    readonly description: string;
    readonly rows: z.ZodType;
  };
  run(
    raw: RawStreamInput,
    app: AppContext,
  ): Promise<{ body: Readable; mediaType: string; headers: Readonly<Record<string, string>> }>;
}

/** A route answered with Server-Sent Events by a handler of its own, which takes the client's connection. */
export interface EventStreamRoute extends DeclaredRoute {
  readonly kind: 'events';
  readonly response: { readonly description: string; readonly events: Readonly<Record<string, z.ZodType>> };
  /** The handler, given the app's stream hub (undefined when the app has no event log to read). */
  serve(hub: StreamHub | undefined): Koa.Middleware<ApiState>;
}

/** The route as the router and the OpenAPI generator see it, with its types erased but its kind kept. */
export type ApiRoute = JsonRoute | BytesRoute | StreamRoute | EventStreamRoute;

/** Longer parameter names are cut in messages: they are the client's text, echoed. */
const NAME_SHOWN = 64;

/** The query rule (see the top of this module): every problem with the query's keys, or none. */
export function queryKeyProblems(declared: Params, raw: unknown): string[] {
  if (raw === null || typeof raw !== 'object') return [];
  const names = Object.keys(declared.shape);
  const takes = names.length === 0 ? 'this route takes no query parameters' : `this route takes ${names.join(', ')}`;
  const problems: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const shown = name.length > NAME_SHOWN ? `${name.slice(0, NAME_SHOWN)}…` : name;
    // Own keys only: `constructor` or `__proto__` is not a parameter of any route.
    if (!Object.hasOwn(declared.shape, name)) problems.push(`query.${shown}: unknown parameter (${takes})`);
    else if (Array.isArray(value)) problems.push(`query.${shown}: given more than once`);
  }
  return problems;
}

export function decodeInput<P extends Params, Q extends Params>(
  params: P,
  query: Q,
  raw: RawInput,
): RouteInput<z.output<P>, z.output<Q>> {
  // The query's shape first: a request a route cannot take is refused whatever its values.
  const problems = queryKeyProblems(query, raw.query);
  if (problems.length > 0) throw badRequest(problems.join('; '));
  const p = params.safeParse(raw.params);
  const q = query.safeParse(raw.query);
  // Both read before answering: a malformed query parameter makes a 400 even when the path names
  // nothing (which alone is a 404).
  if (!p.success || !q.success)
    throw invalidInput([
      ...(p.success ? [] : [{ where: 'path' as const, error: p.error }]),
      ...(q.success ? [] : [{ where: 'query' as const, error: q.error }]),
    ]);
  return { params: p.data, query: q.data, head: raw.head };
}

/** What every kind of route declares the same way: where it is, its inputs, errors and links. */
function declared(
  spec: Pick<
    RouteSpec<Params, Params, z.ZodType>,
    | 'path'
    | 'operationId'
    | 'tag'
    | 'summary'
    | 'description'
    | 'params'
    | 'query'
    | 'errors'
    | 'timeBudgetMs'
    | 'heightGated'
  > & { links?: RouteSpec<Params, Params, z.ZodType>['links'] },
): DeclaredRoute {
  return {
    path: spec.path,
    operationId: spec.operationId,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    params: spec.params ?? NONE,
    query: spec.query ?? NONE,
    errors: spec.errors,
    links: spec.links ?? {},
    timeBudgetMs: spec.timeBudgetMs,
    heightGated: spec.heightGated ?? false,
  };
}

export function defineRoute<
  P extends Params = typeof NONE,
  Q extends Params = typeof NONE,
  R extends z.ZodType = z.ZodType,
>(spec: RouteSpec<P, Q, R>): JsonRoute {
  const params = spec.params ?? NONE;
  const query = spec.query ?? NONE;
  return {
    ...declared(spec),
    kind: 'json',
    response: { schema: spec.response },
    cacheable: spec.cache !== 'none',
    async run(raw, app) {
      const body = await spec.handle(decodeInput(params as P, query as Q, raw), app);
      return { body, policy: typeof spec.cache === 'function' ? spec.cache(body) : spec.cache };
    },
  };
}

/**
 * The 200 answer of a bytes route: the body, its media type (the Content-Type; one the route declares),
 * and optionally a validator for conditional requests.
 */
export interface Bytes<M extends string> {
  bytes: Uint8Array;
  mediaType: M;
  /** Sent as a strong ETag; a request whose If-None-Match carries it gets 304 without a body. */
  etag?: string;
}

export interface BytesRouteSpec<P extends Params, Q extends Params, M extends string> extends Omit<
  RouteSpec<P, Q, z.ZodType>,
  'response' | 'cache' | 'handle'
> {
  /** Every media type a 200 body may have, e.g. `['image/png']`; each answer names its own. */
  mediaTypes: readonly [M, ...M[]];
  /** What the 200 body is, for the OpenAPI document. */
  responseDescription: string;
  cache: CachePolicy;
  handle(input: RouteInput<z.output<P>, z.output<Q>>, app: AppContext): Promise<Bytes<M>>;
}

/** A route whose 200 body is bytes (an image), not JSON; its errors are JSON like every other route's. */
export function defineBytesRoute<
  P extends Params = typeof NONE,
  Q extends Params = typeof NONE,
  M extends string = string,
>(spec: BytesRouteSpec<P, Q, M>): BytesRoute {
  const params = spec.params ?? NONE;
  const query = spec.query ?? NONE;
  return {
    ...declared(spec),
    kind: 'bytes',
    response: { mediaTypes: spec.mediaTypes, description: spec.responseDescription },
    async run(raw, app) {
      const { bytes, mediaType, etag } = await spec.handle(decodeInput(params as P, query as Q, raw), app);
      return { body: bytes, mediaType, cacheControl: CACHE[spec.cache], etag };
    },
  };
}

/** `/block/{id}` → `/block/:id` for the router. */
export function routerPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** A stream route's input: its parameters and head, the client's Accept header and an abort signal. */
export interface StreamInput<P, Q> extends RouteInput<P, Q> {
  accept: string;
  signal: AbortSignal;
}

/** The 200 answer of a stream route: a body read as the client reads it, its media type and headers. */
export interface StreamAnswer<M extends string> {
  body: Readable;
  mediaType: M;
  headers?: Readonly<Record<string, string>>;
}

export interface StreamRouteSpec<P extends Params, Q extends Params, M extends string> extends Omit<
  RouteSpec<P, Q, z.ZodType>,
  'response' | 'cache' | 'handle'
> {
  mediaTypes: readonly [M, ...M[]];
  responseDescription: string;
  /** One row of the stream, for the document. */
  rows: z.ZodType;
  handle(input: StreamInput<z.output<P>, z.output<Q>>, app: AppContext): Promise<StreamAnswer<M>>;
}

/**
 * A route whose 200 body is streamed (an export): never cached or compressed by buffering, and
 * its time budget covers only what the handler does before it returns the stream (its checks and
 * refusals, answered as JSON errors); the stream then runs as long as the client reads it.
 */
export function defineStreamRoute<
  P extends Params = typeof NONE,
  Q extends Params = typeof NONE,
  M extends string = string,
>(spec: StreamRouteSpec<P, Q, M>): StreamRoute {
  const params = spec.params ?? NONE;
  const query = spec.query ?? NONE;
  return {
    ...declared(spec),
    kind: 'stream',
    response: { mediaTypes: spec.mediaTypes, description: spec.responseDescription, rows: spec.rows },
    async run(raw, app) {
      const input = decodeInput(params as P, query as Q, raw);
      const answer = await spec.handle({ ...input, accept: raw.accept, signal: raw.signal }, app);
      return { body: answer.body, mediaType: answer.mediaType, headers: answer.headers ?? {} };
    },
  };
}

export interface EventStreamRouteSpec<P extends Params, Q extends Params> extends Omit<
  RouteSpec<P, Q, z.ZodType>,
  'response' | 'cache' | 'handle' | 'links'
> {
  /** What the stream carries, for the OpenAPI document. */
  responseDescription: string;
  /** The data schema of each event type, by its `event:` name. */
  events: Readonly<Record<string, z.ZodType>>;
  /** Serves the request (see EventStreamRoute.serve). */
  serve: (hub: StreamHub | undefined) => Koa.Middleware<ApiState>;
}

/**
 * A route answered with a stream of Server-Sent Events (text/event-stream) rather than one body: the
 * app serves it with its own handler (it is never cached, compressed or held to the time budget once
 * it has started); this declaration gives it its parameters, errors and place in the document.
 */
export function defineEventStreamRoute<P extends Params = typeof NONE, Q extends Params = typeof NONE>(
  spec: EventStreamRouteSpec<P, Q>,
): EventStreamRoute {
  return {
    ...declared(spec),
    kind: 'events',
    response: { description: spec.responseDescription, events: spec.events },
    serve: spec.serve,
  };
}

/** What the app serves its routes with, built once per app. */
export interface Serving {
  context: AppContext;
  answers: ResponseCache;
  consistent: ConsistentReads;
  /** The live stream's connections; undefined when the app has no event log to read. */
  streams: StreamHub | undefined;
  /** The time budget of a request to `path`. */
  budgetOf(path: string): number;
  /** A clock that always moves (the data clock in `context` may be pinned). */
  now: () => number;
}

/** Mounts `route` on `router` by its kind, so that each kind's handler sees only its kind's answer. */
export function mountRoute(router: Router<ApiState>, route: ApiRoute, serving: Serving): void {
  switch (route.kind) {
    case 'json':
      if (route.cacheable) mountJson(router, route, serving);
      else mountProbe(router, route, serving);
      return;
    case 'bytes':
      mountBytes(router, route, serving);
      return;
    case 'stream':
      mountStream(router, route, serving);
      return;
    case 'events':
      router.get(route.operationId, routerPath(route.path), route.serve(serving.streams));
      return;
  }
}

/**
 * Keyed by the URL as sent: the same parameters spelt differently are cached apart. A build
 * validates its head itself, so a held answer (and every request joining a build) is one that was
 * true at its height — also while a batch is being written over that height. Other routes run at
 * one indexed head (consistent.ts), retried at a newer head when the index moved under their reads;
 * the route sees that head, and X-Indexed-Height names it.
 */
function mountJson(router: Router<ApiState>, route: JsonRoute, serving: Serving): void {
  const { context, answers, consistent } = serving;
  router.get(route.operationId, routerPath(route.path), async (ctx) => {
    ctx.state.route = route.path;
    const first = await ctx.state.head();
    const held = answers.held(ctx.url, first.height);
    if (held) {
      await sendAnswer(ctx, held);
      return;
    }
    const build = (head: Head) => async () => {
      const watched = watchedContext(context);
      const input = { params: ctx.params, query: ctx.query, head: () => Promise.resolve(head) };
      const result = await route.run(input, watched.context);
      return { body: result.body, policy: result.policy, route: route.path, live: watched.live() };
    };
    const answer = route.heightGated
      ? // Rows at most `first.height` that never change: true at that height whatever the head does.
        await answers.answer(ctx.url, first.height, build(first))
      : await consistent.atOneHeight(
          first,
          (head) =>
            answers.answer(ctx.url, head.height, async () => {
              const answer = await build(head)();
              await consistent.validate(head);
              return answer;
            }),
          {
            deadline: performance.now() + serving.budgetOf(ctx.path),
            onHead: (head) => {
              ctx.state.head = () => Promise.resolve(head);
              ctx.set('X-Indexed-Height', String(head.height));
            },
          },
        );
    // The answer held while a newer one is built is true at its own height, which may be lower.
    if (answer.policy !== 'immutable') ctx.set('X-Indexed-Height', String(answer.height));
    await sendAnswer(ctx, answer);
  });
}

/** The probes: they report on the dependencies, the head's reading included, not on the data. */
function mountProbe(router: Router<ApiState>, route: JsonRoute, { context, now }: Serving): void {
  router.get(route.operationId, routerPath(route.path), async (ctx) => {
    ctx.state.route = route.path;
    const result = await route.run({ params: ctx.params, query: ctx.query, head: ctx.state.head }, context);
    await sendAnswer(ctx, toAnswer(result.body, result.policy, 0, now()));
  });
}

/** Images (of a record, kept by URL) and the reference page's files. */
function mountBytes(router: Router<ApiState>, route: BytesRoute, { context }: Serving): void {
  router.get(route.operationId, routerPath(route.path), async (ctx) => {
    ctx.state.route = route.path;
    const result = await route.run({ params: ctx.params, query: ctx.query, head: ctx.state.head }, context);
    ctx.set('Cache-Control', result.cacheControl);
    ctx.body = Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
    ctx.type = result.mediaType;
    if (result.etag !== undefined) {
      ctx.etag = result.etag;
      // Koa answers 304 with no body when the client already holds this version.
      if (ctx.fresh) ctx.status = 304;
    }
  });
}

/**
 * Streams bypass the answer cache: nothing is held beyond what the client reads. A client that
 * takes gzip gets the rows gzip-compressed as they are made (an export of a million rows is several
 * times smaller on the wire).
 */
function mountStream(router: Router<ApiState>, route: StreamRoute, { context }: Serving): void {
  router.get(route.operationId, routerPath(route.path), async (ctx) => {
    ctx.state.route = route.path;
    const aborted = new AbortController();
    ctx.res.once('close', () => aborted.abort());
    const result = await route.run(
      {
        params: ctx.params,
        query: ctx.query,
        head: ctx.state.head,
        signal: aborted.signal,
        accept: ctx.get('Accept'),
      },
      context,
    );
    ctx.set({ 'Cache-Control': CACHE.none, ...result.headers });
    ctx.type = result.mediaType;
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') !== 'gzip') {
      ctx.body = result.body;
      return;
    }
    ctx.set('Content-Encoding', 'gzip');
    // A failing export ends the compressed body early too; a client gone ends the export.
    ctx.body = pipeline(result.body, createGzip(), () => {});
  });
}
