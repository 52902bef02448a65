import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { percentile } from './percentile.ts';

/**
 * Load generation for the benchmarks: autocannon, run in a worker thread of its own so that sending
 * requests and reading answers never queues behind anything else this process does. The server under
 * test is always another process, so the measured figure is what that server serves to a client
 * that is not the bottleneck on its own event loop.
 *
 * Several URLs (all on one origin) are requested in turn across all connections, so a run over many
 * real ids does not hammer one hot id.
 */
export interface LoadOptions {
  /** Connections kept open, each with one request in flight. Default 64. */
  connections?: number;
  durationSec: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  reqPerSec: number;
  /** Latency percentiles of the 2xx answers, in ms; NaN when none came back within the run. */
  p50: number;
  p99: number;
  /** Failed exchanges: connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** Bytes received per 2xx answer, headers included. */
  bytesPerReq: number;
  /** Answers received, whatever their status. */
  requests: number;
}

/** What the worker is given; the marker keeps this module inert when some other worker imports it. */
interface LoadJob {
  kind: typeof JOB_KIND;
  origin: string;
  paths: string[];
  connections: number;
  durationSec: number;
  headers: Record<string, string>;
}

const JOB_KIND = 'bench-load';

interface Aggregate {
  aggregateResult(results: unknown[], options: autocannon.Options): autocannon.Result;
}

export async function load(target: string | readonly string[], options: LoadOptions): Promise<LoadResult> {
  const urls = (typeof target === 'string' ? [target] : [...target]).map((u) => new URL(u));
  const origin = urls[0]?.origin;
  if (origin === undefined) throw new Error('load: no URL given');
  if (urls.some((u) => u.origin !== origin)) throw new Error('load: every URL must be on one origin');
  const job: LoadJob = {
    kind: JOB_KIND,
    origin,
    paths: urls.map((u) => `${u.pathname}${u.search}`),
    connections: options.connections ?? 64,
    durationSec: options.durationSec,
    headers: options.headers ?? {},
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    let settled = false;
    worker.once('message', (result: LoadResult) => {
      settled = true;
      resolve(result);
    });
    worker.once('error', (error: unknown) => {
      settled = true;
      reject(error instanceof Error ? error : new Error(String(error)));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`load worker exited with ${code} before reporting`));
    });
  });
}

async function runJob(job: LoadJob): Promise<LoadResult> {
  let next = 0;
  const options: autocannon.Options = {
    url: job.origin,
    connections: job.connections,
    duration: job.durationSec,
    headers: job.headers,
    // One request whose path is chosen when it is sent: the ids rotate over all connections
    // together (a static `requests` list would start every connection on the same id).
    requests: [{ setupRequest: (request) => ({ ...request, path: job.paths[next++ % job.paths.length] }) }],
  };
  // autocannon's own percentiles come from a histogram of whole milliseconds, too coarse for a
  // 1–3 ms p50: the exact response times of the 2xx answers are kept here instead.
  const latencies: number[] = [];
  const raw = await new Promise<unknown>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) =>
      error
        ? reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }))
        : resolve(result),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  // Off the main thread autocannon hands back its raw histograms, expecting the thread that started
  // it to aggregate them (its documented `aggregateResult`, which @types/autocannon does not declare).
  const result = (autocannon as unknown as Aggregate).aggregateResult([raw], options);
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000 || result.duration;
  const ok = result['2xx'];
  const sorted = Float64Array.from(latencies).sort();
  return {
    reqPerSec: result.requests.total / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: result.errors,
    non2xx: result.non2xx,
    bytesPerReq: ok > 0 ? result.throughput.total / ok : 0,
    requests: result.requests.total,
  };
}

const job = workerData as Partial<LoadJob> | null;
if (!isMainThread && job?.kind === JOB_KIND) parentPort?.postMessage(await runJob(job as LoadJob));
