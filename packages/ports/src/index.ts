export type * from './read-store.ts';
export type * from './event-log.ts';
export type * from './counters.ts';
export type * from './chain-source.ts';
export type * from './image-fetcher.ts';
