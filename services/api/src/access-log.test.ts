import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { withAccessLog, type ResponseInfo } from './access-log.ts';

function capture(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { base: null, timestamp: false },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

const info = (over: Partial<ResponseInfo>): ResponseInfo => ({
  method: 'GET',
  route: '/api/tx/{id}',
  status: 200,
  seconds: 0.002,
  url: '/api/tx/ab12',
  height: 1200,
  requestId: 'r-1',
  ...over,
});

describe('withAccessLog', () => {
  it('writes one structured line per kept request: method, route, url, status, ms, height, requestId', () => {
    const { logger, lines } = capture();
    const log = withAccessLog({ ACCESS_LOG_SAMPLE: 1, ACCESS_LOG_SLOW_MS: 1000 }, logger)!;
    log(info({ seconds: 0.01234 }));
    expect(lines).toEqual([
      {
        level: 30,
        component: 'access',
        method: 'GET',
        route: '/api/tx/{id}',
        url: '/api/tx/ab12',
        status: 200,
        ms: 12.3,
        height: 1200,
        requestId: 'r-1',
        msg: 'request',
      },
    ]);
  });

  it('keeps the sampled share, every 5xx and every slow request, and tells the next hook of all', () => {
    const { logger, lines } = capture();
    const seen: number[] = [];
    const draws = [0.004, 0.5, 0.009, 0.99];
    const log = withAccessLog(
      { ACCESS_LOG_SAMPLE: 0.01, ACCESS_LOG_SLOW_MS: 500 },
      logger,
      (i) => void seen.push(i.status),
      () => draws.shift() ?? 1,
    )!;
    log(info({ requestId: 'sampled' })); // 0.004 < 0.01
    log(info({ requestId: 'not sampled' })); // 0.5
    log(info({ requestId: 'sampled too' })); // 0.009
    log(info({ requestId: 'not sampled either' })); // 0.99
    log(info({ requestId: 'server error', status: 503 }));
    log(info({ requestId: 'slow', seconds: 0.6 }));
    expect(lines.map((l) => l['requestId'])).toEqual(['sampled', 'sampled too', 'server error', 'slow']);
    expect(seen).toHaveLength(6);
  });

  it('is no hook at all when it would keep nothing and there is no next hook', () => {
    const { logger } = capture();
    expect(withAccessLog({ ACCESS_LOG_SAMPLE: 0, ACCESS_LOG_SLOW_MS: 0 }, logger)).toBeUndefined();
  });
});
