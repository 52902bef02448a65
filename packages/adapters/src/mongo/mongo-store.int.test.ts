import { describeReadStoreContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { usesContainers } from '../contract/infra.ts';
import { createMongoReadStore } from './mongo-store.ts';

/** The contract on one MongoDB-compatible server, with the default lanes and with one. */
function describeOn(name: string, url: string, prefix: string): void {
  // One database per suite; the contract drops it before each test.
  const database = uniqueName(prefix).replaceAll('-', '_');
  describeReadStoreContract(name, () => createMongoReadStore({ url, database }));
  // The default splits writes into concurrent lanes; one lane keeps a call's writes to a
  // collection in one bulk run, as it was before (order per document either way).
  const lanes = uniqueName(`${prefix}_lanes`).replaceAll('-', '_');
  describeReadStoreContract(`${name}, 1 write lane`, () =>
    createMongoReadStore({ url, database: lanes, writeLanes: 1 }),
  );
}

// FerretDB 1.x, the second local stand-in (write limits chosen by the adapter when it detects it).
describeWithInfra('MongoDB read store on FerretDB', ['MONGO_FERRETDB_URL'], ({ MONGO_FERRETDB_URL }) =>
  describeOn('ferretdb', MONGO_FERRETDB_URL, 'mtc_contract'),
);

// MongoDB itself, where the run's servers are containers (locally MONGO_URL is mongo-java-server, below).
if (usesContainers())
  describeWithInfra('MongoDB read store', ['MONGO_URL'], ({ MONGO_URL }) =>
    describeOn('mongodb', MONGO_URL, 'mtc_contract_mongodb'),
  );

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

// mongo-java-server, the default local stand-in (MONGO_URL): the same contract, with small chunks and several
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
