import { AdapterConfigSchema, openReadStore } from '@mtc/adapters';
import { COLLECTION_SPECS } from '@mtc/read-models';
import { createServiceContext } from '@mtc/runtime';
import { z } from 'zod';

/**
 * `npm run migrate`: creates the read-model collections and indexes, then exits. Run once before
 * starting several projectors (a deploy step): they would each do it at start-up anyway, but index
 * builds racing from many processes is what the MongoDB stand-ins handle worst.
 */
const ctx = createServiceContext('migrate', AdapterConfigSchema.extend({ LOG_LEVEL: z.string().default('info') }));
const store = await openReadStore(ctx.config);
try {
  await store.ensureCollections(COLLECTION_SPECS);
  ctx.logger.info({ collections: COLLECTION_SPECS.map((c) => c.name) }, 'read models ready');
} finally {
  await store.close();
}
process.exit(0);
