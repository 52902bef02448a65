import { sleep } from '@mtc/runtime';

/**
 * A Kafka fault a later attempt may not meet (kafkajs's own rule for restarting a consumer): a
 * retriable error anywhere in the cause chain — a broker restarting, a partition whose leader is
 * not elected yet or has moved — or kafkajs's own retries running out on one.
 */
export function isTransientKafkaError(error: unknown): boolean {
  let cause: unknown = error;
  while ((cause as { cause?: unknown } | null)?.cause) cause = (cause as { cause: unknown }).cause;
  return (
    (error as { name?: unknown } | null)?.name === 'KafkaJSNumberOfRetriesExceeded' ||
    (cause as { retriable?: unknown } | null)?.retriable === true
  );
}

export interface RetryLog {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  debug(fields: object, msg: string): void;
}

/**
 * Runs `attempt` again while it fails transiently, with capped exponential backoff (250 ms doubling
 * to 5 s), until `retryMs` has passed; then the last error is thrown, marked `retryable` as it
 * was. A non-transient error is thrown at once.
 */
export async function whileTransient<T>(
  what: { op: string; topic: string; retryMs: number; log?: RetryLog | undefined },
  attempt: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + what.retryMs;
  for (let n = 1; ; n++) {
    try {
      const value = await attempt();
      if (n > 1) what.log?.info({ component: 'kafka', topic: what.topic, attempt: n }, `${what.op} went through again`);
      return value;
    } catch (error) {
      const transient = isTransientKafkaError(error);
      if (!transient || Date.now() >= deadline) throw Object.assign(error as Error, { retryable: transient });
      const delayMs = Math.min(5_000, 250 * 2 ** Math.min(n - 1, 5));
      // The first failure and every tenth after it at warn: a broker down for long must not flood the log.
      const level = n === 1 || n % 10 === 0 ? 'warn' : 'debug';
      what.log?.[level](
        { component: 'kafka', topic: what.topic, attempt: n, delayMs, err: error },
        `${what.op} failed, retrying`,
      );
      await sleep(delayMs);
    }
  }
}
