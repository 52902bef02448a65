import { createMemoryReadStore } from '@mtc/adapters';
import type { ReadStore } from '@mtc/ports';
import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { buildChain, fakeChain, fakeCounters, startTestApi } from '../../testing/harness.ts';

/**
 * /readyz answers within its 1 s budget whatever a dependency does, and names the one that hangs
 * (issue 10: a deadlocked store left it hanging for 20+ minutes). The store here never answers, so
 * these prove the budget, not a fast store.
 */
const fixture = buildChain(20);
const never = (): Promise<never> => new Promise<never>(() => {});

function hungStore(): ReadStore {
  const inner = createMemoryReadStore();
  return { ...inner, collection: () => ({ get: never, getMany: never, find: never, count: never }) };
}

async function readyzOf(api: Awaited<ReturnType<typeof startTestApi>>) {
  const started = Date.now();
  const res = await api.get('/readyz');
  return { ...res, ms: Date.now() - started };
}

describe('GET /readyz with a dependency that hangs', () => {
  it('answers 503 within 1 s naming the read store when the store never answers', async () => {
    const api = await startTestApi({ store: hungStore() });
    try {
      const { status, body, ms } = await readyzOf(api);
      expect(status).toBe(503);
      expect(ErrorBody.parse(body).error.message).toBe('the read store did not answer within 700 ms');
      expect(ms).toBeLessThan(1_000);
    } finally {
      await api.close();
    }
  });

  it('answers 503 within 1 s naming the counters when they never answer', async () => {
    const counters = { ...fakeCounters(), highestCounted: never };
    const api = await startTestApi({ fixture, chain: fakeChain(fixture, 20), counters });
    try {
      const { status, body, ms } = await readyzOf(api);
      expect(status).toBe(503);
      expect(ErrorBody.parse(body).error.message).toBe('the counters store did not answer within 700 ms');
      expect(ms).toBeLessThan(1_000);
    } finally {
      await api.close();
    }
  });

  it('answers 503 within 1 s naming the node when it never answers', async () => {
    const chain = fakeChain(fixture, 20);
    chain.height = never;
    const api = await startTestApi({ fixture, chain });
    try {
      const { status, body, ms } = await readyzOf(api);
      expect(status).toBe(503);
      expect(ErrorBody.parse(body).error.message).toBe('the chain node did not answer within 700 ms');
      expect(ms).toBeLessThan(1_000);
    } finally {
      await api.close();
    }
  });
});
