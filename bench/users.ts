import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCeilingServer } from './ceiling.ts';
import { embeddedExplorerEnv, freePort, launch, sleep, stopChild } from './harness.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt } from './support.ts';

/**
 * The API as users run it, under a load tool that is not part of it: `npm start`'s process with
 * the README's defaults (the built-in devnet, a live block every 2 s, indexed while it is loaded)
 * against wrk (C, its own process), and a bare `node:http` server answering a body of the same size
 * measured the same way in the same run. Rows: the hot endpoints one at a time, and the long tail —
 * a list of ~5,000 distinct URLs over every parameterised endpoint, real ids from the index, each
 * wrk thread walking it from its own offset (bench/wrk/report.lua), so that most requests miss
 * every cache. The bare server's rate over the API's says whether wrk had room (≥ 3× is the rule).
 *
 * Standalone: `./node_modules/.bin/node bench/users.ts [--quick]`. Needs `wrk` (Debian's package, which
 * scripts/install-wrk.sh installs when it is missing).
 */
const BLOCKS = { quick: 1_000, full: 3_000 };
const SECONDS = { quick: 5, full: 10 };
const CONNECTIONS = 64;
const THREADS = 2;
const LONG_TAIL_URLS = 5_000;
const HOT = ['/api/chain', '/api/blocks', '/api/transactions', '/api/tx-stats'];
const TARGETS = { hotRatio: 0.4, hotP99Ms: 20, tailRatio: 0.2, tailP99Ms: 50 };
const SCRIPT = fileURLToPath(new URL('./wrk/report.lua', import.meta.url));

interface WrkResult {
  requests: number;
  micros: number;
  bytes: number;
  non2xx: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

const rps = (r: WrkResult): number => r.requests / (r.micros / 1e6);
const errorsOf = (r: WrkResult): number => r.non2xx + r.connect + r.read + r.write + r.timeout;

async function wrk(url: string, seconds: number, pathsFile?: string): Promise<WrkResult> {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', SCRIPT, url];
  if (pathsFile) args.push('--', pathsFile);
  const { stdout } = await promisify(execFile)('wrk', args, { maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
  return JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult;
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

/** Up to `count` distinct URLs over every parameterised endpoint, from ids the index lists. */
export async function longTail(api: string, head: number, count: number): Promise<string[]> {
  type Tx = { id: string; from: string; to: string };
  const txs: Tx[] = [];
  for (let page = 1; txs.length < count && page <= 40; page++) {
    const body = await json<{ transactions: Tx[]; totalPages: number }>(
      `${api}/api/transactions?page=${page}&limit=50`,
    );
    txs.push(...body.transactions);
    if (page >= body.totalPages) break;
  }
  // A party of a transaction need not be a wallet (a 404 is right there): only wallets are listed.
  const addresses: string[] = [];
  for (const a of new Set(txs.flatMap((t) => [t.from, t.to]).filter((a) => a.startsWith('MT')))) {
    const res = await fetch(`${api}/api/address/${a}`);
    await res.arrayBuffer();
    if (res.ok) addresses.push(a);
  }
  const tokens = (await json<{ items: { id: number }[] }>(`${api}/api/tokens?limit=50`)).items.map((t) => t.id);
  const nfts = (await json<{ items: { id: string }[] }>(`${api}/api/nfts?limit=50`)).items.map((n) => n.id);
  const kinds: string[][] = [
    txs.map((t) => `/api/tx/${t.id}`),
    txs.map((t) => `/api/tx/${t.id}/templates`),
    addresses.map((a) => `/api/address/${a}`),
    addresses.map((a) => `/api/address/${a}/txs`),
    addresses.map((a) => `/api/search?q=${a}`),
    Array.from({ length: Math.min(head, 1_000) }, (_, i) => `/api/block/${head - i}`),
    tokens.flatMap((id) => [`/api/token/${id}`, `/api/token/${id}/holders`, `/api/token/${id}/txs`]),
    tokens.flatMap((id) => [`/api/token/${id}/history`, `/api/token/${id}/locks`]),
    nfts.flatMap((id) => [`/api/nft/${id}`, `/api/nft-tx?id=${id}`, `/api/nft-history?id=${id}`]),
  ];
  // Round robin over the kinds, so that every kind is in the list however long the others are.
  const urls: string[] = [];
  for (let i = 0; urls.length < count && kinds.some((k) => i < k.length); i++) {
    for (const k of kinds) if (i < k.length && urls.length < count) urls.push(k[i]!);
  }
  return urls;
}

const section: Section = async (options: BenchOptions): Promise<SectionResult> => {
  await promisify(execFile)('bash', [fileURLToPath(new URL('../scripts/install-wrk.sh', import.meta.url))]);
  const blocks = options.quick ? BLOCKS.quick : BLOCKS.full;
  const seconds = options.quick ? SECONDS.quick : SECONDS.full;
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-users-'));
  const port = await freePort();
  // npm start's defaults but the history size: a live block every 2 s, LOG_LEVEL info.
  const env = await embeddedExplorerEnv(blocks, dataDir, port, { DEVNET_BLOCK_INTERVAL_MS: '2000', LOG_LEVEL: 'info' });
  const explorer = launch('explorer', ['services/explorer/src/main.ts'], env);
  const bare = await startCeilingServer();
  const api = `http://127.0.0.1:${port}`;
  const rows: Measure[] = [];
  try {
    let head = 0;
    for (const started = performance.now(); head < blocks; await sleep(200)) {
      if (explorer.gone()) throw new Error(`explorer exited:\n${explorer.output().slice(-2_000)}`);
      if (performance.now() - started > 600_000) throw new Error(`explorer not caught up to ${blocks}`);
      const res = await fetch(`${api}/api/chain`).catch(() => undefined);
      if (res?.ok) head = ((await res.json()) as { localBlock: number }).localBlock;
    }
    // What an answer's status line and headers take, to size the bare server's body like the API's.
    const probe = await fetch(`${api}/api/chain`);
    await probe.arrayBuffer();
    const headerBytes =
      'HTTP/1.1 200 OK\r\n\r\n'.length + [...probe.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    const urls = await longTail(api, head, LONG_TAIL_URLS);
    const pathsFile = join(dataDir, 'long-tail.txt');
    await writeFile(pathsFile, urls.join('\n') + '\n');

    const measure = async (label: string, target: { ratio: number; p99: number }, run: () => Promise<WrkResult>) => {
      const r = await run();
      const meanBytes = Math.max(2, Math.round(r.bytes / Math.max(1, r.requests)) - headerBytes);
      await bare.answer(meanBytes);
      const b = await wrk(bare.url, seconds);
      const ratio = rps(r) / rps(b);
      rows.push(
        {
          name: `${label}: req/s vs bare`,
          value: rps(r),
          unit: 'req/s',
          ceiling: rps(b),
          ratio,
          target: `ratio >= ${target.ratio}`,
          met: ratio >= target.ratio,
        },
        {
          name: `${label}: p99`,
          value: r.p99 / 1000,
          unit: 'ms',
          target: `<= ${target.p99} ms`,
          met: r.p99 / 1000 <= target.p99,
        },
        { name: `${label}: errors`, value: errorsOf(r), unit: 'requests', target: '0', met: errorsOf(r) === 0 },
        {
          name: `${label}: wrk headroom (bare / API)`,
          value: rps(b) / rps(r),
          unit: '×',
          target: '>= 3',
          met: rps(b) / rps(r) >= 3,
        },
      );
    };
    // Warm-up (JIT, sockets), not measured: the first row would pay for it.
    await wrk(`${api}/api/chain`, 2);
    for (const path of HOT)
      await measure(`users ${path}`, { ratio: TARGETS.hotRatio, p99: TARGETS.hotP99Ms }, () =>
        wrk(`${api}${path}`, seconds),
      );
    await measure(
      `users long tail (${fmt(urls.length)} URLs)`,
      { ratio: TARGETS.tailRatio, p99: TARGETS.tailP99Ms },
      () => wrk(api, seconds, pathsFile),
    );
    return {
      section: 'users',
      rows,
      notes: [
        `npm start's process (services/explorer/src/main.ts), DEVNET_HISTORY_BLOCKS=${blocks}, a live block every 2 s ` +
          `(indexed during the load), LOG_LEVEL=info; wrk -t${THREADS} -c${CONNECTIONS} -d${seconds}s per row on the same 2 cores`,
        `bare: a node:http server in its own process answering a body of the row's mean size, measured with the same wrk ` +
          `right after the row; long tail: ${fmt(urls.length)} distinct paths (tx, templates, address, address txs, ` +
          `search, block, token and its lists, NFT and its lists), each thread from its own offset`,
      ],
    };
  } finally {
    await bare.close();
    await stopChild(explorer);
    await rm(dataDir, { recursive: true, force: true });
  }
};

export default section;

if (import.meta.main) {
  const { printSection } = await import('./harness.ts');
  printSection(await section({ quick: process.argv.includes('--quick'), distributed: false }));
}
