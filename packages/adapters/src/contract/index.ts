export { describeReadStoreContract, type ReadStoreContractOptions } from './read-store.contract.ts';
export { describeEventLogContract, type EventLogContractOptions } from './event-log.contract.ts';
export { describeCountersContract } from './counters.contract.ts';
export { uniqueName, waitFor } from './wait.ts';
export { describeWithInfra, infraSetting, type InfraKey } from './infra.ts';
