import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { whileTransient } from './transient.ts';

/** The error kafkajs raises when a partition's leader is not elected yet or has moved (code 6). */
const notLeader = () =>
  new KafkaJSProtocolError(
    Object.assign(new Error('This server is not the leader for that topic-partition'), {
      type: 'NOT_LEADER_OR_FOLLOWER',
      code: 6,
      retriable: true,
    }),
  );

describe('whileTransient', () => {
  it("answers once an offset lookup stops failing with a new topic's 'not the leader'", async () => {
    let calls = 0;
    const offsets = await whileTransient({ op: 'offset lookup', topic: 't', retryMs: 10_000 }, async () => {
      calls++;
      if (calls <= 2) throw notLeader();
      return [{ partition: 0, high: '7', low: '0' }];
    });
    expect(offsets).toEqual([{ partition: 0, high: '7', low: '0' }]);
    expect(calls).toBe(3);
  });

  it('throws a non-transient error at once, marked not retryable', async () => {
    let calls = 0;
    const failed = whileTransient({ op: 'publish', topic: 't', retryMs: 10_000 }, async () => {
      calls++;
      throw new KafkaJSNonRetriableError('message too large');
    });
    await expect(failed).rejects.toMatchObject({ message: 'message too large', retryable: false });
    expect(calls).toBe(1);
  });

  it('gives up after retryMs with the last error, marked retryable', async () => {
    let calls = 0;
    const started = Date.now();
    const failed = whileTransient({ op: 'publish', topic: 't', retryMs: 600 }, async () => {
      calls++;
      throw notLeader();
    });
    await expect(failed).rejects.toMatchObject({ code: 6, retryable: true });
    // 250 ms, then 500 ms of backoff: the attempt after the deadline is the last one.
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });
});
