import { spawnService, waitForOutput, type ServiceProcess } from './service-process.ts';

/** The all-in-one explorer as a real child process, so that a test can SIGKILL it. */
export interface ExplorerProcess extends ServiceProcess {
  apiUrl: string;
}

export async function spawnExplorer(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<ExplorerProcess> {
  // Embedded adapters unless the caller names servers, whatever this process has configured.
  const embedded = { KAFKA_BROKERS: undefined, MONGO_URL: undefined, REDIS_URL: undefined };
  const service = spawnService('services/explorer/src/main.ts', { PORT: '0', ...embedded, ...env });
  const [, apiUrl] = await waitForOutput(service, /Explorer API: (http:\/\/\S+)\/api\/chain/, timeoutMs);
  return { ...service, apiUrl: apiUrl! };
}

/** Polls until `check` returns a value, or fails after `timeoutMs` with the last error. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

export async function getJson<T = unknown>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url).catch((error: unknown) => {
    // A kept-alive socket the server closed as idle while this process was busy computing (before
    // our idle timer could run): a GET is safe to send once more, on a new socket.
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url);
  });
  return { status: res.status, body: (await res.json()) as T };
}
