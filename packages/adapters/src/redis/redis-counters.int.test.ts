import type { Counters } from '@mtc/ports';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  describeWithPrivateServers,
  startPrivateServers,
  type PrivateServers,
} from '../../../../test/support/private-servers.ts';
import { describeCountersContract, describeWithInfra, uniqueName } from '../contract/index.ts';
import { createRedisCounters } from './redis-counters.ts';

describeWithInfra('Redis counters', ['REDIS_URL'], ({ REDIS_URL }) => {
  // A fresh key prefix per store, so tests and earlier runs never share counts.
  describeCountersContract('redis', () => createRedisCounters({ url: REDIS_URL, prefix: `${uniqueName('test')}:` }));
});

/** A minute boundary (2023-11-14T22:14:00Z). */
const M = 1_700_000_040;
const BLOCKS = [
  { height: 1, timestamp: M + 5, count: 2 },
  { height: 2, timestamp: M + 65, count: 3 },
];
const NEXT = [{ height: 3, timestamp: M + 125, count: 4 }];

// Redis of its own (no persistence), which these tests flush and restart: never the shared one.
describeWithPrivateServers('Redis counters when Redis loses its data', () => {
  let servers: PrivateServers;
  const opened: Counters[] = [];
  const open = async (): Promise<Counters> => {
    const counters = await createRedisCounters({ url: servers.env.REDIS_URL, prefix: `${uniqueName('lost')}:` });
    opened.push(counters);
    return counters;
  };

  beforeAll(async () => {
    servers = await startPrivateServers('counters', ['redis']);
  }, 60_000);

  afterEach(async () => {
    for (const counters of opened.splice(0)) await counters.close();
  });

  afterAll(async () => {
    await servers?.remove();
  }, 60_000);

  it('refuses to count a batch once its data is gone (FLUSHALL), until highestCounted has said 0', async () => {
    const counters = await open();
    await counters.addBlockTxs(BLOCKS);
    expect(await counters.txCountBetween(M, M + 3600)).toBe(5);
    await servers.flushAll();
    // Counting block 3 alone would claim height 3 over empty buckets, which nobody would refill.
    await expect(counters.addBlockTxs(NEXT)).rejects.toMatchObject({ name: 'CountersLostError', retryable: true });
    expect(await counters.txCountBetween(M, M + 3600)).toBe(0);
    // The projector's way back: it reads 0, refills what it had counted, then counts the batch.
    expect(await counters.highestCounted()).toBe(0);
    await counters.addBlockTxs(BLOCKS);
    await counters.addBlockTxs(NEXT);
    expect(await counters.highestCounted()).toBe(3);
    expect(await counters.txCountBetween(M, M + 3600)).toBe(9);
  });

  it('fails retryably while Redis is down, and answers again by itself once it is back', async () => {
    const counters = await open();
    await counters.addBlockTxs(BLOCKS);
    await servers.stop('redis');
    try {
      await expect(counters.highestCounted()).rejects.toMatchObject({ retryable: true });
      await expect(counters.addBlockTxs(NEXT)).rejects.toMatchObject({ retryable: true });
      await expect(counters.txCountBetween(M, M + 3600)).rejects.toMatchObject({ retryable: true });
    } finally {
      await servers.start('redis');
    }
    // Same client, no reconnect by us; the restarted server is empty (no persistence).
    expect(await counters.highestCounted()).toBe(0);
    await counters.addBlockTxs(BLOCKS);
    expect(await counters.txCountBetween(M, M + 3600)).toBe(5);
  });

  it('refuses a batch sent before a restart and delivered after it', async () => {
    const counters = await open();
    await counters.addBlockTxs(BLOCKS);
    await servers.stop('redis');
    // The client keeps the call and sends it once it has reconnected, to the emptied server.
    const pending = counters.addBlockTxs(NEXT).then(
      () => 'counted',
      (error: unknown) => (error as { name?: string }).name,
    );
    await servers.start('redis');
    const outcome = await pending;
    // Either it gave up while Redis was away (a retryable connection error), or it reached the new
    // server, which must refuse it: never counted over the lost buckets.
    expect(['CountersLostError', 'MaxRetriesPerRequestError']).toContain(outcome);
    expect(await counters.txCountBetween(M, M + 3600)).toBe(0);
  });
});
