import { describeReadStoreContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { createMongoReadStore } from './mongo-store.ts';

// FerretDB 1.x, the CI stand-in (write limits chosen by the adapter when it detects it).
describeWithInfra('MongoDB read store', ['MONGO_URL'], ({ MONGO_URL }) => {
  // One database per suite; the contract drops it before each test.
  const database = uniqueName('mtc_contract').replaceAll('-', '_');
  describeReadStoreContract('mongodb', () => createMongoReadStore({ url: MONGO_URL, database }));
  // The default splits writes into concurrent lanes; one lane keeps a call's writes to a
  // collection in one bulk run, as it was before (order per document either way).
  const lanes = uniqueName('mtc_contract_lanes').replaceAll('-', '_');
  describeReadStoreContract('mongodb, 1 write lane', () =>
    createMongoReadStore({ url: MONGO_URL, database: lanes, writeLanes: 1 }),
  );
});

/**
 * mongo-java-server compares strings as Java does, by UTF-16 code unit, so a character above
 * U+FFFF (a surrogate pair, 0xD800–0xDBFF first) sorts before U+E000–U+FFFF; MongoDB compares the
 * UTF-8 bytes, i.e. by code point (de.bwaldvogel.mongo.backend.ValueComparator, String.compareTo).
 * Sorts and ranges over such strings differ; the adapter passes them through unchanged.
 */
const MONGO_JAVA_DEVIATIONS = {
  'compares strings by code point, which is UTF-8 byte order':
    'mongo-java-server orders strings by UTF-16 code unit, so 😀 sorts before U+FFFD',
};

// mongo-java-server, the benchmark stand-in: the same contract, with small chunks and several
// lanes so that chunk boundaries and concurrent bulk calls are crossed too.
describeWithInfra('MongoDB read store on mongo-java-server', ['MONGO_JAVA_URL'], ({ MONGO_JAVA_URL }) => {
  const database = uniqueName('mtc_contract_java').replaceAll('-', '_');
  describeReadStoreContract('mongo-java-server', () => createMongoReadStore({ url: MONGO_JAVA_URL, database }), {
    knownDeviations: MONGO_JAVA_DEVIATIONS,
  });
  const small = uniqueName('mtc_contract_java_small').replaceAll('-', '_');
  describeReadStoreContract(
    'mongo-java-server, 4 write lanes of 2',
    () => createMongoReadStore({ url: MONGO_JAVA_URL, database: small, writeLanes: 4, bulkChunk: 2 }),
    { knownDeviations: MONGO_JAVA_DEVIATIONS },
  );
});
