import { RawBlock, RawHeight, RawTransaction } from '@mtc/domain';
import type { ChainSource } from '@mtc/ports';
import type { z } from 'zod';

/**
 * ChainSource over the node's HTTP read routes: `GET /block`, `GET /block/{id}`,
 * `GET /transaction/{id}`, and no other. The node labels JSON as text/html, so bodies are read as
 * text and parsed whatever the Content-Type. Node's fetch (undici) keeps connections alive.
 *
 * Retrying is the caller's policy; this client only says whether a retry can help
 * (`NodeError.retryable`). The node answers 412 for its generic failures (busy, internal error),
 * and also for a transaction it does not know, which the body says ("not found").
 */
export interface HttpChainSourceOptions {
  baseUrl: string;
  /** Per request, body included. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class NodeError extends Error {
  override name = 'NodeError';
  readonly retryable: boolean;
  /** The HTTP status, when the node answered. */
  readonly status: number | undefined;
  /** The start of the answer's body, for the log. */
  readonly body: string | undefined;

  constructor(
    message: string,
    details: { retryable: boolean; status?: number | undefined; body?: string | undefined; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryable = details.retryable;
    this.status = details.status;
    this.body = details.body;
  }
}

const BODY_EXCERPT = 200;
const NOT_FOUND = /not\s*found/i;

/** Statuses where asking again later can get a different answer. */
function retryableStatus(status: number): boolean {
  return status >= 500 || status === 412 || status === 429 || status === 408;
}

export function createHttpChainSource(options: HttpChainSourceOptions): ChainSource {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const doFetch = options.fetch ?? globalThis.fetch;
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);

  /** The body as text with its status, or a NodeError for a failed exchange. */
  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const url = new URL(path, base);
    try {
      const res = await doFetch(url, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const what = timedOut ? `timed out after ${timeoutMs} ms` : 'failed';
      throw new NodeError(`GET ${url.pathname} ${what}`, { retryable: true, cause: error });
    }
  };

  const fail = (path: string, status: number, text: string): NodeError =>
    new NodeError(`GET /${path} answered ${status}`, {
      retryable: retryableStatus(status),
      status,
      body: text.slice(0, BODY_EXCERPT),
    });

  const decode = <S extends z.ZodType>(path: string, schema: S, text: string, status: number): z.output<S> => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new NodeError(`GET /${path} answered a body that is not JSON`, {
        retryable: false,
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
