export * from './config.ts';
export * from './logger.ts';
export * from './retry.ts';
export * from './shutdown.ts';
