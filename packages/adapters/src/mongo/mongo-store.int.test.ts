import { describeReadStoreContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { createMongoReadStore } from './mongo-store.ts';

describeWithInfra('MongoDB read store', ['MONGO_URL'], ({ MONGO_URL }) => {
  // One database per suite; the contract drops it before each test.
  const database = uniqueName('mtc_contract').replaceAll('-', '_');
  describeReadStoreContract('mongodb', () => createMongoReadStore({ url: MONGO_URL, database }));
  // Writes split into concurrent lanes keep the same contract (order per document).
  const lanes = uniqueName('mtc_contract_lanes').replaceAll('-', '_');
  describeReadStoreContract('mongodb, 4 write lanes', () =>
    createMongoReadStore({ url: MONGO_URL, database: lanes, writeLanes: 4 }),
  );
});
