import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createShutdown } from './shutdown.ts';

const SHUTDOWN = fileURLToPath(new URL('./shutdown.ts', import.meta.url));

/** A process with one shutdown hook that takes `hookMs`, stopped by SIGTERM once it says it is ready. */
async function stopProcess(
  hookMs: number,
  timeoutMs: number,
): Promise<{ code: number | null; ms: number; out: string }> {
  const script = `
    import { pino } from 'pino';
    import { createShutdown } from ${JSON.stringify(SHUTDOWN)};
    const shutdown = createShutdown(pino(), { timeoutMs: ${timeoutMs} });
    shutdown.add('export in flight', () => new Promise((resolve) => setTimeout(resolve, ${hookMs})));
    shutdown.installSignalHandlers();
    setInterval(() => {}, 1000);
    console.log('ready');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready') && resolve()));
  const started = performance.now();
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, ms: performance.now() - started, out };
}

describe('createShutdown', () => {
  it('runs hooks newest first, once, with the signal aborted before the first', async () => {
    const order: string[] = [];
    const shutdown = createShutdown(pino({ level: 'silent' }));
    shutdown.add('first', async () => void order.push(`first ${shutdown.signal.aborted}`));
    shutdown.add('second', async () => void order.push(`second ${shutdown.signal.aborted}`));
    await Promise.all([shutdown.run('test'), shutdown.run('again')]);
    expect(order).toEqual(['second true', 'first true']);
  });

  it('exits 0 on SIGTERM once the hooks are done within SHUTDOWN_TIMEOUT_MS', async () => {
    const { code, ms } = await stopProcess(200, 5000);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(4000);
  });

  it('exits 1 at the deadline, naming the hook it waited on, when a hook holds the stop', async () => {
    const { code, ms, out } = await stopProcess(60_000, 1000);
    expect(code).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(10_000);
    expect(out).toContain('"waitingOn":"export in flight"');
    expect(out).toContain('shutdown did not finish in time: exiting');
  });
});
