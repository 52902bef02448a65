import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterConfigSchema, openReadStore } from '@mtc/adapters';
import { RawBlock } from '@mtc/domain';
import { readEnvFile } from '@mtc/runtime';
import { z } from 'zod';
import { createCeilings } from './ceiling.ts';
import { freePort, pickMongo, sleep } from './harness.ts';
import { load, type LoadResult } from './load.ts';
import type { BenchOptions, Measure, Section, SectionResult } from './section.ts';
import { fmt, printTable } from './support.ts';

/**
 * The API under load, held to a bare `node:http` server answering bodies of the same size in the
 * same run (bench/ceiling.ts). Every GET operation of the API's own OpenAPI document is measured, so
 * an endpoint added later is measured without new code here: path parameters are filled with real
 * ids read from the API (chosen by the path segment before the parameter, or by probing every kind
 * of id for a segment not known here), every list (an operation with a `page` parameter) at page 1
 * and at a deep page near its end. The load comes from autocannon in a worker thread of this process
 * (bench/load.ts); the server is always another process:
 * - embedded: the all-in-one explorer as `npm start` runs it, while its devnet cuts a live block
 *   every 2 s and the explorer indexes it;
 * - distributed (`--distributed`): `scripts/start-distributed.ts` with `API_PROCESSES=2` against the
 *   servers of `.infra/env`, on a topic prefix, database, key prefix and consumer group of its own.
 *
 * Also `nodeCeiling`: the devnet's own serving rate for the requests the follower makes (the
 * ceiling of backfill). Standalone: `./node_modules/.bin/node bench/api-load.ts [--quick] [--distributed]`
 * (`--distributed-only`: that mode alone; BENCH_DISTRIBUTED_BLOCKS: its history, e.g. 34000 ≈ 100k tx).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE_ARGS = ['--disable-warning=ExperimentalWarning', '--disable-warning=TimeoutNegativeWarning'];
const CONNECTIONS = 64;
/**
 * Operations that are not the explorer API's request/answer pages: the ops endpoints, the
 * documents, the live stream (an answer that never ends) and the exports (bench/export.ts).
 */
const SKIPPED = new Set([
  '/healthz',
  '/readyz',
  '/api/openapi.json',
  '/api/docs',
  '/api/docs/assets/{file}',
  '/api/stream',
]);
const SKIPPED_PREFIXES = ['/api/export/'];
/** The issue's stricter ratio, for these operations (lists: page 1 only). */
export const STRICT = new Set(['/api/chain', '/api/tx-stats', '/api/blocks page 1', '/api/transactions page 1']);
const STRICT_RATIO = 0.4;
const RATIO = 0.25;
export const P99_MS = 20;
const DEEP_P50 = 1.5;
/** Real ids rotated per endpoint. */
const IDS_PER_ENDPOINT = 24;
/** Lists of an entity: ids tried, and the ids with the longest lists kept (each with its deep page). */
const LIST_CANDIDATES = 64;
const IDS_PER_LIST = 8;
/** A list with fewer pages has no deep page worth the name. */
const MIN_DEEP_PAGES = 3;
/** Deep pages rotated in a list of no entity (/api/blocks …): the last full ones. */
const DEEP_PAGES = 8;

interface Plan {
  mode: 'embedded' | 'distributed';
  historyBlocks: number;
  rowSec: number;
  ceilingSec: number;
  warmupSec: number;
  readyTimeoutMs: number;
}

function plans(options: BenchOptions): Plan[] {
  const timing = options.quick
    ? { rowSec: 1, ceilingSec: 1, warmupSec: 1 }
    : { rowSec: 3, ceilingSec: 2, warmupSec: 2 };
  const embedded: Plan = {
    mode: 'embedded',
    historyBlocks: options.quick ? 3_000 : 10_000,
    ...timing,
    readyTimeoutMs: options.quick ? 180_000 : 300_000,
  };
  // BENCH_DISTRIBUTED_BLOCKS: a larger distributed history (≈ 3 transactions a block), e.g. 34000 for
  // the API at 100k transactions; the wait for its backfill grows with it.
  const distributedBlocks = Number(process.env['BENCH_DISTRIBUTED_BLOCKS'] ?? (options.quick ? 500 : 2_000));
  if (!Number.isInteger(distributedBlocks) || distributedBlocks < 1)
    throw new Error(
      `BENCH_DISTRIBUTED_BLOCKS must be a positive integer, not ${process.env['BENCH_DISTRIBUTED_BLOCKS']}`,
    );
  const distributed: Plan = {
    mode: 'distributed',
    historyBlocks: distributedBlocks,
    ...timing,
    readyTimeoutMs: Math.max(options.quick ? 180_000 : 300_000, distributedBlocks * 60),
  };
  if (process.argv.includes('--distributed-only')) return [distributed];
  return options.distributed ? [embedded, distributed] : [embedded];
}

// ---------------------------------------------------------------------------------------------
// Child processes: every tree started here is stopped at the end, and killed if this process exits.

interface Service {
  name: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

const running = new Set<Service>();

function launch(name: string, args: readonly string[], env: Record<string, string | undefined>): Service {
  const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
    cwd: ROOT,
    env: clean,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The start (process names, URLs) and the end (the error that stopped it) are what a reader needs.
  let head = '';
  let tail = '';
  const keep = (chunk: Buffer): void => {
    const text = chunk.toString();
    if (head.length < 16_384) head += text;
    else tail = (tail + text).slice(-16_384);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const service: Service = {
    name,
    child,
    output: () => head + tail,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  running.add(service);
  void service.exited.then(() => running.delete(service));
  return service;
}

/** Every process below `pid`, from one `ps` listing. */
function descendants(pid: number): number[] {
  let listing = '';
  try {
    listing = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of listing.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** SIGTERM (a clean shutdown: the supervisor stops its children), then SIGKILL what is left. */
async function stop(service: Service, graceMs = 20_000): Promise<void> {
  const pid = service.child.pid;
  if (pid === undefined) return;
  const tree = descendants(pid);
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
  if ((await Promise.race([service.exited, timer])) === 'late') killQuietly(pid);
  for (const child of [...tree, ...descendants(pid)]) killQuietly(child);
  await service.exited;
}

/** This process is ending (a crash, Ctrl-C): nothing it started may outlive it. */
function killAllNow(): void {
  for (const service of running) {
    const pid = service.child.pid;
    if (pid === undefined) continue;
    for (const child of descendants(pid)) killQuietly(child);
    killQuietly(pid);
  }
}

// ---------------------------------------------------------------------------------------------
// The API: what it answers, read with the shapes of its OpenAPI document.

interface Answer {
  status: number;
  bytes: number;
  json: unknown;
}

async function get(url: string): Promise<Answer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const body = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(body.toString());
  } catch {
    json = undefined; // an image, say
  }
  return { status: res.status, bytes: body.length, json };
}

const ok = (answer: Answer): boolean => answer.status >= 200 && answer.status < 300;

const Chain = z.object({ localBlock: z.number(), mainnetBlock: z.number() });
const BlocksPage = z.object({
  blocks: z.array(z.object({ height: z.number(), hash: z.string() })),
  totalPages: z.number(),
});
const TransactionsPage = z.object({
  transactions: z.array(z.object({ id: z.string(), from: z.string(), to: z.string() })),
  totalPages: z.number(),
});
const TokensPage = z.object({
  total: z.number(),
  items: z.array(z.object({ id: z.string(), symbol: z.string() })),
});
const NftsPage = z.object({ total: z.number(), items: z.array(z.object({ id: z.string(), protocol: z.string() })) });
const NftItemsPage = z.object({ items: z.array(z.object({ id: z.string() })) });
/** Collections whose items are sampled into the item pool. */
const ITEM_COLLECTIONS = 8;
/** Either paging shape of the spec: `totalPages`, or `total` with `limit`. */
const Paging = z.object({
  totalPages: z.number().optional(),
  total: z.number().optional(),
  limit: z.number().optional(),
});

const Parameter = z.object({
  name: z.string(),
  in: z.string(),
  required: z.boolean().optional(),
  schema: z.object({ default: z.unknown().optional() }).optional(),
});
const Operation = z.object({
  summary: z.string().optional(),
  description: z.string().optional(),
  parameters: z.array(Parameter).optional(),
});
const OpenApi = z.object({ paths: z.record(z.string(), z.object({ get: Operation.optional() })) });
type Operation = z.infer<typeof Operation>;

async function readJson<S extends z.ZodType>(url: string, schema: S): Promise<z.output<S>> {
  const answer = await get(url);
  if (!ok(answer)) throw new Error(`GET ${url} answered ${answer.status}`);
  return schema.parse(answer.json);
}

/** Deterministic picks, so two runs request the same ids of the same chain. */
function createRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
}

const POOL_NAMES = ['height', 'blockHash', 'tx', 'address', 'token', 'nft', 'item'] as const;
type PoolName = (typeof POOL_NAMES)[number];
type Pools = Record<PoolName, string[]> & { symbol: string[] };

/** The kind of id a path segment names; a segment not listed here is probed with every kind. */
const POOLS_BY_SEGMENT: Record<string, readonly PoolName[]> = {
  block: ['height', 'blockHash'],
  rawblock: ['height', 'blockHash'],
  tx: ['tx'],
  rawtx: ['tx'],
  address: ['address'],
  token: ['token'],
  nft: ['nft', 'item'],
};

/** The pools a required `id` query parameter is filled from (the NFT lists and their holders, history …). */
const QUERY_ID_POOLS: readonly PoolName[] = ['nft', 'item'];

/** Real ids from the API itself: random pages of blocks and transactions, every token. */
export async function collectIds(base: string): Promise<Pools> {
  const random = createRandom(1);
  const pools: Pools = { height: [], blockHash: [], tx: [], address: [], token: [], symbol: [], nft: [], item: [] };
  const blocks = await readJson(`${base}/api/blocks?limit=50`, BlocksPage);
  for (let i = 0; i < 3; i++) {
    const page = await readJson(`${base}/api/blocks?limit=50&page=${1 + random(blocks.totalPages)}`, BlocksPage);
    for (const b of page.blocks) {
      pools.height.push(String(b.height));
      pools.blockHash.push(b.hash);
    }
  }
  const txs = await readJson(`${base}/api/transactions?limit=50`, TransactionsPage);
  for (let i = 0; i < 3; i++) {
    const page = await readJson(
      `${base}/api/transactions?limit=50&page=${1 + random(txs.totalPages)}`,
      TransactionsPage,
    );
    for (const t of page.transactions) {
      pools.tx.push(t.id);
      for (const a of [t.from, t.to]) if (/^MT\w+$/.test(a) && !pools.address.includes(a)) pools.address.push(a);
    }
  }
  const first = await readJson(`${base}/api/tokens?limit=100`, TokensPage);
  for (let page = 1; page <= Math.ceil(first.total / 100); page++) {
    const tokens = page === 1 ? first : await readJson(`${base}/api/tokens?limit=100&page=${page}`, TokensPage);
    for (const t of tokens.items) {
      pools.token.push(t.id);
      pools.symbol.push(t.symbol);
    }
  }
  // Collections and MRC-402s (newest first, four pages), and items of some collections.
  for (let page = 1; page <= 4; page++) {
    const nfts = await readJson(`${base}/api/nfts?limit=50&page=${page}`, NftsPage);
    pools.nft.push(...nfts.items.map((n) => n.id));
    if (nfts.items.length < 50) break;
  }
  for (const id of pools.nft.filter((id) => id.startsWith('MRC400_')).slice(0, ITEM_COLLECTIONS)) {
    const items = await readJson(`${base}/api/nft-items?limit=20&id=${id}`, NftItemsPage);
    pools.item.push(...items.items.map((i) => i.id));
  }
  // Shuffled, so the first ids of a pool are not all neighbours.
  for (const pool of Object.values(pools)) {
    for (let i = pool.length - 1; i > 0; i--) {
      const j = random(i + 1);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
  }
  return pools;
}

function interleave(lists: readonly (readonly string[])[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count && lists.some((l) => i < l.length); i++)
    for (const list of lists) if (i < list.length && out.length < count) out.push(list[i]!);
  return out;
}

// ---------------------------------------------------------------------------------------------
// What to measure: one row per operation (two per list), each with the paths it rotates over.

export interface Row {
  /** `/api/blocks page 1`, `/api/block/{id}`. */
  label: string;
  template: string;
  kind: 'single' | 'page 1' | 'deep';
  paths: string[];
  /** Mean body size of the paths, from one request each. */
  bodyBytes: number;
  /** Paths left out because they did not answer 2xx when probed. */
  dropped: number;
  /** The probe's statuses, e.g. "200 ×23, 404 ×1" (said when some were dropped). */
  statuses?: string;
  /** Deep rows: the pages requested. */
  pages?: string;
  callsNode: boolean;
}

const PARAM = /\{([^}]+)\}/g;

/** Candidate paths of a template, each path parameter filled with real ids of the right kind. */
async function fillTemplate(
  base: string,
  template: string,
  pools: Pools,
  count: number,
): Promise<string[] | undefined> {
  const params = [...template.matchAll(PARAM)];
  if (params.length === 0) return [template];
  const choices: string[][] = [];
  for (const param of params) {
    const segment = template.slice(0, param.index).split('/').filter(Boolean).at(-1) ?? '';
    const kinds = POOLS_BY_SEGMENT[segment] ?? (await probeKinds(base, template, param[0], pools));
    if (kinds.length === 0) return undefined;
    choices.push(
      interleave(
        kinds.map((k) => pools[k]),
        count,
      ),
    );
  }
  return Array.from({ length: Math.max(...choices.map((c) => c.length)) }, (_, i) =>
    params.reduce((path, param, p) => {
      const ids = choices[p]!;
      return path.replace(param[0], encodeURIComponent(ids[i % ids.length]!));
    }, template),
  );
}

/** The kinds of id of which most of a few answer 2xx in this place of the template. */
async function probeKinds(base: string, template: string, param: string, pools: Pools): Promise<PoolName[]> {
  const kinds: PoolName[] = [];
  for (const kind of POOL_NAMES) {
    const tried = pools[kind].slice(0, 4);
    const answers = await Promise.all(
      tried.map((id) => get(`${base}${template.replace(param, encodeURIComponent(id)).replace(PARAM, '0')}`)),
    );
    if (answers.filter(ok).length * 2 > tried.length) kinds.push(kind);
  }
  return kinds;
}

/**
 * NFT ids (QUERY_ID_POOLS) that answer 2xx as the `id` query parameter: each endpoint takes some of
 * the id forms only (/nft-items collections, /nft-holders collections and MRC-402s, /nft-tx all).
 */
async function idsAnswering(base: string, paths: readonly string[], pools: Pools): Promise<string[]> {
  const [path] = paths;
  if (path === undefined) return [];
  const candidates = interleave(
    QUERY_ID_POOLS.map((k) => pools[k]),
    IDS_PER_ENDPOINT * 2,
  );
  const answers = await Promise.all(
    candidates.map(async (id) => ({
      id,
      answer: await get(`${base}${withQuery(path, `id=${encodeURIComponent(id)}`)}`),
    })),
  );
  return answers
    .filter((a) => ok(a.answer))
    .map((a) => a.id)
    .slice(0, IDS_PER_ENDPOINT);
}

function pagesOf(answer: Answer, defaultLimit: number): number | undefined {
  const paging = Paging.safeParse(answer.json);
  if (!paging.success) return undefined;
  const { totalPages, total, limit } = paging.data;
  if (totalPages !== undefined) return totalPages;
  if (total !== undefined) return Math.ceil(total / (limit ?? defaultLimit));
  return undefined;
}

const withQuery = (path: string, query: string): string => `${path}${path.includes('?') ? '&' : '?'}${query}`;

interface Probed {
  paths: string[];
  bytes: number;
  dropped: number;
  /** The answers' statuses and how many of each, e.g. "503 ×4, 200 ×1". */
  statuses: string;
}

function statusCounts(answers: readonly Answer[]): string {
  const counts = new Map<number, number>();
  for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} ×${n}`).join(', ');
}

/** Keeps the paths that answer 2xx (a real id the API does not serve is noted, not measured). */
async function probe(base: string, paths: readonly string[]): Promise<Probed> {
  const answers = await Promise.all(paths.map(async (path) => ({ path, answer: await get(`${base}${path}`) })));
  const kept = answers.filter((a) => ok(a.answer));
  const bytes = kept.reduce((sum, a) => sum + a.answer.bytes, 0) / Math.max(1, kept.length);
  return {
    paths: kept.map((a) => a.path),
    bytes,
    dropped: answers.length - kept.length,
    statuses: statusCounts(answers.map((a) => a.answer)),
  };
}

export async function planRows(base: string, pools: Pools, notes: string[]): Promise<Row[]> {
  const doc = await readJson(`${base}/api/openapi.json`, OpenApi);
  const rows: Row[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const operation = item.get;
    if (!operation || SKIPPED.has(template) || SKIPPED_PREFIXES.some((p) => template.startsWith(p))) continue;
    const planned = await planOperation(base, template, operation, pools);
    if (typeof planned === 'string') notes.push(`GET ${template} not measured: ${planned}`);
    else rows.push(...planned);
  }
  return rows;
}

async function planOperation(
  base: string,
  template: string,
  operation: Operation,
  pools: Pools,
): Promise<Row[] | string> {
  const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
  const unknown = query.filter((p) => p.required && p.name !== 'q' && p.name !== 'id');
  if (unknown.length > 0) return `no value known for its required ${unknown.map((p) => p.name).join(', ')}`;
  // Read from the node rather than the index (its description says so).
  const callsNode = /\bnode\b/i.test(`${operation.summary ?? ''} ${operation.description ?? ''}`);
  const page = query.find((p) => p.name === 'page');
  let paths = await fillTemplate(base, template, pools, page ? LIST_CANDIDATES : IDS_PER_ENDPOINT);
  if (!paths) return 'no kind of real id answers 2xx in its path';
  if (query.some((p) => p.name === 'id' && p.required)) {
    const ids = await idsAnswering(base, paths, pools);
    if (ids.length === 0) return 'none of the NFT ids answered 2xx as its id';
    paths = paths.flatMap((path) => ids.map((id) => withQuery(path, `id=${encodeURIComponent(id)}`)));
  }
  if (query.some((p) => p.name === 'q')) {
    const qs = interleave([pools.tx, pools.height, pools.address, pools.symbol, pools.blockHash], IDS_PER_ENDPOINT);
    paths = paths.flatMap((path) => qs.map((q) => withQuery(path, `q=${encodeURIComponent(q)}`)));
  }
  if (!page) {
    const probed = await probe(base, paths);
    if (probed.paths.length === 0) return `none of its real ids answered 2xx (${probed.statuses})`;
    return [
      {
        label: template,
        template,
        kind: 'single',
        paths: probed.paths,
        bodyBytes: probed.bytes,
        dropped: probed.dropped,
        statuses: probed.statuses,
        callsNode,
      },
    ];
  }

  // A list: page 1 and a deep page (the last full one) of the ids with the most pages.
  const limitDefault = query.find((p) => p.name === 'limit')?.schema?.default;
  const defaultLimit = typeof limitDefault === 'number' ? limitDefault : 20;
  const firsts = await Promise.all(
    paths.map(async (path) => ({ path, answer: await get(`${base}${withQuery(path, 'page=1')}`) })),
  );
  const longest = firsts
    .filter((f) => ok(f.answer))
    .map((f) => ({ path: f.path, pages: pagesOf(f.answer, defaultLimit) ?? 1 }))
    .sort((a, b) => b.pages - a.pages);
  if (longest.length === 0)
    return `page 1 answered non-2xx for every real id (${statusCounts(firsts.map((f) => f.answer))})`;
  // Page 1 and the deep page of the same ids, so that the two rows differ only by depth.
  const deepEnough = longest.filter((l) => l.pages >= MIN_DEEP_PAGES).slice(0, IDS_PER_LIST);
  const lists = deepEnough.length > 0 ? deepEnough : longest.slice(0, 1);
  const deepPages = (pages: number): number[] =>
    paths.length > 1
      ? [Math.max(1, pages - 1)]
      : [...new Set(Array.from({ length: DEEP_PAGES }, (_, i) => Math.max(1, pages - 1 - i)))];
  const first = await probe(
    base,
    lists.map((l) => withQuery(l.path, 'page=1')),
  );
  const deepPaths = lists.flatMap((l) => deepPages(l.pages).map((p) => withQuery(l.path, `page=${p}`)));
  const deep = await probe(base, deepPaths);
  const pageNumbers = deepPaths.map((p) => /page=(\d+)/.exec(p)?.[1] ?? '?');
  return [
    {
      label: `${template} page 1`,
      template,
      kind: 'page 1',
      paths: first.paths,
      bodyBytes: first.bytes,
      dropped: first.dropped,
      statuses: first.statuses,
      callsNode,
    },
    {
      label: `${template} deep`,
      template,
      kind: 'deep',
      paths: deep.paths,
      bodyBytes: deep.bytes,
      dropped: deep.dropped,
      statuses: deep.statuses,
      pages: `${pageNumbers.slice(0, 8).join(',')}${pageNumbers.length > 8 ? ',…' : ''} of ${lists.map((l) => l.pages).join('/')}`,
      callsNode,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface Result {
  mode: Plan['mode'];
  row: Row;
  load: LoadResult;
  ceiling: { bucketBytes: number; reqPerSec: number };
  ratio: number;
  targetRatio: number;
  p99Target: number | undefined;
}

async function measureApi(base: string, plan: Plan, notes: string[]): Promise<Result[]> {
  const planning = performance.now();
  const pools = await collectIds(base);
  const rows = await planRows(base, pools, notes);
  const planS = (performance.now() - planning) / 1000;
  // JIT, statement caches and the connections warm up on the whole mix before anything is counted.
  const everything = [...new Set(rows.flatMap((r) => r.paths))];
  await load(
    everything.map((p) => `${base}${p}`),
    { connections: CONNECTIONS, durationSec: plan.warmupSec },
  );
  const results: Result[] = [];
  const measuring = performance.now();
  // Per mode: the ceiling is measured beside the same processes as the rows it is compared with.
  const ceilings = await createCeilings({ connections: CONNECTIONS, durationSec: plan.ceilingSec });
  try {
    for (const row of rows) {
      // A slow store may still be answering the previous row's requests: one answer means they are through.
      await get(`${base}${row.paths[0]}`);
      const measured = await load(
        row.paths.map((p) => `${base}${p}`),
        { connections: CONNECTIONS, durationSec: plan.rowSec },
      );
      const ceiling = await ceilings.forBytes(row.bodyBytes);
      results.push({
        mode: plan.mode,
        row,
        load: measured,
        ceiling: { bucketBytes: ceiling.bucketBytes, reqPerSec: ceiling.result.reqPerSec },
        ratio: measured.reqPerSec / ceiling.result.reqPerSec,
        targetRatio: STRICT.has(row.label) ? STRICT_RATIO : RATIO,
        p99Target: plan.mode === 'embedded' ? P99_MS : undefined,
      });
    }
  } finally {
    await ceilings.close();
  }
  const measureS = (performance.now() - measuring) / 1000;
  const buckets = [...ceilings.measured()].sort((a, b) => a[0] - b[0]);
  const pages = rows.filter((r) => r.pages).map((r) => `${r.template} ${r.pages}`);
  notes.push(
    `${plan.mode}: ${rows.length} rows from ${new Set(rows.map((r) => r.template)).size} operations, ` +
      `ids and pages chosen in ${fmt(planS)} s, measured in ${fmt(measureS)} s (ceilings included); ids rotated per row: ` +
      rows.map((r) => `${r.label} ${r.paths.length}`).join(', '),
    `${plan.mode}: deep pages (the last full page of each list, page numbers of the total pages): ${pages.join('; ')}`,
  );
  notes.push(
    `${plan.mode}: ceilings by body size: ${buckets.map(([b, rps]) => `${b} B ${fmt(rps)} req/s`).join(', ')}`,
  );
  const dropped = rows.filter((r) => r.dropped > 0).map((r) => `${r.label} ${r.dropped} (${r.statuses ?? '?'})`);
  if (dropped.length > 0)
    notes.push(`${plan.mode}: real ids left out for not answering 2xx when probed: ${dropped.join(', ')}`);
  const viaNode = rows.filter((r) => r.callsNode && r.kind !== 'deep').map((r) => r.label);
  if (viaNode.length > 0)
    notes.push(`${plan.mode}: these ask the chain node (the devnet) as they answer: ${viaNode.join(', ')}`);
  return results;
}

/** Polls /api/chain until the history is indexed and the index has reached the node's head. */
async function waitIndexed(base: string, service: Service, history: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null || service.child.signalCode !== null)
      throw new Error(
        `${service.name} exited (${service.child.exitCode ?? service.child.signalCode}):\n${service.output()}`,
      );
    try {
      const chain = await readJson(`${base}/api/chain`, Chain);
      last = `localBlock ${chain.localBlock}, mainnetBlock ${chain.mainnetBlock}`;
      if (chain.localBlock >= history && chain.localBlock >= chain.mainnetBlock - 2) return chain.localBlock;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(500);
  }
  throw new Error(`${service.name}: not indexed within ${timeoutMs} ms (${last}):\n${service.output()}`);
}

export async function indexedHeight(base: string): Promise<number> {
  return (await readJson(`${base}/api/chain`, Chain)).localBlock;
}

const SERVER_KEYS = ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'] as const;

/** A mode's rows, and how many blocks were indexed while they were measured. */
interface ModeResult {
  results: Result[];
  liveBlocks: number;
}

async function runEmbedded(plan: Plan, notes: string[]): Promise<ModeResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-api-'));
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEVNET_HISTORY_BLOCKS: String(plan.historyBlocks),
    DEVNET_BLOCK_INTERVAL_MS: '2000',
    LOG_LEVEL: 'warn',
  };
  for (const key of SERVER_KEYS) delete env[key];
  const started = performance.now();
  const explorer = launch('explorer', ['services/explorer/src/main.ts'], env);
  try {
    const base = `http://127.0.0.1:${port}`;
    const height = await waitIndexed(base, explorer, plan.historyBlocks, plan.readyTimeoutMs);
    const readyS = (performance.now() - started) / 1000;
    const results = await measureApi(base, plan, notes);
    const after = await indexedHeight(base);
    notes.unshift(
      `embedded: services/explorer (npm start) on file log + SQLite, devnet history ${plan.historyBlocks} blocks, ` +
        `a live block every 2 s; indexed to ${height} in ${fmt(readyS)} s, then ${after - height} live blocks ` +
        `indexed while under load (height ${after} at the end)`,
    );
    return { results, liveBlocks: after - height };
  } finally {
    await stop(explorer);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function runDistributed(plan: Plan, notes: string[]): Promise<ModeResult | undefined> {
  const infra = readEnvFile(join(ROOT, '.infra/env'));
  const mongo = pickMongo(infra);
  const missing = ['KAFKA_BROKERS', 'REDIS_URL'].filter((k) => !infra[k]);
  if (!mongo || missing.length > 0) {
    notes.push(`distributed: skipped, .infra/env lacks ${[...missing, ...(mongo ? [] : ['MONGO_URL'])].join(', ')}`);
    return undefined;
  }
  const run = `bench${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'mtc-bench-api-'));
  const port = await freePort();
  const isolated = {
    TOPIC_PREFIX: `${run}.`,
    MONGO_DATABASE: run,
    REDIS_PREFIX: `${run}:`,
    PROJECTOR_GROUP: `${run}-projector`,
    KAFKA_CLIENT_ID: run,
  };
  const env: Record<string, string | undefined> = {
    ...process.env,
    KAFKA_BROKERS: infra['KAFKA_BROKERS'],
    MONGO_URL: mongo.url,
    REDIS_URL: infra['REDIS_URL'],
    ...isolated,
    API_PROCESSES: '2',
    PORT: String(port),
    HOST: '127.0.0.1',
    DEVNET_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    DEVNET_HISTORY_BLOCKS: String(plan.historyBlocks),
    DEVNET_BLOCK_INTERVAL_MS: '2000',
    LOG_LEVEL: 'warn',
  };
  const started = performance.now();
  const stack = launch('start-distributed', ['scripts/start-distributed.ts'], env);
  try {
    const base = `http://127.0.0.1:${port}`;
    const height = await waitIndexed(base, stack, plan.historyBlocks, plan.readyTimeoutMs);
    const readyS = (performance.now() - started) / 1000;
    const results = await measureApi(base, plan, notes);
    const after = await indexedHeight(base);
    const names = /started (.+); API on/.exec(stack.output())?.[1]?.split(', ') ?? [];
    const apis = names.filter((n) => /^api\b/.test(n)).length;
    notes.unshift(
      `distributed: scripts/start-distributed.ts on Kafka ${infra['KAFKA_BROKERS']}, MongoDB ${mongo.url} ` +
        `(${mongo.key} of .infra/env), Redis; ${apis} API process${apis === 1 ? '' : 'es'} ` +
        `(API_PROCESSES=2 asked${apis < 2 ? ', not honoured by this start-distributed' : ''}; started: ${names.join(', ')}); ` +
        `topics, database, key prefix and group ${run}; devnet history ${plan.historyBlocks} blocks, a live block every ` +
        `2 s; indexed to ${height} in ${fmt(readyS)} s, ${after - height} live blocks indexed while under load`,
    );
    return { results, liveBlocks: after - height };
  } finally {
    await stop(stack);
    await rm(dataDir, { recursive: true, force: true });
    // The run's database goes; its topics stay until the servers are reset (npm run infra:down).
    const store = await openReadStore(
      AdapterConfigSchema.parse({ MONGO_URL: mongo.url, MONGO_DATABASE: isolated.MONGO_DATABASE }),
    ).catch(() => undefined);
    await store?.drop().catch(() => {});
    await store?.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Rows of the section.

function toMeasures(results: readonly Result[]): Measure[] {
  const rows: Measure[] = [];
  for (const r of results) {
    const name = `api ${r.mode} GET ${r.row.label}`;
    const errors = r.load.errors + r.load.non2xx;
    rows.push(
      {
        name: `${name} req/s`,
        value: r.load.reqPerSec,
        unit: 'req/s',
        ceiling: r.ceiling.reqPerSec,
        ratio: r.ratio,
        target: `ratio >= ${r.targetRatio.toFixed(2)}`,
        met: r.ratio >= r.targetRatio,
      },
      { name: `${name} p50`, value: r.load.p50, unit: 'ms' },
      {
        name: `${name} p99`,
        value: r.load.p99,
        unit: 'ms',
        ...(r.p99Target === undefined ? {} : { target: `<= ${r.p99Target} ms`, met: r.load.p99 <= r.p99Target }),
      },
      // A run with no answer at all has no errors either: it is not a pass.
      {
        name: `${name} errors`,
        value: errors,
        unit: 'requests',
        target: '= 0',
        met: errors === 0 && r.load.requests > 0,
      },
    );
  }
  for (const [mode, template, first, deep] of deepPairs(results)) {
    const ratio = deep.load.p50 / first.load.p50;
    rows.push({
      name: `api ${mode} GET ${template} deep/page-1 p50`,
      value: ratio,
      unit: 'x',
      ratio,
      target: `<= ${DEEP_P50}`,
      met: ratio <= DEEP_P50,
    });
  }
  return rows;
}

function deepPairs(results: readonly Result[]): [Plan['mode'], string, Result, Result][] {
  const pairs: [Plan['mode'], string, Result, Result][] = [];
  for (const deep of results.filter((r) => r.row.kind === 'deep')) {
    const first = results.find(
      (r) => r.mode === deep.mode && r.row.template === deep.row.template && r.row.kind === 'page 1',
    );
    if (first) pairs.push([deep.mode, deep.row.template, first, deep]);
  }
  return pairs;
}

async function run(options: BenchOptions): Promise<{ section: SectionResult; results: Result[] }> {
  const notes: string[] = [];
  const results: Result[] = [];
  const failed: Plan['mode'][] = [];
  const live: Measure[] = [];
  process.on('exit', killAllNow);
  try {
    for (const plan of plans(options)) {
      const started = performance.now();
      const part = plan.mode === 'embedded' ? runEmbedded : runDistributed;
      try {
        const measured = await part(plan, notes);
        if (measured) {
          results.push(...measured.results);
          // The issue asks for the API under load *while* blocks are indexed: a chain that cut no
          // block meanwhile (the devnet's history may end in the future) measured something else.
          live.push({
            name: `api ${plan.mode} blocks indexed while under load`,
            value: measured.liveBlocks,
            unit: 'blocks',
            target: '> 0',
            met: measured.liveBlocks > 0,
          });
        }
      } catch (error) {
        // One mode failing (a server of .infra/env down, say) still reports the other, and says why.
        failed.push(plan.mode);
        const message = error instanceof Error ? error.message : String(error);
        notes.push(`${plan.mode}: FAILED: ${message.slice(0, 2_000)}`);
      }
      notes.push(`${plan.mode}: ${fmt((performance.now() - started) / 1000)} s in all`);
    }
    notes.push(
      `load: autocannon, ${CONNECTIONS} connections, ${plans(options)[0]!.rowSec} s per row after a ` +
        `${plans(options)[0]!.warmupSec} s warm-up on the whole mix, in a worker thread of the bench process; ` +
        `ids rotate over all connections; p50/p99 are exact over the 2xx answers (NaN: none came back in the run)`,
      `ceiling: a bare node:http server (child process) answering a fixed JSON body, measured once per mode and ` +
        `power-of-two body-size bucket at the bucket's lower bound (never a larger body than the API's) and ` +
        `reused for every row in the bucket (listed per mode above)`,
      `targets: ratio >= ${STRICT_RATIO} for ${[...STRICT].join(', ')}; >= ${RATIO} for the rest; p99 <= ${P99_MS} ms ` +
        `embedded; no errors or non-2xx; deep page p50 <= ${DEEP_P50}x page 1`,
    );
  } finally {
    await Promise.all([...running].map((s) => stop(s)));
    process.off('exit', killAllNow);
  }
  const rows = [
    ...live,
    ...toMeasures(results),
    ...failed.map((mode) => ({ name: `api ${mode} measured`, value: 0, unit: 'runs', target: '= 1', met: false })),
  ];
  return { section: { section: 'api under load', rows, notes }, results };
}

const section: Section = async (options) => (await run(options)).section;
export default section;

// ---------------------------------------------------------------------------------------------
// The devnet's own serving rate: the ceiling of backfill.

export interface NodeCeilingOptions {
  connections?: number;
  durationSec: number;
  /** Blocks sampled (each with its transactions) for the request mix. Default 64. */
  sampleBlocks?: number;
}

export interface NodeCeiling {
  /** Block requests served per second, within the follower's mix. */
  blocksPerSec: number;
  /** Transaction requests served per second, within the same mix. */
  txPerSec: number;
  reqPerSec: number;
  load: LoadResult;
}

/**
 * Loads a node with what the follower asks of it: `GET /block/{n}` of existing heights, each
 * followed by `GET /transaction/{id}` of every transaction it lists (chain-source.ts), in that mix.
 * Heights are random over the whole chain, so a node's cache of recent blocks does not flatter it.
 */
export async function nodeCeiling(nodeUrl: string, options: NodeCeilingOptions): Promise<NodeCeiling> {
  const base = nodeUrl.replace(/\/+$/, '');
  const head = Number((await (await fetch(`${base}/block`)).text()).trim());
  if (!Number.isSafeInteger(head) || head < 1) throw new Error(`node at ${base} reports height ${head}`);
  const random = createRandom(2);
  const heights = [...new Set(Array.from({ length: options.sampleBlocks ?? 64 }, () => 1 + random(head)))];
  const paths: string[] = [];
  let blocks = 0;
  let txs = 0;
  for (const height of heights) {
    const res = await fetch(`${base}/block/${height}`);
    const block = RawBlock.parse(JSON.parse(await res.text()));
    paths.push(`${base}/block/${height}`);
    blocks++;
    for (const tx of block.transaction) {
      paths.push(`${base}/transaction/${encodeURIComponent(tx.id)}`);
      txs++;
    }
  }
  const result = await load(paths, {
    connections: options.connections ?? CONNECTIONS,
    durationSec: options.durationSec,
  });
  const share = result.reqPerSec / paths.length;
  return { blocksPerSec: share * blocks, txPerSec: share * txs, reqPerSec: result.reqPerSec, load: result };
}

// ---------------------------------------------------------------------------------------------
// Standalone.

function printResults(results: readonly Result[], section: SectionResult): void {
  // The rows about the run itself (blocks indexed meanwhile, a mode that failed).
  printTable(
    ['check', 'value', 'target', 'met'],
    section.rows
      .filter((r) => r.unit === 'blocks' || r.unit === 'runs')
      .map((r) => [r.name, r.value, r.target ?? '', r.met ? 'yes' : 'NO']),
  );
  printTable(
    ['mode', 'GET', 'body B', 'req/s', 'ceiling', 'ratio', 'target', 'p50 ms', 'p99 ms', 'errors', 'met'],
    results.map((r) => {
      const errors = r.load.errors + r.load.non2xx;
      const met =
        r.ratio >= r.targetRatio &&
        errors === 0 &&
        r.load.requests > 0 &&
        (r.p99Target === undefined || r.load.p99 <= r.p99Target);
      return [
        r.mode,
        `${r.row.label}${r.row.callsNode ? ' (node)' : ''}`,
        Math.round(r.row.bodyBytes),
        r.load.reqPerSec,
        r.ceiling.reqPerSec,
        r.ratio,
        `>= ${r.targetRatio.toFixed(2)}${r.p99Target === undefined ? '' : `, p99 <= ${r.p99Target}`}`,
        r.load.p50,
        r.load.p99,
        errors,
        met ? 'yes' : 'NO',
      ];
    }),
  );
  printTable(
    ['mode', 'list', 'p50 page 1', 'p50 deep', 'deep/page 1', 'target', 'met'],
    deepPairs(results).map(([mode, template, first, deep]) => {
      const ratio = deep.load.p50 / first.load.p50;
      return [mode, template, first.load.p50, deep.load.p50, ratio, `<= ${DEEP_P50}`, ratio <= DEEP_P50 ? 'yes' : 'NO'];
    }),
  );
  for (const note of section.notes) console.log(`- ${note}`);
}

if (import.meta.main) {
  const options: BenchOptions = {
    quick: process.argv.includes('--quick'),
    distributed: process.argv.includes('--distributed') || process.argv.includes('--distributed-only'),
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      killAllNow();
      process.exit(130);
    });
  const started = performance.now();
  const { section: result, results } = await run(options);
  printResults(results, result);
  console.log(`\napi under load: ${fmt((performance.now() - started) / 1000)} s`);
  // A mode that could not be measured fails the run; targets missed are findings, not failures.
  if (result.rows.some((r) => r.unit === 'runs')) process.exitCode = 1;
}
