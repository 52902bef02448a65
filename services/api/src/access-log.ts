import type { Logger } from 'pino';
import type { ApiConfig } from './config.ts';

/** A finished request, as the metrics and the access log see it. */
export interface ResponseInfo {
  method: string;
  /** The route pattern (`/api/tx/{id}`), or `unmatched`. */
  route: string;
  status: number;
  seconds: number;
  /** The URL as sent (path and query). */
  url?: string;
  /** The X-Indexed-Height the answer carried, when it carried one. */
  height?: number;
  requestId?: string;
}

export type OnResponse = (info: ResponseInfo) => void;

const MAX_URL_CHARS = 512;

/**
 * The access log: one structured line (`msg: "request"`) per request it keeps — a random
 * ACCESS_LOG_SAMPLE share of them, and every 5xx and every request slower than ACCESS_LOG_SLOW_MS —
 * then the caller's own hook (the latency histogram). `random` is for tests.
 */
export function withAccessLog(
  config: Pick<ApiConfig, 'ACCESS_LOG_SAMPLE' | 'ACCESS_LOG_SLOW_MS'>,
  logger: Logger,
  next?: OnResponse,
  random: () => number = Math.random,
): OnResponse | undefined {
  const { ACCESS_LOG_SAMPLE: sample, ACCESS_LOG_SLOW_MS: slowMs } = config;
  if (sample === 0 && slowMs === 0 && next === undefined) return undefined;
  const slowSeconds = slowMs === 0 ? Infinity : slowMs / 1000;
  const access = logger.child({ component: 'access' });
  return (info) => {
    next?.(info);
    const kept = info.status >= 500 || info.seconds >= slowSeconds || (sample > 0 && random() < sample);
    if (!kept) return;
    access.info(
      {
        method: info.method,
        route: info.route,
        url: info.url?.slice(0, MAX_URL_CHARS),
        status: info.status,
        ms: Math.round(info.seconds * 1e4) / 10,
        height: info.height,
        requestId: info.requestId,
      },
      'request',
    );
  };
}
