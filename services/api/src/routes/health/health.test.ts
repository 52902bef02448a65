import { createMemoryReadStore } from '@mtc/adapters';
import type { ReadStore } from '@mtc/ports';
import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { buildChain, fakeChain, startTestApi, testConfig } from '../../testing/harness.ts';

const fixture = buildChain(100);

describe('GET /healthz', () => {
  it('answers ok even when the node is down and nothing is indexed', async () => {
    const chain = fakeChain(null);
    chain.down = true;
    const api = await startTestApi({ chain });
    try {
      const res = await api.get('/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    } finally {
      await api.close();
    }
  });
});

describe('GET /readyz', () => {
  it('is ready when the index is within READY_MAX_LAG of the node', async () => {
    const api = await startTestApi({ fixture, chain: fakeChain(fixture, 105) });
    try {
      const res = await api.get('/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', indexedHeight: 100, mainnetHeight: 105 });
    } finally {
      await api.close();
    }
  });

  it('answers 503 with the lag when the index is further behind', async () => {
    const api = await startTestApi({ fixture, chain: fakeChain(fixture, 106) });
    try {
      const res = await api.get('/readyz');
      expect(res.status).toBe(503);
      const { error } = ErrorBody.parse(res.body);
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain('6 blocks behind');
    } finally {
      await api.close();
    }
  });

  it('honours a configured READY_MAX_LAG', async () => {
    const api = await startTestApi({
      fixture,
      chain: fakeChain(fixture, 101),
      config: testConfig({ READY_MAX_LAG: '0' }),
    });
    try {
      expect((await api.get('/readyz')).status).toBe(503);
    } finally {
      await api.close();
    }
  });

  it('answers 503 when the node does not answer', async () => {
    const chain = fakeChain(fixture);
    chain.down = true;
    const api = await startTestApi({ fixture, chain });
    try {
      const res = await api.get('/readyz');
      expect(res.status).toBe(503);
      const { error } = ErrorBody.parse(res.body);
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain('node');
    } finally {
      await api.close();
    }
  });

  it('answers 503 when the read store does not answer', async () => {
    const inner = createMemoryReadStore();
    const store: ReadStore = {
      ...inner,
      collection: () => {
        const fail = async (): Promise<never> => {
          throw new Error('store down');
        };
        return { get: fail, getMany: fail, find: fail, count: fail };
      },
    };
    const api = await startTestApi({ store });
    try {
      const res = await api.get('/readyz');
      expect(res.status).toBe(503);
      const { error } = ErrorBody.parse(res.body);
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain('store');
    } finally {
      await api.close();
    }
  });
});
