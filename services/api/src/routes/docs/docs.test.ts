import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChain, rawRequest, startTestApi, type TestApi } from '../../testing/harness.ts';

/** The renderer's files as its package ships them: what the API must serve, byte for byte. */
const RENDERER = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** A browser's revalidation. (fetch alone would add Cache-Control: no-cache, which asks for the body.) */
const revalidate = (etag: string): RequestInit => ({
  headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' },
});

describe('/api/docs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: buildChain(3) });
  });
  afterAll(async () => {
    await api.close();
  });

  const pageLinks = async (): Promise<string[]> => {
    const page = await api.bytes('/api/docs');
    const html = Buffer.from(page.body).toString('utf8');
    return [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  };

  it('serves an HTML page, cacheable for a while, revalidated by its ETag', async () => {
    const page = await api.bytes('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = page.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await api.bytes('/api/docs', revalidate(etag!));
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('loads only files of its own origin, under /api/docs/assets/, and confines the page to it', async () => {
    const links = await pageLinks();
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) expect(link).toMatch(/^\/api\/docs\/assets\/[a-z0-9.-]+$/);
    const html = Buffer.from((await api.bytes('/api/docs')).body).toString('utf8');
    expect(html).toContain(`http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';`);
  });

  it("serves the renderer's files as its package ships them, with their types and validators", async () => {
    const types: Record<string, string> = {
      css: 'text/css; charset=utf-8',
      js: 'text/javascript; charset=utf-8',
      png: 'image/png',
    };
    const fromPackage = (await pageLinks()).filter((link) => !link.endsWith('/docs.js'));
    expect(fromPackage.map((link) => link.split('/').pop()).sort()).toEqual(
      ['favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui.css'].sort(),
    );
    for (const link of fromPackage) {
      const name = link.split('/').pop()!;
      const answer = await api.bytes(link);
      expect(answer.status, link).toBe(200);
      expect(answer.headers.get('content-type'), link).toBe(types[name.split('.').pop()!]);
      expect(answer.headers.get('cache-control'), link).toBe('public, max-age=300');
      expect(Buffer.from(answer.body).equals(await readFile(join(RENDERER, name))), link).toBe(true);
      const again = await api.bytes(link, revalidate(answer.headers.get('etag')!));
      expect(again.status, link).toBe(304);
    }
  });

  it('starts the renderer on the served OpenAPI document, without the outside validator', async () => {
    const script = await api.bytes('/api/docs/assets/docs.js');
    expect(script.status).toBe(200);
    const text = Buffer.from(script.body).toString('utf8');
    expect(text).toContain('url: "/api/openapi.json"');
    expect(text).toContain('validatorUrl: null');
  });

  it.each([
    '/api/docs/assets/..%2F..%2Fpackage.json',
    '/api/docs/assets/..%2f..%2f..%2f..%2fpackage.json',
    '/api/docs/assets/%2e%2e%2fpackage.json',
    '/api/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json',
    '/api/docs/assets/..%5cpackage.json',
    '/api/docs/assets/%2e%2e',
    '/api/docs/assets/%252e%252e%252fpackage.json',
    '/api/docs/assets/swagger-ui.css%00',
    '/api/docs/assets/swagger-ui.css.map',
    '/api/docs/assets/package.json',
    '/api/docs/assets/index.html',
    '/api/docs/assets/%2Fetc%2Fpasswd',
  ])('refuses %s with a 400 naming the files it serves', async (path) => {
    const answer = await rawRequest(api.url, path);
    const body = answer.body.toString('utf8');
    expect(answer.status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'bad_request' } });
    expect(body).toContain('path.file');
    expect(body).not.toContain('"name"');
  });

  it.each([
    '/api/docs/assets/../../package.json',
    '/api/docs/assets/../../../../../etc/passwd',
    '/api/docs/../../package.json',
    '/api/docs/assets/swagger-ui.css/..',
  ])('answers the unencoded traversal %s, which matches no route, with a 404', async (path) => {
    const answer = await rawRequest(api.url, path);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ error: { code: 'not_found' } });
  });

  it('takes no query parameters, by the one query rule', async () => {
    for (const path of ['/api/docs?v=1', '/api/docs/assets/swagger-ui.css?v=1']) {
      const answer = await api.get<{ error: { message: string } }>(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.message, path).toBe('query.v: unknown parameter (this route takes no query parameters)');
    }
  });

  it('answers HEAD without a body and lets any origin read it, like every route', async () => {
    const head = await api.bytes('/api/docs/assets/swagger-ui.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const cors = await api.bytes('/api/docs', { headers: { Origin: 'https://example.org' } });
    expect(cors.headers.get('access-control-allow-origin')).toBe('*');
  });
});
