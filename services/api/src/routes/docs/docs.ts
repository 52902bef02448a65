import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { OPENAPI_PATH } from '../../openapi.ts';
import { defineBytesRoute, type ApiRoute, type Bytes } from '../../route.ts';

/**
 * `/api/docs`: the OpenAPI document rendered for people by Swagger UI (`swagger-ui-dist`), served
 * entirely by this process. The renderer's files come from node_modules, found when the routes are
 * built (a missing package stops the start, not a reader's page), read on first request and kept in
 * memory; only the names in DOCS_ASSETS are served, so no request names a file by its path and no
 * `..`, encoded or not, can reach the disk. The page loads nothing from another origin: Swagger UI's
 * online validator badge (its one outside call) is off, and the page's Content-Security-Policy
 * confines scripts, styles, images and fetches to this origin.
 */
export const DOCS_PATH = '/api/docs';
const ASSETS_PATH = `${DOCS_PATH}/assets`;

/** Our own start-up script: a file rather than an inline script, so the policy needs no 'unsafe-inline' for scripts. */
const START_SCRIPT = 'docs.js';

/** The files the page loads: the renderer's, from its package, and our start-up script. */
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', START_SCRIPT] as const;
type AssetName = (typeof DOCS_ASSETS)[number];

const ASSET_MEDIA_TYPES = ['text/css', 'text/javascript', 'image/png'] as const;
type AssetType = (typeof ASSET_MEDIA_TYPES)[number];
const ASSET_TYPES: Record<AssetName, AssetType> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'text/javascript',
  'favicon-32x32.png': 'image/png',
  [START_SCRIPT]: 'text/javascript',
};

/**
 * Swagger UI's own inline styles (React style attributes) need 'unsafe-inline' for styles and its CSS
 * inlines SVG icons as data: URIs; everything else is this origin only.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />
    <title>Metacoin Explorer Read API</title>
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" />
  </head>
  <body>
    <div id="docs"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${ASSETS_PATH}/${START_SCRIPT}"></script>
  </body>
</html>
`;

/**
 * Renders the document served at OPENAPI_PATH. `validatorUrl: null`: by default Swagger UI shows a
 * badge fetched from an outside validator. `docExpansion: 'list'`: every operation is listed, open
 * tags, closed operations. No "Try it out" by default: the API is public, but a page of documentation
 * should not send requests until a reader asks.
 */
const START = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#docs',
  deepLinking: true,
  docExpansion: 'list',
  validatorUrl: null,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
});
`;

/** Bytes with a strong ETag of their content. */
function versioned<M extends string>(bytes: Uint8Array, mediaType: M): Bytes<M> {
  return { bytes, mediaType, etag: createHash('sha1').update(bytes).digest('base64url') };
}

/** Where a file of the renderer is; throws when the package is not installed. */
function rendererDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The page and its asset routes; each file of the renderer is read once, on first request. */
export function createDocsRoutes(dir: string = rendererDir()): ApiRoute[] {
  const loaded = new Map<AssetName, Promise<Bytes<AssetType>>>([
    [START_SCRIPT, Promise.resolve(versioned(Buffer.from(START), 'text/javascript'))],
  ]);
  const load = (name: AssetName): Promise<Bytes<AssetType>> => {
    let bytes = loaded.get(name);
    if (bytes === undefined) {
      bytes = readFile(join(dir, name)).then((content) => versioned(content, ASSET_TYPES[name]));
      // A failed read is not kept: the next request tries again.
      bytes.catch(() => loaded.delete(name));
      loaded.set(name, bytes);
    }
    return bytes;
  };
  const page = versioned(Buffer.from(PAGE), 'text/html');

  const pageRoute = defineBytesRoute({
    path: DOCS_PATH,
    operationId: 'getDocs',
    tag: 'meta',
    summary: 'This document, rendered for people',
    description: `An HTML page that renders ${OPENAPI_PATH} (Swagger UI, served by the API itself: it loads nothing from another origin).`,
    mediaTypes: ['text/html'],
    responseDescription: 'The HTML page.',
    errors: [],
    cache: 'config',
    async handle() {
      return page;
    },
  });
  const assetRoute = defineBytesRoute({
    path: `${ASSETS_PATH}/{file}`,
    operationId: 'getDocsAsset',
    tag: 'meta',
    summary: "A file of the documentation page's renderer",
    description: `The stylesheet, scripts and icon ${DOCS_PATH} loads; any other name is a 400.`,
    params: z.object({ file: z.enum(DOCS_ASSETS) }),
    mediaTypes: ASSET_MEDIA_TYPES,
    responseDescription: 'The file.',
    errors: [400],
    cache: 'config',
    async handle({ params }) {
      return load(params.file);
    },
  });
  return [pageRoute, assetRoute];
}
