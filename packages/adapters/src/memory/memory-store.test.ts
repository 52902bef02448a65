import { describeReadStoreContract } from '../contract/index.ts';
import { createMemoryReadStore } from './memory-store.ts';

// The reference store must pass its own contract: the suite and the reference check each other.
describeReadStoreContract('memory', async () => createMemoryReadStore());
