import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, openApiJson } from './openapi.ts';
import { allRoutes } from './routes/index.ts';
import { startTestApi } from './testing/harness.ts';

const COMMITTED = new URL('../openapi.json', import.meta.url);

describe('OpenAPI document', () => {
  it('equals the committed services/api/openapi.json (run `npm run openapi -w @mtc/api` after changing a route)', async () => {
    expect(await readFile(COMMITTED, 'utf8')).toBe(openApiJson(allRoutes()));
  });

  it('is what /api/openapi.json serves', async () => {
    const api = await startTestApi();
    try {
      const { status, body } = await api.get('/api/openapi.json');
      expect(status).toBe(200);
      expect(body).toEqual(buildOpenApiDocument(allRoutes()));
    } finally {
      await api.close();
    }
  });

  const doc = buildOpenApiDocument(allRoutes()) as {
    openapi: string;
    paths: Record<
      string,
      {
        get: {
          parameters: { name: string; in: string; required: boolean; schema: object }[];
          responses: Record<string, unknown>;
        };
      }
    >;
    components: {
      schemas: Record<string, { properties?: Record<string, unknown> }>;
      responses: Record<string, unknown>;
    };
  };

  it('is OpenAPI 3.1 and covers every route', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/chain',
        '/api/tx-stats',
        '/api/blocks',
        '/api/block/{id}',
        '/api/rawblock/{id}',
        '/api/transactions',
        '/api/tx/{id}',
        '/api/rawtx/{id}',
        '/api/tx/{id}/templates',
        '/api/address/{id}',
        '/api/address/{id}/txs',
        '/api/tokens',
        '/api/token/{id}',
        '/api/token/{id}/holders',
        '/api/token/{id}/txs',
        '/api/token/{id}/history',
        '/api/token/{id}/locks',
        '/api/v1/token/{id}/image',
        '/api/mtc-stats',
        '/api/nft/{id}',
        '/api/nft-items',
        '/api/nft-holders',
        '/api/nft-history',
        '/api/nft-tx',
        '/api/v1/nft/{id}/image',
        '/api/nfts',
        '/api/search',
        '/api/openapi.json',
        '/healthz',
        '/readyz',
      ].sort(),
    );
  });

  it('documents parameters from the zod schemas, with their bounds and defaults', () => {
    expect(doc.paths['/api/blocks']!.get.parameters).toMatchObject([
      {
        name: 'page',
        in: 'query',
        required: false,
        schema: { default: 1, type: 'integer', minimum: 1, maximum: 1_000_000 },
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { default: 20, type: 'integer', minimum: 1, maximum: 50 },
      },
    ]);
    expect(doc.paths['/api/search']!.get.parameters[0]).toMatchObject({
      name: 'q',
      in: 'query',
      required: true,
      schema: { type: 'string', minLength: 1, maxLength: 128 },
    });
    expect(doc.paths['/api/tx-stats']!.get.parameters[0]).toMatchObject({
      name: 'days',
      schema: { default: 30, minimum: 1, maximum: 90 },
    });
    expect(doc.paths['/api/block/{id}']!.get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
  });

  it('documents the error shape and the error statuses of each route', () => {
    expect(doc.components.schemas['Error']!.properties).toHaveProperty('error');
    expect(Object.keys(doc.paths['/api/blocks']!.get.responses)).toEqual(['200', '400', '414', '429', '500', '503']);
    expect(Object.keys(doc.paths['/api/rawtx/{id}']!.get.responses)).toEqual([
      '200',
      '400',
      '404',
      '414',
      '429',
      '500',
      '503',
    ]);
    expect(doc.paths['/api/tx/{id}']!.get.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  });

  it('lists on every operation what any request may get: 400, 414, 429, 500 and 503, the last two with Retry-After', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(Object.keys(item.get.responses), path).toEqual(
        expect.arrayContaining(['400', '414', '429', '500', '503']),
      );
    }
    const responses = doc.components.responses as Record<string, { headers?: Record<string, unknown> }>;
    expect(Object.keys(responses['RateLimited']!.headers!)).toEqual([
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(Object.keys(responses['Unavailable']!.headers!)).toEqual(['Retry-After']);
  });

  it('states the query parameter rule', () => {
    expect((doc as unknown as { info: { description: string } }).info.description).toContain(
      'an operation takes only the ones it lists, each once; any other parameter, or one given twice, is a 400 naming it',
    );
  });

  it('lists exactly the query parameters the router takes, on every operation', async () => {
    const api = await startTestApi();
    try {
      for (const [template, item] of Object.entries(doc.paths)) {
        const path = template.replace(/\{\w+\}/g, 'x');
        const documented = item.get.parameters.filter((p) => p.in === 'query').map((p) => p.name);
        const given = documented.map((name) => `${name}=`).join('&');
        // Documented parameters only: never refused for their names, whatever their values.
        const asDocumented = await api.get<{ error?: { message: string } }>(`${path}?${given}`);
        expect(asDocumented.body?.error?.message ?? '', template).not.toMatch(/unknown parameter|more than once/);
        // One more: refused, naming it and only it.
        const withOther = await api.get<{ error: { message: string } }>(`${path}?${given}${given ? '&' : ''}zz=1`);
        expect(withOther.status, template).toBe(400);
        const takes = documented.length === 0 ? 'no query parameters' : documented.join(', ');
        expect(withOther.body.error.message, template).toBe(`query.zz: unknown parameter (this route takes ${takes})`);
      }
    } finally {
      await api.close();
    }
  });

  it('resolves every $ref and declares every path template parameter', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    for (const ref of new Set(refs)) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], doc);
      expect(target, ref).toBeDefined();
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = item.get.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared, path).toEqual(templated);
    }
  });

  it('limits every paged list to 100 but /blocks and /transactions to 50', () => {
    const maxLimit = (path: string) =>
      (doc.paths[path]!.get.parameters.find((p) => p.name === 'limit')?.schema as { maximum?: number } | undefined)
        ?.maximum;
    expect(maxLimit('/api/blocks')).toBe(50);
    expect(maxLimit('/api/transactions')).toBe(50);
    for (const path of ['/api/address/{id}/txs', '/api/tokens', '/api/token/{id}/holders', '/api/token/{id}/txs']) {
      expect(maxLimit(path), path).toBe(100);
    }
  });

  it('describes the token image as image/png bytes with an ETag, and its errors as JSON', () => {
    const responses = doc.paths['/api/v1/token/{id}/image']!.get.responses as Record<string, Record<string, unknown>>;
    expect(responses['200']).toMatchObject({
      content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } },
      headers: { ETag: { $ref: '#/components/headers/ETag' } },
    });
    expect(Object.keys(responses['200']!['content'] as object)).toEqual(['image/png']);
    expect(Object.keys(responses)).toEqual(['200', '304', '400', '404', '414', '429', '500', '503']);
    expect(responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  });

  it('describes the NFT image as bytes of each image type it may have, with its 404 and 502 as JSON', () => {
    const responses = doc.paths['/api/v1/nft/{id}/image']!.get.responses as Record<string, Record<string, unknown>>;
    expect(responses['200']).toMatchObject({
      content: { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } },
      headers: { ETag: { $ref: '#/components/headers/ETag' } },
    });
    expect(Object.keys(responses['200']!['content'] as object)).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ]);
    expect(Object.keys(responses)).toEqual(['200', '304', '400', '404', '414', '429', '500', '502', '503']);
    expect(responses['502']).toEqual({ $ref: '#/components/responses/BadGateway' });
  });

  it('types the fungible fields as the spec says', () => {
    const props = (name: string) => doc.components.schemas[name]!.properties!;
    expect(props('TokenListEntry')['id']).toMatchObject({ type: 'string' });
    expect(props('TokenListEntry')['token']).toMatchObject({ type: 'integer' });
    expect(props('TokenListEntry')['has_image']).toMatchObject({ type: 'boolean' });
    expect(props('TokenHolder')['unlockdate']).toMatchObject({ type: 'integer' });
    expect(props('TokenTransfer')['block_sn']).toMatchObject({ type: 'integer' });
    expect(props('TokenTransfer')['token']).toMatchObject({ type: 'string' });
    expect(props('AddressActivity')['db_sn']).toMatchObject({ type: 'string' });
    expect(props('AddressBalance')['lockBalance']).toMatchObject({ type: 'string' });
  });

  it('types block sn as a string and height as an integer, as the spec says', () => {
    expect(doc.components.schemas['BlockDetail']!.properties!['sn']).toMatchObject({ type: 'string' });
    expect(doc.components.schemas['BlockSummary']!.properties!['height']).toEqual({ type: 'integer' });
  });
});
