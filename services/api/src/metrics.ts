import { Gauge, Histogram, type Registry } from 'prom-client';
import type { OnResponse } from './access-log.ts';

/** The API's metrics in `registry`: request latency by route and status, and live-stream connections. */
export function apiMetrics(registry: Registry): {
  onResponse: OnResponse;
  /** Reads the open live-stream connections at each scrape (of every API counted in `registry`). */
  countStreams(connections: () => number): void;
} {
  const latency = new Histogram({
    name: 'mtc_api_request_duration_seconds',
    help: 'API request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const sources: (() => number)[] = [];
  new Gauge({
    name: 'mtc_api_stream_connections',
    help: 'Open live-stream (/api/stream) connections',
    registers: [registry],
    collect() {
      this.set(sources.reduce((sum, count) => sum + count(), 0));
    },
  });
  return {
    onResponse: ({ method, route, status, seconds }) =>
      latency.observe({ method, route, status: String(status) }, seconds),
    countStreams: (connections) => void sources.push(connections),
  };
}
