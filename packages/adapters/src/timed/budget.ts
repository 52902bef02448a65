import type { Logger } from 'pino';

/**
 * Time budgets on calls to a server-backed port (the read store, the counters).
 *
 * A server that accepts connections but never answers (a deadlocked MongoDB, a frozen network
 * path) holds its callers for as long as it hangs: the API's requests and its readiness probe, the
 * projector's batch, all silently. Through a budget, every call either settles within its time or
 * rejects with StoreTimeoutError: a 503 for the API, a retryable fault for the projector.
 *
 * A call past its budget is abandoned, not cancelled: the driver may still be sending it, and the
 * server may still apply it once it wakes up. So a mutation does not start while an abandoned
 * mutation of the same port is still pending: a projection's writes stay in order even when one of
 * them outlives its caller (the driver's own socket timeout, set above every budget, bounds that
 * wait). The first timeout starts a stall, which ends with the answer to a call started at least
 * STALL_SETTLE_MS after the latest timeout: a store that answers some calls in time and not others
 * (overloaded) stays in one stall instead of starting one per timeout. Both ends are logged once,
 * never per call (`observeBudgets`).
 */

/** How messages name a port. */
const PORT_NAMES: Record<string, string> = { store: 'read store', counters: 'counters store' };

export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
  /** The API answers it as 503 `unavailable`: the dependency is down, not the request wrong. */
  readonly status = 503;
  /** The server may answer the next attempt (isRetryable in @mtc/runtime). */
  readonly retryable = true;

  /** Which port: `store` or `counters`. */
  readonly port: string;
  readonly op: string;
  readonly budgetMs: number;

  constructor(port: string, op: string, budgetMs: number) {
    super(`the ${PORT_NAMES[port] ?? port} did not answer ${op} within ${budgetMs} ms`);
    this.port = port;
    this.op = op;
    this.budgetMs = budgetMs;
  }
}

export type BudgetEvent =
  | { kind: 'timeout'; port: string; op: string; budgetMs: number }
  | { kind: 'stalled'; port: string; op: string; budgetMs: number }
  | { kind: 'recovered'; port: string; stalledMs: number; timeouts: number };

export interface Stall {
  /** Unix ms of the first timeout of the stall. */
  since: number;
  /** The call that timed out first. */
  op: string;
  /** Calls timed out since. */
  timeouts: number;
}

/** What a budgeted port tells its observers. Ports that are not budgeted (embedded) have none. */
export interface BudgetWatch {
  readonly port: string;
  /** The stall under way, or null. */
  stall(): Stall | null;
  /** Calls `listener` with every timeout, stall and recovery from now on; returns the unsubscribe. */
  subscribe(listener: (event: BudgetEvent) => void): () => void;
}

const WATCH = Symbol('budget watch');

/** The watch of a budgeted port (see `timeReadStore`, `timeCounters`), or null for any other. */
export function budgetWatchOf(port: object): BudgetWatch | null {
  return (port as { [WATCH]?: BudgetWatch })[WATCH] ?? null;
}

export function attachWatch<T extends object>(port: T, watch: BudgetWatch): T {
  Object.defineProperty(port, WATCH, { value: watch, enumerable: false });
  return port;
}

/**
 * The budget runner of one port: `run(op, budgetMs, call)` for reads, `mutate(...)` for writes
 * (which wait for abandoned writes first, inside their own budget).
 */
export interface Budget {
  readonly watch: BudgetWatch;
  run<T>(op: string, budgetMs: number, call: () => Promise<T>): Promise<T>;
  mutate<T>(op: string, budgetMs: number, call: () => Promise<T>): Promise<T>;
}

/** How long after its latest timeout a port must answer in time for its stall to end. */
export const STALL_SETTLE_MS = 5_000;

export function createBudget(port: string, now: () => number = Date.now): Budget {
  const listeners = new Set<(event: BudgetEvent) => void>();
  const emit = (event: BudgetEvent): void => {
    for (const listener of listeners) listener(event);
  };
  let stall: Stall | null = null;
  let lastTimeoutAt = 0;
  /** Mutations past their budget that have not settled yet. */
  const abandoned = new Set<Promise<unknown>>();

  const timedOut = (op: string, budgetMs: number): void => {
    lastTimeoutAt = now();
    emit({ kind: 'timeout', port, op, budgetMs });
    if (stall) {
      stall.timeouts++;
      return;
    }
    stall = { since: now(), op, timeouts: 1 };
    emit({ kind: 'stalled', port, op, budgetMs });
  };
  const answered = (startedAt: number): void => {
    // An answer to a call made while calls still timed out says nothing about the server now.
    if (!stall || startedAt < lastTimeoutAt + STALL_SETTLE_MS) return;
    const ended = stall;
    stall = null;
    emit({ kind: 'recovered', port, stalledMs: now() - ended.since, timeouts: ended.timeouts });
  };

  const within = async <T>(op: string, budgetMs: number, call: () => Promise<T>, mutation: boolean): Promise<T> => {
    const startedAt = now();
    let late = false;
    let started: Promise<T> | undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        if (mutation && started) {
          const pending = started.then(
            () => undefined,
            () => undefined,
          );
          abandoned.add(pending);
          void pending.then(() => abandoned.delete(pending));
        }
        timedOut(op, budgetMs);
        reject(new StoreTimeoutError(port, op, budgetMs));
      }, budgetMs);
    });
    const work = async (): Promise<T> => {
      if (mutation && abandoned.size > 0) await Promise.all(abandoned);
      // Past its budget while it waited: it never starts.
      if (late) throw new StoreTimeoutError(port, op, budgetMs);
      started = call();
      return started;
    };
    try {
      const value = await Promise.race([work(), timeout]);
      answered(startedAt);
      return value;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    watch: {
      port,
      stall: () => (stall ? { ...stall } : null),
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    run: (op, budgetMs, call) => within(op, budgetMs, call, false),
    mutate: (op, budgetMs, call) => within(op, budgetMs, call, true),
  };
}

/**
 * Logs a port's stalls, once when one starts and once when it ends, and hands every timeout and
 * stall change to the caller's metrics. A port without a budget (embedded: a synchronous call in
 * this process cannot hang while a timer waits) is ignored.
 */
export function observeBudgets(
  port: object,
  observer: {
    logger: Logger;
    timeout?: (port: string, op: string) => void;
    stalled?: (port: string, stalled: boolean) => void;
  },
): () => void {
  const watch = budgetWatchOf(port);
  if (!watch) return () => {};
  const logger = observer.logger.child({ component: 'store-budget', port: watch.port });
  observer.stalled?.(watch.port, false);
  return watch.subscribe((event) => {
    switch (event.kind) {
      case 'timeout':
        observer.timeout?.(event.port, event.op);
        return;
      case 'stalled':
        logger.warn({ op: event.op, budgetMs: event.budgetMs }, 'stalled: a call got no answer within its budget');
        observer.stalled?.(event.port, true);
        return;
      case 'recovered':
        logger.info({ stalledMs: event.stalledMs, timeouts: event.timeouts }, 'answering again after a stall');
        observer.stalled?.(event.port, false);
        return;
    }
  });
}
