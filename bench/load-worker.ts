import { parentPort, workerData } from 'node:worker_threads';

/**
 * The load generator of bench/api.ts, in its own thread so that sending requests and reading
 * answers does not queue on the event loop of the server it measures. Requests go out in the
 * given order with `concurrency` in flight over keep-alive connections (undici's fetch pools
 * them per origin).
 */
export interface LoadJob {
  baseUrl: string;
  paths: readonly string[];
  concurrency: number;
}

export interface LoadResult {
  /** Per request, in the order of `paths`: milliseconds until the whole body arrived. */
  ms: Float64Array<ArrayBuffer>;
  /** HTTP status, 0 when the exchange failed. */
  status: Uint16Array<ArrayBuffer>;
  wallMs: number;
}

const job = workerData as LoadJob;

async function run(paths: readonly string[], ms: Float64Array, status: Uint16Array): Promise<void> {
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < paths.length) {
      const i = next++;
      const started = performance.now();
      let code = 0;
      try {
        const res = await fetch(`${job.baseUrl}${paths[i]}`);
        await res.arrayBuffer();
        code = res.status;
      } catch {
        // Counted as status 0 and reported: the bench exits non-zero when any request failed.
      }
      ms[i] = performance.now() - started;
      status[i] = code;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, client));
}

const result: LoadResult = {
  ms: new Float64Array(job.paths.length),
  status: new Uint16Array(job.paths.length),
  wallMs: 0,
};
const started = performance.now();
await run(job.paths, result.ms, result.status);
result.wallMs = performance.now() - started;
parentPort?.postMessage(result, [result.ms.buffer, result.status.buffer]);
