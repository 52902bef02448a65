import type { EventLog } from '@mtc/ports';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWithPrivateServers,
  startPrivateServers,
  type PrivateServers,
} from '../../../../test/support/private-servers.ts';
import { uniqueName, waitFor } from '../contract/index.ts';
import { createKafkaEventLog } from './kafka-log.ts';

// A broker of its own, which these tests stop and SIGKILL: never the shared one.
describeWithPrivateServers('Kafka event log across broker restarts and slow handlers', () => {
  let servers: PrivateServers;
  let log: EventLog;
  /** What the adapter logged (message texts), to see which path a publish took. */
  const logged: string[] = [];
  const record = (_fields: unknown, message?: string): void => void logged.push(String(message));
  const logger = { error: record, warn: record, info: record, debug: record };

  beforeAll(async () => {
    servers = await startPrivateServers('kafka-log', ['kafka']);
    log = await createKafkaEventLog({
      brokers: [servers.env.KAFKA_BROKERS],
      clientId: 'mtc-restart',
      topics: [],
      logger,
    });
  }, 120_000);

  afterAll(async () => {
    await log?.close();
    await servers?.remove();
  }, 60_000);

  /** Every value of `topic` from the start, through a throw-away group. */
  const readAll = async (topic: string, count: number): Promise<unknown[]> => {
    const values: unknown[] = [];
    const sub = await log.consume({ topic, group: uniqueName('read') }, async (batch) => {
      values.push(...batch.map((r) => r.value));
    });
    await waitFor(() => values.length >= count, { timeoutMs: 60_000, what: `${count} messages of ${topic}` });
    await sub.stop();
    return values;
  };

  it('publishes through a broker outage longer than the client’s own retries, once', async () => {
    const topic = uniqueName('outage');
    await log.publish(topic, [{ key: 'a', value: 1 }]);
    await servers.stop('kafka');
    let settled = false;
    const outcome = log.publish(topic, [{ key: 'b', value: 2 }]).then(
      () => 'published',
      (error: unknown) => error,
    );
    void outcome.finally(() => (settled = true));
    try {
      // kafkajs gives a request up after its own retries (about half a minute); the adapter goes on.
      await waitFor(() => settled || logged.includes('publish failed, retrying'), {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: 'the adapter to retry a failed publish',
      });
      expect(settled).toBe(false);
    } finally {
      await servers.start('kafka');
    }
    expect(await outcome).toBe('published');
    expect(logged).toContain('publish went through again');
    expect(await readAll(topic, 2)).toEqual([1, 2]);
  }, 240_000);

  it('keeps a subscription consuming after the broker is SIGKILLed and started, from its committed offset', async () => {
    const topic = uniqueName('killed');
    const seen: unknown[] = [];
    const sub = await log.consume({ topic, group: uniqueName('group') }, async (batch) => {
      seen.push(...batch.map((r) => r.value));
    });
    let ended = false;
    sub.done.then(
      () => (ended = true),
      () => (ended = true),
    );
    await log.publish(topic, [
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    await waitFor(() => seen.length >= 2, { timeoutMs: 60_000, what: 'the first messages' });
    await servers.kill('kafka');
    await servers.start('kafka');
    await log.publish(topic, [{ key: 'c', value: 3 }]);
    await waitFor(() => seen.includes(3), { timeoutMs: 120_000, intervalMs: 100, what: 'a message after the restart' });
    // At least once: a batch whose commit the kill cut off may come again, but nothing is skipped.
    expect([...new Set(seen)]).toEqual([1, 2, 3]);
    expect(ended).toBe(false);
    await sub.stop();
  }, 240_000);

  it('keeps a reader reading across a broker stop and start: each offset once, in order', async () => {
    const topic = uniqueName('reader');
    const seen: unknown[] = [];
    await log.publish(topic, [
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    const reader = await log.read({ topic, from: '0' }, async (batch) => {
      seen.push(...batch.map((r) => r.value));
    });
    let ended = false;
    reader.done.then(
      () => (ended = true),
      () => (ended = true),
    );
    await waitFor(() => seen.length >= 2, { timeoutMs: 60_000, what: 'the first messages' });
    await servers.stop('kafka');
    await servers.start('kafka');
    await log.publish(topic, [{ key: 'c', value: 3 }]);
    await waitFor(() => seen.includes(3), { timeoutMs: 120_000, intervalMs: 100, what: 'a message after the restart' });
    // A reader owes its handler each offset once: never again after a rejoin, never skipped.
    expect(seen).toEqual([1, 2, 3]);
    expect(ended).toBe(false);
    await reader.stop();
  }, 240_000);

  /** A log whose consumer groups give up on a silent member after 6 s (kafkajs: 30 s and 60 s). */
  const quickGroups = () =>
    createKafkaEventLog({
      brokers: [servers.env.KAFKA_BROKERS],
      clientId: 'mtc-slow',
      topics: [],
      group: { sessionTimeoutMs: 6_000, rebalanceTimeoutMs: 6_000 },
    });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('keeps a handler slower than the session timeout in its group, and commits its batch once', async () => {
    const quick = await quickGroups();
    try {
      const topic = uniqueName('slow');
      const group = uniqueName('group');
      await quick.publish(topic, [{ key: 'a', value: 1 }]);
      let calls = 0;
      // A store being restarted under the handler's retries, say: more than two session timeouts.
      const sub = await quick.consume({ topic, group }, async () => {
        calls++;
        await pause(15_000);
      });
      let ended = false;
      sub.done.then(
        () => (ended = true),
        () => (ended = true),
      );
      await waitFor(async () => (await quick.lag(topic, group)).every((p) => p.lag === 0), {
        timeoutMs: 60_000,
        intervalMs: 250,
        what: 'the batch to be committed',
      });
      expect(calls).toBe(1);
      expect(ended).toBe(false);
      await sub.stop();
    } finally {
      await quick.close();
    }
  }, 120_000);

  it('rejoins its group when the group dropped it during a batch, instead of giving the consumer up', async () => {
    const quick = await quickGroups();
    try {
      const topic = uniqueName('dropped');
      const group = uniqueName('group');
      await quick.publish(topic, [{ key: 'a', value: 1 }]);
      const seen: unknown[] = [];
      let stalled = false;
      const sub = await quick.consume({ topic, group }, async (batch) => {
        if (!stalled) {
          stalled = true;
          // The process stalls past the session timeout (no timer runs, so no heartbeat goes out):
          // the group drops this member, and the commit after the batch is refused.
          const until = Date.now() + 9_000;
          while (Date.now() < until);
        }
        seen.push(...batch.map((r) => r.value));
      });
      let ended: unknown = null;
      sub.done.then(
        () => (ended = 'resolved'),
        (error: unknown) => (ended = error),
      );
      /** Fails at once if the subscription ended (kafkajs gave the consumer up). */
      const alive = (): true => {
        if (ended !== null) throw new Error('the subscription ended', { cause: ended });
        return true;
      };
      try {
        await waitFor(() => alive() && stalled && seen.includes(1), { timeoutMs: 60_000, what: 'the first batch' });
        await quick.publish(topic, [{ key: 'b', value: 2 }]);
        await waitFor(
          async () => alive() && seen.includes(2) && (await quick.lag(topic, group)).every((p) => p.lag === 0),
          {
            timeoutMs: 90_000,
            intervalMs: 250,
            what: 'the member to rejoin, consume and commit',
          },
        );
        // The refused batch comes again after the rejoin: at least once, nothing lost.
        expect([...new Set(seen)]).toEqual([1, 2]);
        expect(ended).toBe(null);
      } finally {
        await sub.stop();
      }
    } finally {
      await quick.close();
    }
  }, 180_000);
});
