import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCeilingServer } from './ceiling.ts';
import {
  distributedRun,
  dropRunDatabase,
  embeddedExplorerEnv,
  freePort,
  launch,
  sleep,
  stopChild,
  type Child,
} from './harness.ts';
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
 * Standalone: `./node_modules/.bin/node bench/users.ts [--quick] [--distributed] [--no-embedded]
 * [--long-tail-only]` (distributed: two API processes of start:distributed on the servers `npm run
 * infra:up` starts). Needs `wrk` (Debian's package, which scripts/install-wrk.sh installs when it is
 * missing).
 */
const BLOCKS = { quick: 1_000, full: 3_000 };
const SECONDS = { quick: 5, full: 10 };
const CONNECTIONS = 64;
const THREADS = 2;
const LONG_TAIL_URLS = 5_000;
const HOT = ['/api/chain', '/api/blocks', '/api/transactions', '/api/tx-stats'];
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

/**
 * Up to `count` distinct URLs over every parameterised endpoint, from ids the index lists, and as
 * many others of the same kinds to warm up on (every other id of each kind), so that the warm-up
 * compiles every route's code without building any answer the measured list asks for.
 */
export async function longTail(
  api: string,
  head: number,
  count: number,
): Promise<{ urls: string[]; warmUp: string[] }> {
  type Tx = { id: string; from: string; to: string };
  const txs: Tx[] = [];
  for (let page = 1; txs.length < 2 * count && page <= 80; page++) {
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
    Array.from({ length: Math.min(head, 2_000) }, (_, i) => `/api/block/${head - i}`),
    ...['', '/holders', '/txs', '/history', '/locks'].map((route) => tokens.map((id) => `/api/token/${id}${route}`)),
    ...['/api/nft/', '/api/nft-tx?id=', '/api/nft-history?id='].map((route) => nfts.map((id) => `${route}${id}`)),
  ];
  // Round robin over the kinds, so that every kind is in the list however long the others are.
  const roundRobin = (lists: string[][]): string[] => {
    const urls: string[] = [];
    for (let i = 0; urls.length < count && lists.some((k) => i < k.length); i++) {
      for (const k of lists) if (i < k.length && urls.length < count) urls.push(k[i]!);
    }
    return urls;
  };
  const everyOther = (from: 0 | 1) => kinds.map((k) => k.filter((_, i) => i % 2 === from));
  return { urls: roundRobin(everyOther(0)), warmUp: roundRobin(everyOther(1)) };
}

/**
 * Filtered activity lists (token, direction, kind), page 1 and the deepest page of each at limit 20:
 * the URLs of both rows, from the addresses and tokens the long tail lists. A filtered page is one
 * range of a filtered series' numbers, so the deep row should cost what page 1 does.
 */
export async function filteredLists(
  api: string,
  tail: readonly string[],
): Promise<{ first: string[]; deep: string[] }> {
  const lists: string[] = [];
  for (const url of tail) {
    const address = /^\/api\/address\/(MT[A-Za-z0-9]+)\/txs$/.exec(url)?.[1];
    const token = /^\/api\/token\/([0-9]+)\/txs$/.exec(url)?.[1];
    if (address)
      for (const f of ['direction=out', 'direction=in&kind=transfer', 'token=0', 'token=0&direction=in&kind=transfer'])
        lists.push(`/api/address/${address}/txs?${f}`);
    if (token) for (const f of ['kind=transfer', 'kind=sell']) lists.push(`/api/token/${token}/txs?${f}`);
  }
  const first: string[] = [];
  const deep: string[] = [];
  for (const list of lists) {
    const { total } = await json<{ total: number }>(`${api}${list}`);
    if (total === 0) continue;
    first.push(`${list}&limit=20`);
    deep.push(`${list}&limit=20&page=${Math.ceil(total / 20)}`);
  }
  return { first, deep };
}

/**
 * The DEX market's endpoints for the assets the long tail names (its tokens, collections and
 * MRC-402s): stats, each side's open orders best first, an address's orders, and the trades, page 1
 * and the deepest page (a trade list is a series, so the deep page should cost what page 1 does).
 */
export async function marketLists(
  api: string,
  tail: readonly string[],
): Promise<{ endpoints: string[]; deep: string[] }> {
  const assets = new Set<string>();
  for (const url of tail) {
    const asset = /^\/api\/(?:token|nft)\/([0-9]+|MRC40[02]_[0-9a-f]{33})$/.exec(url)?.[1];
    if (asset) assets.add(asset);
  }
  const endpoints: string[] = [];
  const deep: string[] = [];
  for (const asset of assets) {
    endpoints.push(`/api/market/stats?asset=${asset}`, `/api/market/trades?asset=${asset}&limit=20`);
    for (const side of ['sell', 'buy', 'auction'])
      endpoints.push(`/api/market/orders?asset=${asset}&side=${side}&limit=20`);
    const { items } = await json<{ items: { owner: string }[] }>(`${api}/api/market/orders?asset=${asset}&limit=1`);
    if (items[0]) endpoints.push(`/api/market/orders?owner=${items[0].owner}&limit=20`);
    const trades = await json<{ total: number }>(`${api}/api/market/trades?asset=${asset}&limit=20`);
    if (trades.total > 0) deep.push(`/api/market/trades?asset=${asset}&limit=20&page=${Math.ceil(trades.total / 20)}`);
  }
  return { endpoints, deep };
}

/**
 * Holder lists (tokens', collections' and MRC-402s' of the long tail) at a deep cursor: the page
 * before the last, by the last page's `prev` cursor, at limit 20, for lists of more than 40 holders.
 * A cursor page reads the one rank page its key falls in besides the window's, so it should cost
 * what page 1 does (the long tail's `/holders` rows).
 */
export async function holderCursorLists(api: string, tail: readonly string[]): Promise<string[]> {
  const lists: string[] = [];
  for (const url of tail) {
    const token = /^\/api\/token\/([0-9]+)$/.exec(url)?.[1];
    const nft = /^\/api\/nft\/(MRC40[02]_[0-9a-f]{33})$/.exec(url)?.[1];
    if (token) lists.push(`/api/token/${token}/holders?limit=20`);
    if (nft) lists.push(`/api/nft-holders?id=${nft}&limit=20`);
  }
  const deep: string[] = [];
  for (const list of lists) {
    const { total } = await json<{ total: number }>(`${api}${list}`);
    if (total <= 40) continue;
    const last = await json<{ prev: string | null }>(`${api}${list}&page=${Math.ceil(total / 20)}`);
    if (last.prev) deep.push(`${list}&cursor=${last.prev}`);
  }
  return deep;
}

/** A process's CPU time so far (user and system, every thread), in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every common build). */
const CLOCK_TICKS = 100;

type Target = { ratio: number; p99: number };
const TARGET = {
  embedded: { hot: { ratio: 0.4, p99: 20 }, tail: { ratio: 0.2, p99: 50 } },
  distributed: { hot: { ratio: 0.3, p99: 20 }, tail: { ratio: 0.15, p99: 50 } },
} satisfies Record<string, { hot: Target; tail: Target }>;

/** The rows of one explorer at `api` (caught up to `blocks` by `process`), each beside the bare server. */
async function measureMode(
  mode: keyof typeof TARGET,
  api: string,
  child: Child,
  blocks: number,
  seconds: number,
  workDir: string,
  tailOnly = false,
): Promise<{ rows: Measure[]; urls: number }> {
  const bare = await startCeilingServer();
  const rows: Measure[] = [];
  try {
    let head = 0;
    for (const started = performance.now(); head < blocks; await sleep(200)) {
      if (child.gone()) throw new Error(`${mode} explorer exited:\n${child.output().slice(-2_000)}`);
      if (performance.now() - started > 600_000) throw new Error(`${mode} explorer not caught up to ${blocks}`);
      const res = await fetch(`${api}/api/chain`).catch(() => undefined);
      if (res?.ok) head = ((await res.json()) as { localBlock: number }).localBlock;
    }
    // What an answer's status line and headers take, to size the bare server's body like the API's.
    const probe = await fetch(`${api}/api/chain`);
    await probe.arrayBuffer();
    const headerBytes =
      'HTTP/1.1 200 OK\r\n\r\n'.length + [...probe.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    const { urls, warmUp } = await longTail(api, head, LONG_TAIL_URLS);
    const pathsFile = join(workDir, `long-tail-${mode}.txt`);
    await writeFile(pathsFile, urls.join('\n') + '\n');
    const warmUpFile = join(workDir, `long-tail-warm-up-${mode}.txt`);
    await writeFile(warmUpFile, warmUp.join('\n') + '\n');

    const measure = async (label: string, target: Target, run: () => Promise<WrkResult>) => {
      const r = await run();
      const meanBytes = Math.max(2, Math.round(r.bytes / Math.max(1, r.requests)) - headerBytes);
      await bare.answer(meanBytes);
      const b = await wrk(bare.url, seconds);
      const ratio = rps(r) / rps(b);
      const name = `users ${mode} ${label}`;
      rows.push(
        {
          name: `${name}: req/s vs bare`,
          value: rps(r),
          unit: 'req/s',
          ceiling: rps(b),
          ratio,
          target: `ratio >= ${target.ratio}`,
          met: ratio >= target.ratio,
        },
        {
          name: `${name}: p99`,
          value: r.p99 / 1000,
          unit: 'ms',
          target: `<= ${target.p99} ms`,
          met: r.p99 / 1000 <= target.p99,
        },
        { name: `${name}: errors`, value: errorsOf(r), unit: 'requests', target: '0', met: errorsOf(r) === 0 },
        {
          name: `${name}: wrk headroom (bare / API)`,
          value: rps(b) / rps(r),
          unit: '×',
          target: '>= 3',
          met: rps(b) / rps(r) >= 3,
        },
      );
    };
    // Warm-up (JIT, sockets), not measured: the first row would pay for it. The long tail's on
    // other ids than it measures, so that no measured answer is built before its row.
    await wrk(`${api}/api/chain`, 2);
    await wrk(api, 3, warmUpFile);
    if (!tailOnly) for (const path of HOT) await measure(path, TARGET[mode].hot, () => wrk(`${api}${path}`, seconds));
    const tail = `long tail (${fmt(urls.length)} URLs)`;
    // The all-in-one is one process: its CPU time per request says what a miss costs, steadier than req/s.
    let cpuPerRequest: number | undefined;
    await measure(tail, TARGET[mode].tail, async () => {
      const before = mode === 'embedded' ? cpuMs(child.pid) : undefined;
      const r = await wrk(api, seconds, pathsFile);
      if (before !== undefined) cpuPerRequest = ((cpuMs(child.pid) - before) / Math.max(1, r.requests)) * 1000;
      return r;
    });
    if (cpuPerRequest !== undefined)
      rows.push({ name: `users ${mode} ${tail}: the process's CPU per request`, value: cpuPerRequest, unit: 'µs' });
    // Filtered lists, page 1 and the deepest page, each list its own URL (so, like the long tail, mostly misses).
    const filtered = await filteredLists(api, urls);
    for (const [label, list] of [
      ['filtered lists, page 1', filtered.first],
      ['filtered lists, deepest page', filtered.deep],
    ] as const) {
      const file = join(workDir, `filtered-${label.endsWith('1') ? 'first' : 'deep'}-${mode}.txt`);
      await writeFile(file, list.join('\n') + '\n');
      await measure(`${label} (${fmt(list.length)} URLs)`, TARGET[mode].tail, () => wrk(api, seconds, file));
    }
    // Holder lists by a deep cursor.
    const holders = await holderCursorLists(api, urls);
    const holdersFile = join(workDir, `holders-cursor-${mode}.txt`);
    await writeFile(holdersFile, holders.join('\n') + '\n');
    if (holders.length > 0)
      await measure(`holder lists, deep cursor page (${fmt(holders.length)} URLs)`, TARGET[mode].tail, () =>
        wrk(api, seconds, holdersFile),
      );
    // The DEX market: every endpoint of the long tail's assets, and their trade lists' deepest pages.
    const market = await marketLists(api, urls);
    for (const [label, list] of [
      ['market endpoints', market.endpoints],
      ['market trades, deepest page', market.deep],
    ] as const) {
      const file = join(workDir, `market-${label.endsWith('page') ? 'deep' : 'all'}-${mode}.txt`);
      await writeFile(file, list.join('\n') + '\n');
      await measure(`${label} (${fmt(list.length)} URLs)`, TARGET[mode].tail, () => wrk(api, seconds, file));
    }
    return { rows, urls: urls.length };
  } finally {
    await bare.close();
  }
}

/** Standalone runs only: `--long-tail-only` leaves out the hot rows, `--no-embedded` the embedded mode. */
interface UsersOptions extends BenchOptions {
  tailOnly?: boolean;
  embedded?: boolean;
}

const section = async (options: UsersOptions): Promise<SectionResult> => {
  await promisify(execFile)('bash', [fileURLToPath(new URL('../scripts/install-wrk.sh', import.meta.url))]);
  const blocks = options.quick ? BLOCKS.quick : BLOCKS.full;
  const seconds = options.quick ? SECONDS.quick : SECONDS.full;
  const rows: Measure[] = [];
  const notes: string[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-users-'));
  try {
    // npm start's defaults but the history size: a live block every 2 s, LOG_LEVEL info.
    const port = await freePort();
    const env = await embeddedExplorerEnv(blocks, join(dataDir, 'embedded'), port, {
      DEVNET_BLOCK_INTERVAL_MS: '2000',
      LOG_LEVEL: 'info',
    });
    const explorer = options.embedded === false ? null : launch('explorer', ['services/explorer/src/main.ts'], env);
    try {
      if (explorer) {
        const api = `http://127.0.0.1:${port}`;
        const embedded = await measureMode('embedded', api, explorer, blocks, seconds, dataDir, options.tailOnly);
        rows.push(...embedded.rows);
        notes.push(
          `embedded: npm start's process (services/explorer/src/main.ts), DEVNET_HISTORY_BLOCKS=${blocks}, a live ` +
            `block every 2 s (indexed during the load), LOG_LEVEL=info; long tail ${fmt(embedded.urls)} distinct paths`,
        );
      }
    } finally {
      if (explorer) await stopChild(explorer);
    }
    if (options.distributed) {
      // start:distributed's shape with two API processes sharing the port, on the servers infra:up started.
      const port = await freePort();
      const run = await distributedRun('users', {
        API_PROCESSES: '2',
        PORT: String(port),
        HOST: '127.0.0.1',
        DEVNET_PORT: String(await freePort()),
        DATA_DIR: join(dataDir, 'distributed'),
        DEVNET_HISTORY_BLOCKS: String(blocks),
        DEVNET_BLOCK_INTERVAL_MS: '2000',
        LOG_LEVEL: 'info',
      });
      if ('skipped' in run) notes.push(`distributed: skipped, ${run.skipped}`);
      else {
        const stack = launch('start-distributed', ['scripts/start-distributed.ts'], run.env);
        try {
          const distributed = await measureMode(
            'distributed',
            `http://127.0.0.1:${port}`,
            stack,
            blocks,
            seconds,
            dataDir,
            options.tailOnly,
          );
          rows.push(...distributed.rows);
          notes.push(
            `distributed: scripts/start-distributed.ts, API_PROCESSES=2, on Kafka ${run.infra['KAFKA_BROKERS']}, ` +
              `MongoDB ${run.mongo.url} (${run.mongo.key}), Redis; same history and live blocks; long tail ` +
              `${fmt(distributed.urls)} distinct paths`,
          );
        } finally {
          await stopChild(stack);
          await dropRunDatabase(run);
        }
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  notes.push(
    `wrk -t${THREADS} -c${CONNECTIONS} -d${seconds}s per row after a 2 s warm-up, on the same 2 cores; bare: a ` +
      `node:http server in its own process answering a body of the row's mean size, under the same wrk right after ` +
      `the row; long tail: tx, templates, address, address txs, search, block, token and its lists, NFT and its lists, ` +
      `each wrk thread walking the list from its own offset`,
  );
  return { section: 'users', rows, notes };
};

export default section satisfies Section;

if (import.meta.main) {
  const { printSection } = await import('./harness.ts');
  const flag = (name: string) => process.argv.includes(name);
  printSection(
    await section({
      quick: flag('--quick'),
      distributed: flag('--distributed'),
      tailOnly: flag('--long-tail-only'),
      embedded: !flag('--no-embedded'),
    }),
  );
}
