import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';

/**
 * What a saturated Node server's p99 looks like under wrk whatever it serves: a bare `node:http`
 * server in its own process that spends a fixed amount of CPU on every request (a busy loop of
 * `--cost-us` microseconds, the order of the API's misses) and answers 1,800 bytes, loaded by
 * `wrk -t2 -dNs` at 16, 32 and 64 connections. Every request costs the same, so the spread of its
 * latencies is the server's and the load tool's under overload, not the work's: the floor under
 * any p99 that a closed-loop load of 64 connections measures on a server that it saturates.
 *
 *   ./node_modules/.bin/node bench/saturation.ts [--cost-us=400] [--seconds=8]
 */
const arg = (name: string, fallback: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const costUs = arg('cost-us', 400);
const seconds = arg('seconds', 8);

const server = spawn(
  process.execPath,
  [
    '-e',
    `const body = Buffer.alloc(1800, 'x');
    require('node:http').createServer((req, res) => {
      const until = performance.now() + ${costUs / 1000};
      while (performance.now() < until);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const [chunk] = (await once(server.stdout, 'data')) as [Buffer];
const url = `http://127.0.0.1:${chunk.toString().trim()}/`;
try {
  console.log(`bare node:http, ${costUs} µs of CPU per request, wrk -t2 -d${seconds}s --latency`);
  for (const connections of [16, 32, 64]) {
    const { stdout } = await promisify(execFile)('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', url]);
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1];
    const p99 = /\s99%\s+(\S+)/.exec(stdout)?.[1];
    const max = /Latency\s+\S+\s+\S+\s+(\S+)/.exec(stdout)?.[1];
    console.log(`  ${String(connections).padStart(2)} connections: ${rate} req/s, p99 ${p99}, max ${max}`);
  }
} finally {
  server.kill();
}
