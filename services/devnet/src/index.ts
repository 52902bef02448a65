/**
 * @mtc/devnet — a deterministic Metacoin chain behind the public node's read API, for the
 * all-in-one runner and end-to-end tests.
 */
export { createDevnet } from './chain/devnet.ts';
export { DEFAULT_JOBS } from './jobs/registry.ts';
export type { Job } from './jobs/job.ts';
export { imageOriginPort, openDevnet, type DevnetClock, type WantedDevnet } from './chain/schedule.ts';
export type { Devnet, WorldState } from './chain/devnet.ts';
export type { DevnetOptions } from './chain/options.ts';
export { startDevnetServer } from './server/server.ts';
export type { DevnetServer, DevnetServerOptions } from './server/server.ts';
export { FAULT_KINDS, NODE_FAULT_KINDS, type FaultKind } from './server/faults.ts';
export { DevnetFaultConfigSchema, faultOptionsFrom, type DevnetFaultConfig } from './config.ts';
export type { BalanceEntry, Mrc010Token, TokenReserve, Wallet } from './families/mrc010/records.ts';
export type { ChainToken, ChainWallet, LegacyWallet } from './families/mrc010/codec.ts';
export type { ChainMrc400Collection, ChainMrc401Item } from './families/mrc400/records.ts';
export type { Dex402Order, Mrc402Token } from './families/mrc402/records.ts';
export { createLedger, type Ledger, type LedgerWrite } from './ledger.ts';
