/**
 * @mtc/devnet — a deterministic Metacoin chain behind the public node's read API, for the
 * all-in-one runner and end-to-end tests.
 */
export { createDevnet } from './chain/devnet.ts';
export { DEFAULT_JOBS } from './jobs/registry.ts';
export { imageOriginPort, openDevnet, type DevnetClock } from './chain/schedule.ts';
export type { Devnet } from './chain/devnet.ts';
export { startDevnetServer, type DevnetServer } from './server/server.ts';
export { FAULT_KINDS, type FaultKind } from './server/faults.ts';
export { DevnetFaultConfigSchema, faultOptionsFrom } from './config.ts';
export type { Wallet } from './families/mrc010/records.ts';
export { createLedger, type LedgerWrite } from './ledger.ts';
