import { z } from 'zod';
import type { AppContext, Head } from './context.ts';
import { invalidInput, type ErrorStatus } from './errors.ts';

/**
 * A route is declared once, as data: its path, the zod schemas of its parameters and of its
 * response, and a handler typed by them. The router decodes parameters through those schemas before
 * the handler runs (a bad one is a 400), and the OpenAPI document is generated from the same
 * declaration, so the contract and the code cannot disagree.
 */

/** Cache-Control per kind of answer. */
export const CACHE = {
  /** Facts that never change once indexed: a block, a transaction (Fabric has no reorgs). */
  immutable: 'public, max-age=86400',
  /** Anything that moves with the indexed head. */
  head: 'public, max-age=2',
  /** Derived from configuration only. */
  config: 'public, max-age=300',
  none: 'no-store',
} as const;
export type CachePolicy = keyof typeof CACHE;

export interface RouteInput<P, Q> {
  params: P;
  query: Q;
  /** The indexed head, read at most once per request. */
  head: () => Promise<Head>;
}

type Params = z.ZodObject;
const NONE = z.object({});

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
  cache: CachePolicy | ((result: z.output<R>) => CachePolicy);
  handle(input: RouteInput<z.output<P>, z.output<Q>>, app: AppContext): Promise<z.output<R>>;
}

/** The route as the router and the OpenAPI generator see it, with its types erased. */
export interface ApiRoute {
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string | undefined;
  readonly params: Params;
  readonly query: Params;
  readonly response: z.ZodType;
  readonly errors: readonly ErrorStatus[];
  run(
    raw: { params: unknown; query: unknown; head: () => Promise<Head> },
    app: AppContext,
  ): Promise<{ body: unknown; cacheControl: string }>;
}

export function defineRoute<
  P extends Params = typeof NONE,
  Q extends Params = typeof NONE,
  R extends z.ZodType = z.ZodType,
>(spec: RouteSpec<P, Q, R>): ApiRoute {
  const params = spec.params ?? NONE;
  const query = spec.query ?? NONE;
  return {
    path: spec.path,
    operationId: spec.operationId,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    params,
    query,
    response: spec.response,
    errors: spec.errors,
    async run(raw, app) {
      const p = params.safeParse(raw.params);
      if (!p.success) throw invalidInput('path', p.error);
      const q = query.safeParse(raw.query);
      if (!q.success) throw invalidInput('query', q.error);
      const body = await spec.handle(
        { params: p.data as z.output<P>, query: q.data as z.output<Q>, head: raw.head },
        app,
      );
      const policy = typeof spec.cache === 'function' ? spec.cache(body) : spec.cache;
      return { body, cacheControl: CACHE[policy] };
    },
  };
}

/** `/block/{id}` → `/block/:id` for the router. */
export function routerPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}
