import { KafkaJSConnectionError, KafkaJSGroupCoordinatorNotFound, KafkaJSNonRetriableError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { lostCoordinator } from './kafka-log.ts';

describe('lostCoordinator', () => {
  it('names the crash kafkajs gives a consumer up with when no broker answers for its group', () => {
    // As kafkajs throws it from a coordinator lookup that ran out of retries, and wrapped once more.
    // kafkajs constructs it with a message, which its typings leave out.
    const NotFound = KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error;
    const notFound = new NotFound('Failed to find group coordinator');
    expect(notFound.name).toBe('KafkaJSGroupCoordinatorNotFound');
    expect(lostCoordinator(new KafkaJSNonRetriableError(notFound))).toBe(true);
    expect(lostCoordinator(new KafkaJSNonRetriableError(new KafkaJSNonRetriableError(notFound)))).toBe(true);
  });

  it('leaves every other crash to fail the subscription', () => {
    expect(lostCoordinator(new KafkaJSNonRetriableError(new KafkaJSConnectionError('Connection error')))).toBe(false);
    expect(lostCoordinator(new Error('handler failed'))).toBe(false);
    expect(lostCoordinator(undefined)).toBe(false);
  });
});
