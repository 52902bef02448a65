export { createApiApp, startApi, type RunningApi } from './app.ts';
export { ApiConfigSchema, parseApiConfig, type ApiConfig, type TxTemplate } from './config.ts';
export type { ApiDeps, ApiState } from './context.ts';
export { ErrorBody } from './errors.ts';
export { buildOpenApiDocument, OPENAPI_PATH, openApiJson } from './openapi.ts';
export { allRoutes } from './routes/index.ts';
export { headMemory } from './head-cell.ts';
export { createNftImageFetcher } from './nft-images.ts';
