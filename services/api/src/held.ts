import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EXPOSED_HEADERS } from './cors.ts';
import type { OnResponse } from './access-log.ts';
import type { Head } from './head.ts';
import { CACHE, etagOf, knownEncoding, type ResponseCache } from './http-cache.ts';

/**
 * Held answers sent before the framework: a plain GET whose URL has an answer in the response cache
 * at the indexed head (as requests share it) gets that answer's bytes with the headers the routed
 * path sends, without a Koa context, middleware or routing. Everything else — a miss, a conditional
 * request, an encoding not negotiated yet or not compressed yet, rate limiting, any other method —
 * goes the routed way, which fills the cache. A test holds both ways to the same bytes and headers.
 */
export interface HeldAnswers {
  /** Answers `req` if it can, and says whether it did. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** How many requests were answered this way. */
  served(): number;
}

export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const EXPOSED = EXPOSED_HEADERS.join(',');

export function createHeldAnswers(deps: {
  answers: ResponseCache;
  /** The shared head if it is fresh enough to use without a store read. */
  head: () => Head | undefined;
  maxUrlBytes: number;
  onResponse?: OnResponse;
}): HeldAnswers {
  let served = 0;
  return {
    served: () => served,
    serve(req, res) {
      const started = deps.onResponse ? process.hrtime.bigint() : 0n;
      const { url, headers } = req;
      if (req.method !== 'GET' || url === undefined || url.length > deps.maxUrlBytes) return false;
      if (headers.host === undefined || headers['if-none-match'] !== undefined) return false;
      const head = deps.head();
      if (head === undefined) return false;
      const answer = deps.answers.held(url, head.height);
      if (answer === undefined) return false;
      const encoding = knownEncoding(answer, headers['accept-encoding'] ?? '');
      if (encoding === undefined) return false;
      const body = encoding === null ? answer.body : answer.ready[encoding];
      if (body === undefined) return false;

      const given = headers['x-request-id'];
      const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      const height = answer.policy === 'immutable' ? head.height : answer.height;
      const out = [
        'X-Request-Id',
        requestId,
        'X-Content-Type-Options',
        'nosniff',
        'Vary',
        'Origin, Accept-Encoding',
        'Access-Control-Allow-Origin',
        '*',
        'Access-Control-Expose-Headers',
        EXPOSED,
        'X-Indexed-Height',
        String(height),
        'Cache-Control',
        CACHE[answer.policy],
        'ETag',
        etagOf(answer, encoding),
        'Content-Type',
        'application/json; charset=utf-8',
      ];
      if (encoding !== null) out.push('Content-Encoding', encoding);
      out.push('Content-Length', String(body.length));
      res.writeHead(200, out);
      res.end(body);
      served++;
      if (deps.onResponse) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = answer.route ?? 'unmatched';
        deps.onResponse({ method: 'GET', route, status: 200, seconds, url, height, requestId });
      }
      return true;
    },
  };
}
