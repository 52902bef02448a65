import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { embeddedExplorerEnv, freePort, launch, sleep, stopChild, type Child } from './harness.ts';
import { load } from './load.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt } from './support.ts';

/**
 * HTTP caching by chain state, and what compression costs: the all-in-one on a chain that stands
 * still (no live blocks), one hot list answer (`/api/transactions`, page 1, 25 rows) asked by 64
 * connections
 * - as identity, gzip and br with the response cache on (the shipped default: compressed once per
 *   head and encoding) and off (API_RESPONSE_CACHE_MB=0: built and compressed on every request);
 * - with If-None-Match carrying its ETag: 304s without a body.
 * Also the CPU one compression of that body costs (median of 200 calls, same settings as the API:
 * br quality 5, gzip level 6), which is what every request would pay without the cache.
 */
const PATH = '/api/transactions';
const HISTORY_BLOCKS = { quick: 1_000, full: 3_000 };
const READY_TIMEOUT_MS = 120_000;

interface Explorer {
  child: Child;
  url: string;
  remove(): Promise<void>;
}

async function startExplorer(blocks: number, env: Record<string, string>): Promise<Explorer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-cache-'));
  const port = await freePort();
  const childEnv = await embeddedExplorerEnv(blocks, dataDir, port, env);
  const child = launch('explorer', ['services/explorer/src/main.ts'], childEnv);
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (child.gone()) throw new Error(`explorer exited:\n${child.output().slice(-2_000)}`);
    if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`explorer not caught up to ${blocks}`);
    const res = await fetch(`${url}/api/chain`).catch(() => undefined);
    const chain = res?.ok ? ((await res.json()) as { localBlock?: number }) : undefined;
    if ((chain?.localBlock ?? 0) >= blocks) break;
    await sleep(250);
  }
  return { child, url, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

function medianMicros(fn: () => unknown, runs = 200): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t) / 1_000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

const section: Section = async (options: BenchOptions): Promise<SectionResult> => {
  const blocks = options.quick ? HISTORY_BLOCKS.quick : HISTORY_BLOCKS.full;
  const durationSec = options.quick ? 2 : 5;
  const rows: Measure[] = [];
  const notes: string[] = [];
  const encodings = ['identity', 'gzip', 'br'] as const;
  const served: Record<string, Record<string, number>> = { cached: {}, uncached: {} };

  for (const [label, env] of [
    ['cached', {}],
    ['uncached', { API_RESPONSE_CACHE_MB: '0' }],
  ] as const) {
    const explorer = await startExplorer(blocks, env);
    try {
      const target = `${explorer.url}${PATH}`;
      if (label === 'cached') {
        const first = await fetch(target, { headers: { 'accept-encoding': 'identity' } });
        const body = Buffer.from(await first.arrayBuffer());
        const etag = first.headers.get('etag') ?? '';
        const brUs = medianMicros(() => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }));
        const gzipUs = medianMicros(() => gzipSync(body, { level: 6 }));
        rows.push({ name: `caching: br (q5) of one ${fmt(body.length)} B answer`, value: brUs, unit: 'µs CPU' });
        rows.push({ name: `caching: gzip (6) of one ${fmt(body.length)} B answer`, value: gzipUs, unit: 'µs CPU' });
        notes.push(
          `${PATH}: ${body.length} B identity, ETag ${etag}, Cache-Control ${first.headers.get('cache-control')}; ` +
            `devnet history ${blocks} blocks, no live blocks`,
        );
        // A browser's revalidation (fetch alone would add Cache-Control: no-cache, which asks for the body).
        const revalidate = { 'if-none-match': etag, 'accept-encoding': 'identity', 'cache-control': 'max-age=0' };
        const revalidated = await load(target, { durationSec, headers: revalidate });
        const got304 = await fetch(target, { headers: revalidate });
        rows.push({
          name: 'caching: If-None-Match (current ETag) 304s/s',
          value: revalidated.reqPerSec,
          unit: 'req/s',
          target: 'answers 304',
          met: got304.status === 304 && revalidated.errors === 0,
        });
      }
      for (const encoding of encodings) {
        const r = await load(target, { durationSec, headers: { 'accept-encoding': encoding } });
        const check = await fetch(target, { headers: { 'accept-encoding': encoding } });
        const sent = check.headers.get('content-encoding') ?? 'identity';
        served[label]![encoding] = r.reqPerSec;
        rows.push({
          name: `caching: ${label} ${encoding} req/s`,
          value: r.reqPerSec,
          unit: 'req/s',
          ...(label === 'cached'
            ? { target: `sent as ${encoding}, no errors`, met: sent === encoding && r.errors + r.non2xx === 0 }
            : {}),
        });
        rows.push({ name: `caching: ${label} ${encoding} p99`, value: r.p99, unit: 'ms' });
        rows.push({ name: `caching: ${label} ${encoding} bytes/answer`, value: r.bytesPerReq, unit: 'B' });
      }
    } finally {
      await stopChild(explorer.child);
      await explorer.remove();
    }
  }
  for (const encoding of ['gzip', 'br'] as const)
    rows.push({
      name: `caching: ${encoding} compressed once vs per request`,
      value: served['cached']![encoding]! / served['uncached']![encoding]!,
      unit: 'x req/s',
      target: '> 1',
      met: served['cached']![encoding]! > served['uncached']![encoding]!,
    });
  notes.push(
    `load: autocannon, 64 connections, ${durationSec} s per row; cached = the shipped response cache (answers and their ` +
      'gzip/br bodies kept per URL and indexed head), uncached = API_RESPONSE_CACHE_MB=0 (every request builds and compresses its answer)',
  );
  return { section: 'caching', rows, notes };
};

export default section;
