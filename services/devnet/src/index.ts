/**
 * @mtc/devnet — a deterministic Metacoin chain behind the public node's read API, for the
 * all-in-one runner and end-to-end tests.
 */
export { createDevnet } from './chain/devnet.ts';
export { DEFAULT_JOBS } from './jobs/registry.ts';
export type { Job } from './jobs/job.ts';
export { openDevnet, type DevnetClock } from './chain/schedule.ts';
export type { Devnet, WorldState } from './chain/devnet.ts';
export type { DevnetOptions } from './chain/options.ts';
export { startDevnetServer } from './server/server.ts';
export type { DevnetServer, DevnetServerOptions } from './server/server.ts';
export type { BalanceEntry, Mrc010Token, TokenReserve, Wallet } from './world/records.ts';
