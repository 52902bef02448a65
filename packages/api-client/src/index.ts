import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.ts';

/**
 * A typed client of the explorer's read API. Its types are generated from the API's OpenAPI
 * document (`npm run generate:clients`), so a route's parameters and answers are checked by the
 * compiler: `client.GET('/api/tx/{id}', { params: { path: { id } } })` resolves to `{ data, response }`
 * with `data` typed as the document's 200 answer (`TxDetailList`), or to `{ error, response }` with
 * `error` typed as its error shape (`Error`).
 */
export type { components, operations, paths } from './generated/openapi.ts';

export type ExplorerClient = Client<paths>;

/** A schema of the OpenAPI document by name, e.g. `ApiSchema<'BlockSummary'>`. */
export type ApiSchema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * `baseUrl` is where the API is served, without `/api` (the document's paths begin with it), e.g.
 * `http://127.0.0.1:3000`. `options` go to openapi-fetch (headers, a fetch of one's own …).
 */
export function createExplorerClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ExplorerClient {
  return createClient<paths>({ ...options, baseUrl });
}
