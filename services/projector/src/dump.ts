import { AdapterConfigSchema, openReadStore } from '@mtc/adapters';
import { dumpReadModels } from '@mtc/read-models';
import { createServiceContext } from '@mtc/runtime';
import { z } from 'zod';

/** `npm run dump`: prints the canonical hash and document counts of the configured read models. */
const ctx = createServiceContext('dump', AdapterConfigSchema.extend({ LOG_LEVEL: z.string().default('warn') }));
const store = await openReadStore(ctx.config);
try {
  console.log(JSON.stringify(await dumpReadModels(store)));
} finally {
  await store.close();
}
