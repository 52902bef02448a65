import { z } from 'zod';
import { ErrorBody, type ErrorStatus } from './errors.ts';
import { defineRoute, type ApiRoute } from './route.ts';
import * as addressSchemas from './routes/addresses/schemas.ts';
import * as blockSchemas from './routes/blocks/schemas.ts';
import * as chainSchemas from './routes/chain/schemas.ts';
import * as healthSchemas from './routes/health/schemas.ts';
import * as searchSchemas from './routes/search/schemas.ts';
import * as statsSchemas from './routes/stats/schemas.ts';
import * as templateSchemas from './routes/templates/schemas.ts';
import * as tokenSchemas from './routes/tokens/schemas.ts';
import * as txSchemas from './routes/txs/schemas.ts';
import * as exportSchemas from './routes/exports/schemas.ts';

/**
 * The OpenAPI 3.1 document, generated from the routes' own zod schemas (zod's JSON Schema output is
 * draft 2020-12, OpenAPI 3.1's dialect). Every zod schema exported by a feature's `schemas.ts` becomes
 * a component under its export name; parameters are inlined. `services/api/openapi.json` is a
 * committed copy, kept equal to this by a test (`npm run openapi -w @mtc/api` rewrites it).
 */
export const OPENAPI_PATH = '/api/openapi.json';

export type JsonObject = { [key: string]: unknown };

const COMPONENT_MODULES: readonly Record<string, unknown>[] = [
  blockSchemas,
  txSchemas,
  addressSchemas,
  tokenSchemas,
  chainSchemas,
  statsSchemas,
  searchSchemas,
  templateSchemas,
  healthSchemas,
  exportSchemas,
];

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string; headers?: readonly string[] }> = {
  400: {
    name: 'BadRequest',
    description:
      'A path or query parameter is missing, malformed or out of range; a query parameter the operation does not declare, or one given twice.',
  },
  404: { name: 'NotFound', description: 'No such entity, or no such path.' },
  405: {
    name: 'MethodNotAllowed',
    description: 'Any method but GET, HEAD and OPTIONS (the API is read-only); Allow lists them.',
  },
  408: { name: 'RequestTimeout', description: 'The request head was not received in time; the connection is closed.' },
  414: { name: 'UriTooLong', description: 'The URL is longer than the server accepts (API_MAX_URL_BYTES).' },
  429: {
    name: 'RateLimited',
    description: "The client's rate limit is spent (when rate limiting is on); Retry-After says when to come back.",
    headers: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
  },
  431: {
    name: 'HeadersTooLarge',
    description:
      'The request line and headers are larger than the server accepts (API_MAX_HEADER_BYTES); the connection is closed.',
  },
  500: { name: 'InternalError', description: 'An unexpected fault; the message is deliberately generic.' },
  502: {
    name: 'BadGateway',
    description:
      'A host the API fetched from failed (an NFT image host: timeout, too large, not an image, an error status, busy, unreachable).',
  },
  503: {
    name: 'Unavailable',
    description:
      'A dependency (the chain node, the read store) does not answer, or the request was not answered within its time budget (API_REQUEST_TIMEOUT_MS).',
    headers: ['Retry-After'],
  },
};

/**
 * What any operation may answer besides its own errors: a query parameter it does not declare (400),
 * a URL too long (414), the rate limit (429), a fault (500), a slow dependency or the time budget (503).
 * Statuses the HTTP server answers before routing (408, 431) are in the components only.
 */
const EVERY_OPERATION: readonly ErrorStatus[] = [400, 414, 429, 500, 503];

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });

/**
 * zod's integers carry ±2^53 bounds; in a response they say nothing to a reader. Parameters keep
 * theirs: there they are the decoder's limits (a token id over 2^53 - 1 is a 400), which a client
 * must be told.
 */
function tidy(ctx: { jsonSchema: JsonObject }): void {
  if (ctx.jsonSchema['minimum'] === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema['minimum'];
  if (ctx.jsonSchema['maximum'] === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema['maximum'];
}

function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function parameters(route: ApiRoute): JsonObject[] {
  const list = (where: 'path' | 'query', shape: Record<string, z.ZodType>) =>
    Object.entries(shape).map(([name, schema]) => {
      const { description, ...rest } = withoutDialect(z.toJSONSchema(schema, { io: 'output' }));
      const required = where === 'path' || !schema.safeParse(undefined).success;
      return { name, in: where, required, ...(description === undefined ? {} : { description }), schema: rest };
    });
  return [...list('path', route.params.shape), ...list('query', route.query.shape)];
}

function okResponse(route: ApiRoute, registry: z.core.$ZodRegistry<{ id: string }>): JsonObject {
  if (route.kind === 'json') {
    return { description: 'OK', content: json(ref('schemas', registry.get(route.response.schema)!.id)) };
  }
  if (route.kind === 'stream') {
    const { response } = route;
    const rows = ref('schemas', registry.get(response.rows)!.id);
    return {
      description: response.description,
      // OpenAPI 3.1 has no schema for the items of a stream: the body is text, each row described by `x-row`.
      content: Object.fromEntries(
        response.mediaTypes.map((type) => [
          type,
          { schema: { type: 'string', contentMediaType: type }, 'x-row': rows },
        ]),
      ),
      headers: { 'Content-Disposition': ref('headers', 'Content-Disposition') },
    };
  }
  if (route.kind === 'events') {
    const { response } = route;
    const names = Object.keys(response.events);
    return {
      description: response.description,
      content: {
        'text/event-stream': {
          schema: { type: 'string', contentMediaType: 'text/event-stream' },
          // The data of each event type, by name (an SSE stream has no standard schema object).
          'x-events': Object.fromEntries(
            names.map((name) => [name, ref('schemas', registry.get(response.events[name]!)!.id)]),
          ),
        },
      },
    };
  }
  const { response } = route;
  return {
    description: response.description,
    // OpenAPI 3.1: raw bytes are a string schema with the media type, no encoding.
    content: Object.fromEntries(
      response.mediaTypes.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
    ),
    headers: { ETag: ref('headers', 'ETag') },
  };
}

export function buildOpenApiDocument(routes: readonly ApiRoute[]): JsonObject {
  const registry = z.registry<{ id: string }>();
  registry.add(ErrorBody, { id: 'Error' });
  for (const module of COMPONENT_MODULES) {
    // Sorted: a module namespace's key order differs between loaders (Node, vitest).
    for (const [name, value] of Object.entries(module).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (value instanceof z.ZodType && !registry.has(value)) registry.add(value, { id: name });
    }
  }
  for (const route of routes) {
    if (route.kind === 'json' && !registry.has(route.response.schema)) {
      const id = `${route.operationId[0]?.toUpperCase() ?? ''}${route.operationId.slice(1)}Response`;
      registry.add(route.response.schema, { id });
    }
    if (route.kind === 'stream' && !registry.has(route.response.rows)) {
      const id = `${route.operationId[0]?.toUpperCase() ?? ''}${route.operationId.slice(1)}Row`;
      registry.add(route.response.rows, { id });
    }
    if (route.kind === 'events')
      for (const [name, schema] of Object.entries(route.response.events))
        if (!registry.has(schema))
          registry.add(schema, { id: `Stream${name[0]?.toUpperCase() ?? ''}${name.slice(1)}` });
  }
  const generated = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, override: tidy });
  const schemas = Object.fromEntries(
    Object.entries(generated.schemas).map(([name, schema]) => [name, withoutDialect(schema as JsonObject)]),
  );

  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const api = route.path.startsWith('/api/');
    const statuses = [...new Set<ErrorStatus>([...route.errors, ...EVERY_OPERATION])].sort((a, b) => a - b);
    const ok: JsonObject = okResponse(route, registry);
    if (api)
      ok['headers'] = { ...(ok['headers'] as JsonObject), 'X-Indexed-Height': ref('headers', 'X-Indexed-Height') };
    if (Object.keys(route.links).length > 0) ok['links'] = route.links;
    paths[route.path] = {
      get: {
        operationId: route.operationId,
        tags: [route.tag],
        summary: route.summary,
        ...(route.description === undefined ? {} : { description: route.description }),
        parameters: parameters(route),
        responses: {
          '200': ok,
          ...(route.kind === 'bytes'
            ? { '304': { description: 'Not modified: the ETag sent in If-None-Match is still current.' } }
            : {}),
          ...Object.fromEntries(statuses.map((s) => [String(s), ref('responses', ERROR_RESPONSES[s].name)])),
        },
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Metacoin Explorer Read API',
      version: '1.0.0',
      description:
        'Read-only JSON API over the Metacoin chain as indexed (the token and NFT images, and the pages of /api/docs that render this document, are the non-JSON answers). Timestamps are unix seconds; amounts are integer strings in the smallest unit. Paged lists take page (from 1, default 1) and limit (default 20; at most 50 on /blocks and /transactions, at most 100 elsewhere); a limit over the maximum, or a page or limit that is not a whole number from 1, is a 400 naming the parameter. Query parameters: an operation takes only the ones it lists, each once; any other parameter, or one given twice, is a 400 naming it. Every error is {"error":{"code","message"}} with a real HTTP status; a 503 or 429 carries Retry-After (seconds). Limits: URLs up to 4096 bytes by default (longer: 414), request heads up to 16 KiB (larger: 431), and a time budget per request (1500 ms by default; over it: 503). Methods: GET, HEAD and OPTIONS (CORS preflight) on every path, 405 for any other; every answer allows any origin.',
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map(({ name, description, headers }) => [
          name,
          {
            description,
            ...(headers === undefined
              ? {}
              : { headers: Object.fromEntries(headers.map((header) => [header, ref('headers', header)])) }),
            content: json(ref('schemas', 'Error')),
          },
        ]),
      ),
      headers: {
        'Content-Disposition': {
          description: 'An export names the file it would be saved as, e.g. attachment; filename="txs-at-1200.csv".',
          schema: { type: 'string' },
        },
        ETag: {
          description:
            'The version of the bytes (a token image: the chain position of its record; an NFT image or a file of /api/docs: a hash of its content); send it back in If-None-Match to get 304 while it holds.',
          schema: { type: 'string' },
        },
        'X-Indexed-Height': {
          description:
            'The indexed height the response was computed from (0 before anything is indexed). On every /api response.',
          schema: { type: 'integer', minimum: 0 },
        },
        'Retry-After': {
          description: 'Seconds to wait before trying again.',
          schema: { type: 'integer', minimum: 0 },
        },
        'RateLimit-Limit': {
          description: "The client's request points per window (when rate limiting is on).",
          schema: { type: 'integer', minimum: 0 },
        },
        'RateLimit-Remaining': {
          description: 'Points left in the current window.',
          schema: { type: 'integer', minimum: 0 },
        },
        'RateLimit-Reset': {
          description: 'Seconds until the window resets.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
  };
}

/** The committed file's exact text: the drift test compares it byte for byte. */
export function openApiJson(routes: readonly ApiRoute[]): string {
  return `${JSON.stringify(buildOpenApiDocument(routes), null, 2)}\n`;
}

const OpenApiDocument = z.record(z.string(), z.unknown()).describe('This document.');

/** `/api/openapi.json`: documents `routes` and itself; built on first request. */
export function createOpenApiRoute(routes: readonly ApiRoute[]): ApiRoute {
  let document: JsonObject | null = null;
  const self: ApiRoute = defineRoute({
    path: OPENAPI_PATH,
    operationId: 'getOpenApi',
    tag: 'meta',
    summary: 'This OpenAPI document',
    response: OpenApiDocument,
    errors: [],
    cache: 'config',
    async handle() {
      document ??= buildOpenApiDocument([...routes, self]);
      return document;
    },
  });
  return self;
}
