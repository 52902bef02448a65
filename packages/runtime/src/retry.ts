/**
 * Retry with capped exponential backoff and full jitter. Only errors the caller deems retryable are
 * retried; the rest propagate at once. Aborting the signal stops waiting and rethrows.
 */
export interface RetryOptions {
  retryable: (error: unknown) => boolean;
  /** First delay in ms; doubles per attempt up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts in all; Infinity retries for as long as the error stays retryable. */
  maxAttempts?: number;
  signal?: AbortSignal;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

export async function withRetry<T>(op: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { baseDelayMs = 100, maxDelayMs = 10_000, maxAttempts = Infinity } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (!options.retryable(error) || attempt >= maxAttempts || options.signal?.aborted) throw error;
      const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempt - 1, 30));
      const delay = Math.round(Math.random() * cap);
      options.onRetry?.(error, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Errors say whether a retry can help through a `retryable` flag (NodeError, log and store faults). */
export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/** A fault that a later attempt may not hit: data the node has not served yet, a busy server. */
export class TransientError extends Error {
  override name = 'TransientError';
  readonly retryable = true;
}
