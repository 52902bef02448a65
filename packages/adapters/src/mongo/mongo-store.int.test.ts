import { describeReadStoreContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { createMongoReadStore } from './mongo-store.ts';

describeWithInfra('MongoDB read store', ['MONGO_URL'], ({ MONGO_URL }) => {
  // One database per test file; the contract drops it before each test.
  const database = uniqueName('mtc_contract').replaceAll('-', '_');
  describeReadStoreContract('mongodb', () => createMongoReadStore({ url: MONGO_URL, database }));
});
