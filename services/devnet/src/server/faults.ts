import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { createRng } from '../rng.ts';
import type { Route } from './routes.ts';

/**
 * Transient failures a client of the node meets, for retry drills. The first three are the node's
 * own answers when its storage or the bridge fails for a moment (ND `src/router/block.js`: every
 * RocksDB error is swallowed into one of these; node-api.md §1, §2.3); the rest come from what stands
 * between a client and the node (the TLS front proxy, the network):
 *
 * | kind             | routes             | answer                                                                  |
 * | ---------------- | ------------------ | ----------------------------------------------------------------------- |
 * | `height-zero`    | `/block`           | 200 `0`: get_block_number answers "0" when the counter read fails        |
 * | `tx-not-found`   | `/transaction/{id}`| 404 `Transaction <id> not found`: the bridge unreachable on a cache miss |
 * | `block-missing`  | `/block/{n}`       | 404 `Block <n> not found` for a block ≤ head, for `faultBlockMissingMs` |
 * | `proxy-500`      | all                | 500 from the proxy, its short HTML page, no node header                 |
 * | `proxy-502`      | all                | 502 Bad Gateway from the proxy                                          |
 * | `timeout`        | all                | nothing for `faultTimeoutMs` (past a client's timeout), then the answer  |
 * | `slow-body`      | all                | headers at once, then the body dribbled out over `faultSlowBodyMs`      |
 * | `truncated-json` | `/block/{n}`, `/transaction/{id}` | 200 with the JSON body cut short (framing consistent)    |
 * | `reset`          | all                | the connection destroyed without an answer                              |
 *
 * The proxy's page is nginx's (an assumption: the front proxy's software is not public).
 *
 * Besides the drawn faults, one block can be hidden on purpose (`hide`): 404 for a set time from the
 * first request the chain could have served, or until revealed. That is the long outage a
 * follower's stall watchdog exists for, placed where a test wants it rather than where a draw falls.
 * Every altered answer is counted by kind (`counts`), so a run can say what it survived.
 */
export const FAULT_KINDS = [
  'height-zero',
  'tx-not-found',
  'block-missing',
  'proxy-500',
  'proxy-502',
  'timeout',
  'slow-body',
  'truncated-json',
  'reset',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The default: only what the real node itself answers when something behind it fails for a moment. */
export const NODE_FAULT_KINDS: readonly FaultKind[] = ['height-zero', 'tx-not-found', 'block-missing'];

type NodeRoute = Exclude<Route['name'], 'debug-state' | 'debug-faults'>;

/** The routes of the faults that cannot happen on every node route. */
const ROUTES_OF: Readonly<Partial<Record<FaultKind, readonly NodeRoute[]>>> = {
  'height-zero': ['height'],
  'tx-not-found': ['transaction'],
  'block-missing': ['block'],
  'truncated-json': ['block', 'transaction'],
};

/** The fault injector's options, which the server takes with its own (DevnetServerOptions). */
export const FaultOptionsSchema = z.object({
  /** Share of node-route requests that meet a transient failure of one of `faultKinds`. */
  faultRate: z.number().min(0).max(1).default(0),
  /** Which failures; default: the real node's own transient answers. */
  faultKinds: z
    .array(z.enum(FAULT_KINDS))
    .min(1)
    .default([...NODE_FAULT_KINDS]),
  /** Seeds the fault stream: the same requests in the same order meet the same faults. */
  faultSeed: z.number().int().default(0x0fa017),
  /** `timeout`: how long a request goes unanswered (longer than the client waits, 10 s by default). */
  faultTimeoutMs: z.number().int().nonnegative().default(15_000),
  /** `slow-body`: how long a body takes to arrive after its headers. */
  faultSlowBodyMs: z.number().int().nonnegative().default(5_000),
  /** `block-missing`: how long a block it hit stays missing. */
  faultBlockMissingMs: z.number().int().nonnegative().default(2_000),
  /**
   * One block answered 404 for `faultHideBlockMs` from the first request for it once the chain has
   * it, whatever the rate: a long outage of a block under the head (a follower's stall drill).
   */
  faultHideBlock: z.number().int().min(1).optional(),
  faultHideBlockMs: z.number().int().nonnegative().default(30_000),
});

export type FaultOptions = z.output<typeof FaultOptionsSchema>;

export interface Faults {
  /**
   * The fault a request on `route` meets (a configured kind that can happen there), or null. Every
   * node-route request draws, so the faults depend only on the seed and the order of requests.
   */
  draw(route: NodeRoute): FaultKind | null;
  /**
   * Hides block `height` for `forMs` (default `faultBlockMissingMs`; `Infinity`: until `reveal`),
   * from now or with `fromFirstAsk` from the first `isHidden` question about it: a block not cut yet,
   * or one the client reaches later, is then missing for the whole window.
   */
  hide(height: number, options?: { forMs?: number; fromFirstAsk?: boolean }): void;
  reveal(height: number): void;
  /** Whether block `height`, which the chain serves, is to be answered as missing now. */
  isHidden(height: number): boolean;
  injected(kind: FaultKind): void;
  /** Altered answers so far, by kind (every kind present). */
  counts(): Record<FaultKind, number>;
}

export function createFaults(
  options: Pick<FaultOptions, 'faultRate' | 'faultKinds' | 'faultSeed' | 'faultBlockMissingMs'>,
  now: () => number = Date.now,
): Faults {
  const rng = createRng(options.faultSeed);
  /** Hidden blocks: until when, or for how long from the first question about them. */
  const hidden = new Map<number, { until: number } | { forMs: number }>();
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  return {
    draw(route) {
      if (options.faultRate === 0 || rng.next() >= options.faultRate) return null;
      const possible = options.faultKinds.filter((kind) => ROUTES_OF[kind]?.includes(route) ?? true);
      return possible.length === 0 ? null : rng.pick(possible);
    },
    hide(height, { forMs = options.faultBlockMissingMs, fromFirstAsk = false } = {}) {
      hidden.set(height, fromFirstAsk ? { forMs } : { until: now() + forMs });
    },
    reveal(height) {
      hidden.delete(height);
    },
    isHidden(height) {
      const window = hidden.get(height);
      if (window === undefined) return false;
      const until = 'until' in window ? window.until : now() + window.forMs;
      if (now() < until) {
        hidden.set(height, { until });
        return true;
      }
      hidden.delete(height);
      return false;
    },
    injected(kind) {
      counts[kind] += 1;
    },
    counts: () => ({ ...counts }),
  };
}

/** nginx's error page (ngx_http_special_response.c) and headers, as a front proxy sends it. */
export function writeProxyError(req: IncomingMessage, res: ServerResponse, status: 500 | 502): void {
  const title = status === 500 ? '500 Internal Server Error' : '502 Bad Gateway';
  const body =
    `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n` +
    '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
  res.statusCode = status;
  res.setHeader('Server', 'nginx');
  res.setHeader('Content-Type', 'text/html');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A JSON body cut short: at most half of it, and never the whole. */
export function truncate(body: string): string {
  return body.slice(0, Math.max(1, Math.floor(body.length / 2)));
}
