/**
 * A minimal Server-Sent Events client for tests: reads a text/event-stream with fetch, parses its
 * events and comment lines, and can be closed (the client going away) at any time.
 */
export interface SseEvent {
  event: string;
  id: string;
  data: unknown;
}

export interface SseClient {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  retry: number | null;
  /** Resolves once the server ended the stream (or the client closed it). */
  ended: Promise<void>;
  /** Waits until `check` holds, failing after `timeoutMs` with what arrived. */
  until(check: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const client: SseClient = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    retry: null,
    ended: Promise.resolve(),
    async until(check, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check(client.events)) {
        if (Date.now() > deadline)
          throw new Error(`timed out; got ${client.events.map((e) => `${e.event}@${e.id}`).join(' ')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => abort.abort(),
  };
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) return client;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  client.ended = (async () => {
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += value;
        let cut: number;
        while ((cut = text.indexOf('\n\n')) !== -1) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) client.comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
            }
          }
          if (fields['retry'] !== undefined) client.retry = Number(fields['retry']);
          if (fields['data'] !== undefined)
            client.events.push({
              event: fields['event'] ?? 'message',
              id: fields['id'] ?? '',
              data: JSON.parse(fields['data']),
            });
        }
      }
    } catch {
      // aborted, or the server dropped the connection
    }
  })();
  return client;
}
