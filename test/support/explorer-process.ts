import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../services/explorer/src/main.ts', import.meta.url));

/** The all-in-one explorer as a real child process, so that a test can SIGKILL it. */
export interface ExplorerProcess {
  apiUrl: string;
  child: ChildProcess;
  /** Output so far, for failure messages. */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function spawnExplorer(env: Record<string, string>, timeoutMs = 60_000): Promise<ExplorerProcess> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`explorer did not start:\n${out}`)), timeoutMs);
    const onData = (): void => {
      const m = /Explorer API: (http:\/\/[^\s]+)\/api\/chain/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`explorer exited with ${code}:\n${out}`));
    });
  });
  return {
    apiUrl,
    child,
    output: () => out,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
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
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T };
}
