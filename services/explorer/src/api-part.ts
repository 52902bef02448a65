import { serveApi, type ApiData } from './api-serve.ts';
import { servePart } from './part-thread.ts';

/**
 * One more API beside the main thread's (API_THREADS): the same app on its own event loop, listening
 * on the main thread's port (SO_REUSEPORT, so the kernel spreads connections over the threads) and
 * answering from the head the threads share.
 */
await servePart<ApiData, null>('api', async (data, shutdown, logger, registry) => {
  await serveApi(data, shutdown, logger, registry);
  return { value: null };
});
