import { readFile } from 'node:fs/promises';
import { isAddress } from '@mtc/domain';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildOpenApiDocument, openApiJson } from './openapi.ts';
import { ApiError } from './errors.ts';
import { ADDRESS_FORMAT, NO_SUCH_ADDRESS } from './params.ts';
import { decodeInput } from './route.ts';
import { allRoutes } from './routes/index.ts';
import { ALICE, startTestApi } from './testing/harness.ts';

const COMMITTED = new URL('../openapi.json', import.meta.url);

type JsonSchema = Record<string, unknown>;
interface DocLink {
  operationId: string;
  parameters: Record<string, string>;
}

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
          operationId: string;
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
        '/api/market/orders',
        '/api/market/order/{id}',
        '/api/market/trades',
        '/api/market/stats',
        '/api/search',
        '/api/export/txs',
        '/api/export/address/{address}/activity',
        '/api/export/token/{id}/transfers',
        '/api/export/token/{id}/holders',
        '/api/export/nft/{id}/holders',
        '/api/export/stats/daily-txs',
        '/api/stream',
        '/api/openapi.json',
        '/api/docs',
        '/api/docs/assets/{file}',
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
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,400}$' } },
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
    // The form for any JSON Schema validator, the checksum for those that know the format.
    expect(doc.paths['/api/address/{id}']!.get.parameters[0]!.schema).toMatchObject({
      type: 'string',
      pattern: '^MT[A-Za-z0-9]{30}[0-9a-f]{8}$',
      format: ADDRESS_FORMAT,
    });
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
        // (The text of the answer, not its JSON: a 200 may be a page or bytes.)
        const asDocumented = await api.bytes(`${path}?${given}`);
        expect(Buffer.from(asDocumented.body).toString('utf8'), template).not.toMatch(
          /unknown parameter|more than once/,
        );
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

  /**
   * Parameter values as a client sends them: the canonical text of integers around every documented
   * bound and past 2^53, and strings of each id form, right and wrong. A fuzzer draws its "valid"
   * requests from the document's schemas and its "invalid" ones from outside them, so the two must agree
   * with the decoders on every value, or valid requests are refused (or invalid ones served).
   */
  const HEX = '0123456789abcdef'.repeat(4);
  const COLLECTION = `MRC400_${'a'.repeat(32)}1`;
  const PROBES = [
    ...['0', '1', '2', '20', '30', '50', '51', '90', '91', '100', '101', '1000', '1001', '1000000', '1000001'],
    ...[String(Number.MAX_SAFE_INTEGER), String(Number.MAX_SAFE_INTEGER + 1), '31922604656576589824'],
    ...['', '-1', '1.5', '1e3', ' 1', 'abc', 'x'.repeat(128), 'x'.repeat(129), 'MRC401', 'MRC402'],
    ...[ALICE, `${ALICE.slice(0, -1)}${ALICE.endsWith('0') ? '1' : '0'}`, ALICE.toLowerCase(), `MT${'0'.repeat(38)}`],
    // Blank and padded text: the white space `trim` removes, next to what it keeps (U+001C, U+200B).
    ...[' ', '\u00a0', '\ufeff', '\u3000\t\n', ' x ', '\u001c', '\u200b', `${' '.repeat(127)}x`, `${' '.repeat(128)}x`],
    ...[HEX, HEX.toUpperCase(), HEX.slice(1), `${HEX}0`],
    ...[COLLECTION, `MRC402_${'b'.repeat(32)}2`, `${COLLECTION}_${'Z9'.repeat(20)}`, `${COLLECTION}_${'Z'.repeat(39)}`],
  ];

  it('documents each parameter as its decoder reads it: valid in the document exactly when accepted', () => {
    const ajv = new Ajv2020({ allowUnionTypes: true });
    // The document's own format: what its pattern cannot say (the checksum), `isAddress` checks.
    ajv.addFormat(ADDRESS_FORMAT, isAddress);
    for (const route of allRoutes()) {
      const documented = doc.paths[route.path]!.get.parameters;
      for (const [where, shape] of [
        ['path', route.params.shape],
        ['query', route.query.shape],
      ] as const) {
        for (const [name, decoder] of Object.entries(shape) as [string, z.ZodType][]) {
          const schema = documented.find((p) => p.in === where && p.name === name)!.schema;
          const valid = ajv.compile(schema);
          for (const text of PROBES) {
            // The text is the serialisation of a string, or of an integer when it is one's canonical form.
            const readings: unknown[] = /^(?:0|[1-9][0-9]*)$/.test(text) ? [text, Number(text)] : [text];
            expect(
              readings.some((value) => valid(value)),
              `${route.path} ${where}.${name} = '${text}'`,
            ).toBe(decoder.safeParse(text).success);
          }
        }
      }
    }
  });

  it('answers an address of the documented pattern whose checksum fails with a 404, listed on every operation taking one', () => {
    // What schemathesis sent (its coverage phase draws from the pattern, not the format): the form, a wrong CRC-32.
    const noSuch = `MT${'0'.repeat(38)}`;
    const taking: string[] = [];
    for (const route of allRoutes()) {
      const { parameters, responses } = doc.paths[route.path]!.get;
      for (const param of parameters) {
        const schema = param.schema as { format?: string; pattern?: string };
        if (schema.format !== ADDRESS_FORMAT) continue;
        const where = `${route.path} ${param.in}.${param.name}`;
        taking.push(where);
        expect(new RegExp(schema.pattern!).test(noSuch), where).toBe(true);
        expect(Object.keys(responses), where).toContain('404');
        const given = { [param.name]: noSuch };
        const raw = param.in === 'path' ? { params: given, query: {} } : { params: {}, query: given };
        let thrown: unknown;
        try {
          decodeInput(route.params, route.query, { ...raw, head: () => Promise.reject(new Error('unused')) });
        } catch (error) {
          thrown = error;
        }
        expect(thrown, where).toBeInstanceOf(ApiError);
        expect((thrown as ApiError).status, where).toBe(404);
        expect((thrown as ApiError).message, where).toBe(`${param.in}.${param.name}: ${NO_SUCH_ADDRESS}`);
      }
    }
    expect(taking.sort()).toEqual([
      '/api/address/{id} path.id',
      '/api/address/{id}/txs path.id',
      '/api/export/address/{address}/activity path.address',
      '/api/market/orders query.owner',
      '/api/stream query.address',
    ]);
  });

  it('links only to operations that exist, filling their parameters from fields the answer has, of their type', () => {
    const operations = new Map(Object.values(doc.paths).map((item) => [item.get.operationId, item.get]));
    const resolve = (schema: JsonSchema): JsonSchema => {
      const ref = schema['$ref'];
      return typeof ref === 'string' ? resolve(doc.components.schemas[ref.split('/').pop()!] as JsonSchema) : schema;
    };
    const typesOf = (schema: JsonSchema): unknown[] =>
      Array.isArray(schema['anyOf']) ? (schema['anyOf'] as JsonSchema[]).flatMap(typesOf) : [resolve(schema)['type']];
    let links = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const ok = item.get.responses['200'] as {
        content?: { 'application/json'?: { schema: JsonSchema } };
        links?: object;
      };
      for (const [name, link] of Object.entries((ok.links ?? {}) as Record<string, DocLink>)) {
        links += 1;
        const target = operations.get(link.operationId);
        expect(target, `${path} → ${name}`).toBeDefined();
        const required = target!.parameters.filter((p) => p.required).map((p) => p.name);
        expect(Object.keys(link.parameters), `${path} → ${name}`).toEqual(expect.arrayContaining(required));
        for (const [param, expression] of Object.entries(link.parameters)) {
          const declared = target!.parameters.find((p) => p.name === param);
          expect(declared, `${path} → ${name}: ${param}`).toBeDefined();
          let source: JsonSchema;
          if (expression.startsWith('$request.path.')) {
            const own = item.get.parameters.find((p) => p.in === 'path' && p.name === expression.slice(14));
            expect(own, `${path} → ${name}: ${expression}`).toBeDefined();
            source = own!.schema as JsonSchema;
          } else {
            const pointer = /^\$response\.body#(\/.*)$/.exec(expression)?.[1];
            expect(pointer, `${path} → ${name}: ${expression}`).toBeDefined();
            // Walks the 200 schema: a number steps into an array's items, a name into a property.
            source = pointer!
              .slice(1)
              .split('/')
              .reduce<JsonSchema>((at, step) => {
                const here = resolve(at);
                const next = /^[0-9]+$/.test(step)
                  ? (here['items'] as JsonSchema | undefined)
                  : (here['properties'] as Record<string, JsonSchema> | undefined)?.[step];
                expect(next, `${path} → ${name}: ${expression} at ${step}`).toBeDefined();
                return next!;
              }, ok.content!['application/json']!.schema);
          }
          expect(typesOf(declared!.schema as JsonSchema), `${path} → ${name}: ${param}`).toEqual(
            expect.arrayContaining(typesOf(source)),
          );
        }
      }
    }
    expect(links).toBeGreaterThan(0);
  });

  it('types block sn as a string and height as an integer, as the spec says', () => {
    expect(doc.components.schemas['BlockDetail']!.properties!['sn']).toMatchObject({ type: 'string' });
    expect(doc.components.schemas['BlockSummary']!.properties!['height']).toEqual({ type: 'integer' });
  });
});
