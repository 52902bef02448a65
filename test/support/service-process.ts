import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A service of this repository as a real child process, so that a test can SIGKILL it. */
export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Each stream apart (output() interleaves them). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `env` adds to this process's environment; a key set to `undefined` is removed from it (e.g. the
 * server addresses, to run a service on the embedded adapters while the servers are configured).
 */
export function spawnService(
  main: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): ServiceProcess {
  const merged: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'warn', ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--disable-warning=TimeoutNegativeWarning', main, ...args],
    { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => ((out += d.toString()), (stdout += d.toString())));
  child.stderr.on('data', (d: Buffer) => ((out += d.toString()), (stderr += d.toString())));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Waits for a line the service prints, e.g. its URL; fails with its output if it exits first. */
export async function waitForOutput(
  service: ServiceProcess,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(service.output());
    if (m) return m;
    if (service.child.exitCode !== null)
      throw new Error(`service exited with ${service.child.exitCode}:\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
