import { RawBlock, RawHeight, RawTransaction } from '@mtc/domain';
import type { ChainSource } from '@mtc/ports';
import { type Dispatcher, Pool } from 'undici';
import type { z } from 'zod';

/**
 * ChainSource over the node's HTTP read routes: `GET /block`, `GET /block/{id}`,
 * `GET /transaction/{id}`, and no other. The node labels JSON as text/html, so bodies are read as
 * text and parsed whatever the Content-Type. The transport is undici's `request` on a keep-alive
 * `Pool`, not fetch: measured on loopback (2 KB bodies, 8–16 in flight) it costs ~35 ms of CPU per
 * 1,000 requests against fetch's ~126, and fetch was the follower's main per-request cost. The pool
 * unrefs idle sockets, so it needs no close: an idle pool does not keep the process alive. Unlike
 * fetch, redirects are not followed (a 3xx fails as `http_3xx`) and no compression is asked for.
 *
 * Retrying is the caller's policy; this client only says whether a retry can help
 * (`NodeError.retryable`) and why it failed (`NodeError.reason`, a short label for logs and
 * metrics). What the real node does when it is unwell (node-api.md §1–§2), and how it reads here:
 * - 412 for its generic failures (busy, internal error, the bridge's errors): retryable;
 * - `GET /transaction/{id}` → 404 "Transaction <id> not found" when the bridge is unreachable, and
 *   412 "… not found" when the bridge does not know the id: both read as null (not served now); the
 *   caller decides whether a listed transaction that is not served is transient;
 * - 400 "MTC Main node response error" when the bridge answered something that is not JSON:
 *   retryable;
 * - a body cut short (a proxy, a node restarting mid-answer) or any other body that is not JSON:
 *   retryable, reason `truncated`; a complete JSON body of an unexpected shape is not (the node
 *   speaks another contract);
 * - a connection refused, reset or closed before the body is whole: retryable, reason `network`;
 *   no answer, or no whole body, within `timeoutMs`: retryable, reason `timeout`;
 * - `GET /block` → 200 `0` when its storage read failed: returned as height 0, which the caller
 *   must not take for a head that went backwards.
 */
export interface HttpChainSourceOptions {
  baseUrl: string;
  /**
   * Deadline of one exchange, from sending the request to the body's last byte: a node that does
   * not answer, or answers too slowly, fails as `timeout` after this long. Default 10 s.
   */
  timeoutMs?: number;
  /** Where requests go; default a keep-alive pool to the base URL's origin. Tests pass a fake. */
  dispatcher?: Dispatcher;
}

export class NodeError extends Error {
  override name = 'NodeError';
  readonly retryable: boolean;
  /** Why: `timeout`, `network`, `http_<status>`, `truncated` (not JSON), `shape`, `height`. */
  readonly reason: string;
  /** The HTTP status, when the node answered. */
  readonly status: number | undefined;
  /** The start of the answer's body, for the log. */
  readonly body: string | undefined;

  constructor(
    message: string,
    details: {
      retryable: boolean;
      reason: string;
      status?: number | undefined;
      body?: string | undefined;
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryable = details.retryable;
    this.reason = details.reason;
    this.status = details.status;
    this.body = details.body;
  }
}

const BODY_EXCERPT = 200;
const NOT_FOUND = /not\s*found/i;

/** The node's answer when the bridge sent something that is not JSON (ND `lib.express.js`). */
const BRIDGE_GARBLED = /MTC Main node response error/i;

/** Statuses (and bodies) where asking again later can get a different answer. */
function retryableStatus(status: number, text: string): boolean {
  return (
    status >= 500 || status === 412 || status === 429 || status === 408 || (status === 400 && BRIDGE_GARBLED.test(text))
  );
}

export function createHttpChainSource(options: HttpChainSourceOptions): ChainSource {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const origin = base.origin;
  const prefix = base.pathname;
  const dispatcher = options.dispatcher ?? new Pool(origin);

  /** The body as text with its status, or a NodeError for a failed exchange. */
  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const target = `${prefix}${path}`;
    // One deadline for the whole exchange, body included: undici's own timeouts are idle limits
    // (5 min by default), so a silent node, or a body trickling in a byte at a time, would hold a
    // request for ever. Aborting cuts the socket whichever phase it is in.
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    /** Set once the headers are in: the failure happened reading the body. */
    let status: number | undefined;
    try {
      const res = await dispatcher.request({
        origin,
        path: target,
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: abort.signal,
      });
      status = res.statusCode;
      return { status, text: await res.body.text() };
    } catch (error) {
      const phase = status === undefined ? 'waiting for the answer' : 'reading the body';
      const what = timedOut ? `timed out after ${timeoutMs} ms ${phase}` : `failed ${phase}`;
      throw new NodeError(`GET ${target} ${what}`, {
        retryable: true,
        reason: timedOut ? 'timeout' : 'network',
        status,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  };

  const fail = (path: string, status: number, text: string): NodeError =>
    new NodeError(`GET /${path} answered ${status}`, {
      retryable: retryableStatus(status, text),
      reason: `http_${status}`,
      status,
      body: text.slice(0, BODY_EXCERPT),
    });

  const decode = <S extends z.ZodType>(path: string, schema: S, text: string, status: number): z.output<S> => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      // A body cut short by a reset or a proxy: the next answer is likely whole.
      throw new NodeError(`GET /${path} answered a body that is not JSON`, {
        retryable: true,
        reason: 'truncated',
        status,
        body: text.slice(0, BODY_EXCERPT),
        cause: error,
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new NodeError(
        `GET /${path} answered an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        {
          retryable: false,
          reason: 'shape',
          status,
          body: text.slice(0, BODY_EXCERPT),
          cause: parsed.error,
        },
      );
    return parsed.data;
  };

  return {
    async height() {
      const { status, text } = await get('block');
      if (status !== 200) throw fail('block', status, text);
      // Bare digits (which is also a JSON number); a JSON string of digits is taken too.
      const parsed = RawHeight.safeParse(text);
      if (parsed.success) return parsed.data;
      const quoted = RawHeight.safeParse(jsonString(text));
      if (quoted.success) return quoted.data;
      throw new NodeError('GET /block answered something other than a height', {
        retryable: false,
        reason: 'height',
        status,
        body: text.slice(0, BODY_EXCERPT),
        cause: parsed.error,
      });
    },

    async block(id: number | string) {
      const path = `block/${encodeURIComponent(blockId(id))}`;
      const { status, text } = await get(path);
      if (status === 404) return null;
      if (status !== 200) throw fail(path, status, text);
      return decode(path, RawBlock, text, status);
    },

    async transaction(txId: string) {
      const path = `transaction/${encodeURIComponent(txId)}`;
      const { status, text } = await get(path);
      if (status === 404 || (status === 412 && NOT_FOUND.test(text))) return null;
      if (status !== 200) throw fail(path, status, text);
      return decode(path, RawTransaction, text, status);
    },
  };
}

function blockId(id: number | string): string {
  if (typeof id === 'number' && !(Number.isSafeInteger(id) && id >= 0)) throw new RangeError(`bad block height ${id}`);
  return String(id);
}

function jsonString(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
