import { createMemoryReadStore } from '@mtc/adapters';
import type { Collection, Doc, ReadStore } from '@mtc/ports';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from './app.ts';
import { createNftImageFetcher } from './nft-images.ts';
import { fakeChain, fakeCounters, testConfig } from './testing/harness.ts';

/** A store whose every read waits until `open()` is called: requests stay in flight until then. */
function gatedStore(): { store: ReadStore; open(): void } {
  const inner = createMemoryReadStore();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const after =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await gate;
      return fn(...args);
    };
  const store: ReadStore = {
    ...inner,
    collection: <T extends Doc>(name: string): Collection<T> => {
      const c = inner.collection<T>(name);
      return {
        get: after((id) => c.get(id)),
        getMany: after((ids) => c.getMany(ids)),
        find: after((filter, options) => c.find(filter, options)),
        count: after((filter) => c.count(filter)),
      };
    },
  };
  return { store, open };
}

async function start(env: Record<string, string>, store: ReadStore, stopping?: AbortSignal): Promise<RunningApi> {
  // Long request budgets: only the drain deadline may end a request here.
  const config = testConfig({ API_REQUEST_TIMEOUT_MS: '60000', ...env });
  const logger = pino({ level: 'silent' });
  return startApi({
    config,
    logger,
    store,
    images: createNftImageFetcher({ config, logger, store }),
    counters: fakeCounters(),
    chain: fakeChain(null),
    port: 0,
    host: '127.0.0.1',
    ...(stopping ? { stopping } : {}),
  });
}

describe('stopping the API', () => {
  it('answers /readyz 503 from the moment the process begins to stop', async () => {
    const stopping = new AbortController();
    const api = await start({}, createMemoryReadStore(), stopping.signal);
    try {
      const before = await fetch(`${api.url}/readyz`);
      expect(JSON.stringify(await before.json())).not.toContain('stopping');
      stopping.abort();
      const after = await fetch(`${api.url}/readyz`);
      expect(after.status).toBe(503);
      expect(await after.json()).toEqual({
        error: {
          code: 'unavailable',
          message: 'the API is stopping: it finishes the requests in flight and takes no new ones',
        },
      });
    } finally {
      await api.close();
    }
  });

  it('lets a request in flight finish within API_DRAIN_TIMEOUT_MS, and takes no new connection meanwhile', async () => {
    const { store, open } = gatedStore();
    const api = await start({ API_DRAIN_TIMEOUT_MS: '10000' }, store);
    const inFlight = fetch(`${api.url}/api/blocks`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const closed = api.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(fetch(`${api.url}/healthz`)).rejects.toThrow();
    open();
    expect((await inFlight).status).toBe(200);
    await closed;
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(290);
    // Not the keep-alive timeout (5 s): the connection is closed as soon as its answer is sent.
    expect(ms).toBeLessThan(1500);
  });

  it('closes the connections of requests still in flight at the deadline, so a stop never waits for ever', async () => {
    const { store, open } = gatedStore();
    const api = await start({ API_DRAIN_TIMEOUT_MS: '300' }, store);
    try {
      const inFlight = fetch(`${api.url}/api/blocks`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      await api.close();
      const ms = performance.now() - started;
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(3000);
      await expect(inFlight).rejects.toThrow();
    } finally {
      open();
    }
  });
});
