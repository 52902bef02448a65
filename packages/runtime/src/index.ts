export * from './config.ts';
export * from './logger.ts';
export * from './retry.ts';
export * from './shutdown.ts';
export * from './ops-server.ts';
export * from './service.ts';
export * from './concurrency.ts';
export * from './env-file.ts';
export { freePort } from './net.ts';
