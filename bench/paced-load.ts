import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

/**
 * Load at a fixed request rate, reported window by window (the soak, bench/soak.ts). Requests are
 * issued on a schedule, `ratePerSec` spread evenly over each second (checked every millisecond),
 * whether or not earlier answers have come back: a server that slows down meets the same arrivals
 * and its backlog shows in the latencies. autocannon's `overallRate` is not that: each connection
 * sends its quota for the second back to back when the second begins and then waits, so half the
 * maximum rate arrives as bursts at the full rate followed by silence.
 *
 * Requests go over at most `connections` keep-alive sockets (undici's Pool: less CPU per request
 * than node:http's Agent, which matters when the client shares the server's cores); one issued
 * while all are busy waits for a socket, and that wait is part of its latency. Past
 * `maxOutstanding` unanswered requests the schedule's requests are not sent but counted as
 * `skipped` (the server no longer keeps up; an unbounded queue would only measure this process's
 * memory). Like bench/load.ts it runs in a worker thread of its own, and the URLs (one origin) are
 * requested in turn.
 */
export interface PacedOptions {
  ratePerSec: number;
  durationSec: number;
  /** Figures are reported per window of this length. */
  windowSec: number;
  connections: number;
  maxOutstanding: number;
  /** An exchange without any byte for this long is abandoned and counted as a timeout. */
  timeoutMs: number;
}

/** One window's requests: each counted in the window in which it was issued, answered or abandoned. */
export interface PacedWindow {
  index: number;
  /** Wall clock (Date.now()) bounds, comparable with samples taken on other threads. */
  startMs: number;
  endMs: number;
  issued: number;
  skipped: number;
  /** 2xx answers. */
  ok: number;
  /** Status code → answers, for every answer that was not 2xx. */
  non2xx: Record<string, number>;
  /** Exchanges that failed (connection reset, refused…), timeouts aside. */
  errors: number;
  /** Error code (ECONNRESET…) → failed exchanges. */
  errorCodes: Record<string, number>;
  timeouts: number;
  /** Milliseconds from issue to the last byte of every 2xx answer, ascending. */
  latencies: Float64Array<ArrayBuffer>;
}

const JOB_KIND = 'bench-paced-load';
const DRAIN_MARGIN_MS = 5_000;

interface PacedJob extends PacedOptions {
  kind: typeof JOB_KIND;
  origin: string;
  paths: string[];
}

type FromWorker = { window: PacedWindow } | { done: true };

/** Runs the load; `onWindow` gets each window as it closes (the last one once every request settled). */
export async function pacedLoad(
  urls: readonly string[],
  options: PacedOptions,
  onWindow: (window: PacedWindow) => void,
): Promise<void> {
  const parsed = urls.map((u) => new URL(u));
  const origin = parsed[0]?.origin;
  if (origin === undefined) throw new Error('pacedLoad: no URL given');
  if (parsed.some((u) => u.origin !== origin)) throw new Error('pacedLoad: every URL must be on one origin');
  const job: PacedJob = { kind: JOB_KIND, origin, paths: parsed.map((u) => `${u.pathname}${u.search}`), ...options };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    let settled = false;
    worker.on('message', (message: FromWorker) => {
      if ('window' in message) return onWindow(message.window);
      settled = true;
      resolve();
    });
    worker.once('error', (error: unknown) => {
      settled = true;
      reject(error instanceof Error ? error : new Error(String(error)));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`paced load worker exited with ${code} before it finished`));
    });
  });
}

function runJob(job: PacedJob): Promise<void> {
  // One request at a time per socket (no pipelining): a slow answer delays only its own socket.
  const pool = new Pool(job.origin, {
    connections: job.connections,
    pipelining: 1,
    headersTimeout: job.timeoutMs,
    bodyTimeout: job.timeoutMs,
  });
  const windowMs = job.windowSec * 1000;
  const durationMs = job.durationSec * 1000;
  const started = performance.now();
  const startedWall = Date.now();

  type Open = Omit<PacedWindow, 'latencies'> & { latencies: number[] };
  const open = (index: number): Open => ({
    index,
    startMs: startedWall + index * windowMs,
    endMs: startedWall + (index + 1) * windowMs,
    issued: 0,
    skipped: 0,
    ok: 0,
    non2xx: {},
    errors: 0,
    errorCodes: {},
    timeouts: 0,
    latencies: [],
  });
  let current = open(0);
  const close = (endMs: number): void => {
    const latencies = Float64Array.from(current.latencies).sort();
    const window: PacedWindow = { ...current, endMs, latencies };
    parentPort?.postMessage({ window } satisfies FromWorker, [latencies.buffer]);
  };

  let scheduled = 0;
  let outstanding = 0;
  let next = 0;
  const send = (): void => {
    const path = job.paths[next++ % job.paths.length]!;
    outstanding++;
    current.issued++;
    const issued = performance.now();
    let done = false;
    const settle = (outcome: 'timeout' | Error | number): void => {
      if (done) return;
      done = true;
      outstanding--;
      if (outcome === 'timeout') current.timeouts++;
      else if (outcome instanceof Error) {
        current.errors++;
        const code = (outcome as NodeJS.ErrnoException).code ?? outcome.message;
        current.errorCodes[code] = (current.errorCodes[code] ?? 0) + 1;
      } else if (outcome >= 200 && outcome < 300) {
        current.ok++;
        current.latencies.push(performance.now() - issued);
      } else current.non2xx[outcome] = (current.non2xx[outcome] ?? 0) + 1;
    };
    pool
      .request({ method: 'GET', path })
      .then(async (res) => {
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
        settle(res.statusCode);
      })
      .catch((error: unknown) => {
        const code = (error as { code?: string }).code;
        settle(
          code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
            ? 'timeout'
            : error instanceof Error
              ? error
              : new Error(String(error)),
        );
      });
  };

  return new Promise((resolve) => {
    const tick = (): void => {
      const elapsed = performance.now() - started;
      // Windows are cut on the schedule's clock, so the last one ends with the run.
      while (elapsed >= (current.index + 1) * windowMs && (current.index + 1) * windowMs < durationMs) {
        close(startedWall + (current.index + 1) * windowMs);
        current = open(current.index + 1);
      }
      if (elapsed < durationMs) {
        const due = Math.floor((elapsed / 1000) * job.ratePerSec);
        for (; scheduled < due; scheduled++) {
          if (outstanding >= job.maxOutstanding) current.skipped++;
          else send();
        }
        setTimeout(tick, 1);
        return;
      }
      // Nothing more is issued; the last window also holds the answers still on their way.
      // (Every exchange settles by its timeout; the deadline only guards against one that never does.)
      if (outstanding > 0 && elapsed < durationMs + job.timeoutMs + DRAIN_MARGIN_MS) {
        setTimeout(tick, 5);
        return;
      }
      current.timeouts += outstanding;
      close(Date.now());
      void pool.destroy().then(resolve, resolve);
    };
    tick();
  });
}

const job = workerData as Partial<PacedJob> | null;
if (!isMainThread && job?.kind === JOB_KIND) {
  await runJob(job as PacedJob);
  parentPort?.postMessage({ done: true } satisfies FromWorker);
}
