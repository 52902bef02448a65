import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, parseConfig } from '@mtc/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { ExplorerConfigSchema } from './config.ts';
import { startExplorer, type RunningExplorer } from './explorer.ts';

const CONNECTIONS = 16;

/**
 * How many of CONNECTIONS requests to `url`, each on its own connection, another process gets
 * answered while this thread (the main thread, which serves the API) is blocked. The kernel spreads
 * connections over the sockets sharing the port by their source ports, so with a second API
 * thread some land on it; with none, every one waits for this thread and times out.
 */
async function answeredWhileBlocked(url: string): Promise<number> {
  const client = spawn(
    process.execPath,
    [
      '-e',
      `const http = require('node:http');
      let ok = 0, done = 0;
      const finish = () => { if (++done === ${CONNECTIONS}) console.log(ok); };
      for (let i = 0; i < ${CONNECTIONS}; i++) {
        const req = http.get(${JSON.stringify(url)}, { agent: false, timeout: 1500 }, (res) => {
          res.resume();
          res.on('end', () => { if (res.statusCode === 200) ok++; finish(); });
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', finish);
      }`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const output: Buffer[] = [];
  client.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  const exited = new Promise<number | null>((resolve) => client.once('exit', resolve));
  // Blocks this thread's event loop for longer than the client waits for its answers.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_000);
  expect(await exited).toBe(0);
  return Number(Buffer.concat(output).toString().trim());
}

describe('the all-in-one API threads', () => {
  let running: RunningExplorer | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await running?.shutdown.run('test over');
    running = undefined;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>): Promise<RunningExplorer> => {
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-explorer-threads-'));
    const config = parseConfig(ExplorerConfigSchema, {
      DATA_DIR: dataDir,
      PORT: '0',
      DEVNET_HISTORY_BLOCKS: '5',
      DEVNET_BLOCK_INTERVAL_MS: '0',
      LOG_LEVEL: 'silent',
      ...env,
    });
    running = await startExplorer(config, createLogger({ level: 'silent' }));
    return running;
  };

  it.each([
    ['API_THREADS=2', { API_THREADS: '2' }, (answered: number) => expect(answered).toBeGreaterThan(0)],
    ['API_THREADS=1', { API_THREADS: '1' }, (answered: number) => expect(answered).toBe(0)],
    // Buckets in each thread's memory would count a client apart per thread: one thread answers.
    [
      'API_THREADS=2 with in-memory rate limiting',
      { API_THREADS: '2', RATE_LIMIT_ENABLED: 'true' },
      (answered: number) => expect(answered).toBe(0),
    ],
  ])('%s: answers while the main thread is busy only with a second thread', async (_, env, check) => {
    const { apiUrl, opsUrl } = await start(env);
    check(await answeredWhileBlocked(`${apiUrl}/api/chain`));
    expect(opsUrl).toBeUndefined(); // no ops port unless OPS_PORT is set
  });

  it('fails at start when the port is taken, even by a socket that would share it (another explorer)', async () => {
    const taken = createServer().listen({ port: 0, host: '127.0.0.1', reusePort: true });
    await new Promise((resolve) => taken.once('listening', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      await expect(start({ API_THREADS: '2', PORT: String(port) })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      taken.close();
    }
  });

  it('serves /metrics on OPS_PORT with every part: the follower, the projector and both API threads', async () => {
    const { apiUrl, opsUrl } = await start({ API_THREADS: '2', OPS_PORT: '0' });
    expect(opsUrl).toBeDefined();
    // Each on its own connection, so the kernel spreads them over both API threads.
    const requests = 40;
    const heights = await Promise.all(
      Array.from({ length: requests }, async () => {
        const res = await fetch(`${apiUrl}/api/blocks?limit=1`, { headers: { Connection: 'close' } });
        await res.arrayBuffer();
        return Number(res.headers.get('X-Indexed-Height'));
      }),
    );
    const text = await (await fetch(`${opsUrl}/metrics`)).text();
    const value = (series: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      if (line === undefined) throw new Error(`no ${series} in /metrics`);
      return Number(line.slice(series.length + 1));
    };
    const labels = '{method="GET",route="/api/blocks",status="200",service="explorer"}';
    expect(value(`mtc_api_request_duration_seconds_count${labels}`)).toBe(requests);
    // The devnet has its history only, so the index settles at its head.
    expect(value('mtc_projector_height{service="explorer"}')).toBe(Math.max(...heights));
    expect(value('mtc_follower_published_height{service="explorer"}')).toBeGreaterThanOrEqual(Math.max(...heights));
    expect(value('mtc_node_height{service="explorer"}')).toBe(
      value('mtc_follower_published_height{service="explorer"}'),
    );
    expect(value('process_resident_memory_bytes{service="explorer"}')).toBeGreaterThan(0);
    expect((await fetch(`${opsUrl}/readyz`)).status).toBe(200);
  });
});
