/**
 * Crawls two explorer APIs that index the same chain and compares every answer: for a change to the
 * indexer that must leave what the API says as it was (docs/BENCHMARKS.md, "Indexing at chain
 * scale"). Both must be caught up on a chain that stands still (a devnet with no live blocks).
 *
 *   ./node_modules/.bin/node scripts/compare-apis.ts http://127.0.0.1:3991 http://127.0.0.1:3992
 *
 * Discovery follows what answer A lists: every page of every list (50 rows a page, the most the API gives), each block,
 * transaction, address, token and NFT named in them, and each one's own lists and exports. Prints
 * the number of URLs compared and each difference (status or body); exits 1 on any difference.
 */
const [baseA, baseB] = process.argv.slice(2);
if (!baseA || !baseB) throw new Error('usage: compare-apis.ts BASE_URL_A BASE_URL_B');

const LIMIT = 50;
const queued = new Set<string>();
const queue: string[] = [];
const differences: string[] = [];
let compared = 0;

const add = (path: string): void => {
  if (queued.has(path)) return;
  queued.add(path);
  queue.push(path);
};

async function get(base: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path}`, { redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

/** Pages 2…last of a list whose page 1 said how many there are. */
function pages(path: string, body: Record<string, unknown>): void {
  const total =
    typeof body['totalPages'] === 'number'
      ? body['totalPages']
      : typeof body['total'] === 'number'
        ? Math.ceil(body['total'] / LIMIT)
        : 0;
  const sep = path.includes('?') ? '&' : '?';
  for (let p = 2; p <= total; p++) add(`${path}${sep}page=${p}&limit=${LIMIT}`);
}

/** What an answer names: heights, transaction ids, addresses, token ids, NFT ids. */
function discover(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) discover(v);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' && /^MT[0-9a-zA-Z]{38}$/.test(v)) address(v);
    else if (typeof v === 'string' && /^MRC40[012]_/.test(v)) nft(v);
    else if ((key === 'height' || key === 'blockNum') && typeof v === 'number') add(`/api/block/${v}`);
    else if ((key === 'id' || key === 'txId' || key === 'hash') && typeof v === 'string' && /^[0-9a-f]{64}$/.test(v))
      add(`/api/tx/${v}`);
    else if ((key === 'tokenId' || key === 'token') && (typeof v === 'number' || /^\d+$/.test(String(v))))
      token(Number(v));
    else discover(v);
  }
}

function address(id: string): void {
  add(`/api/address/${id}`);
  add(`/api/address/${id}/txs?page=1&limit=${LIMIT}`);
  add(`/api/export/address/${id}/activity?format=json`);
}

function token(id: number): void {
  add(`/api/token/${id}`);
  add(`/api/token/${id}/holders?page=1&limit=${LIMIT}`);
  add(`/api/token/${id}/txs?page=1&limit=${LIMIT}`);
  add(`/api/token/${id}/history`);
  add(`/api/token/${id}/locks`);
  add(`/api/export/token/${id}/holders?format=json`);
}

function nft(id: string): void {
  const q = encodeURIComponent(id);
  add(`/api/nft/${q}`);
  add(`/api/nft-holders?id=${q}&page=1&limit=${LIMIT}`);
  add(`/api/nft-items?id=${q}&page=1&limit=${LIMIT}`);
  add(`/api/nft-tx?id=${q}&page=1&limit=${LIMIT}`);
  add(`/api/nft-history?id=${q}`);
}

for (const path of [
  '/api/chain',
  '/api/tx-stats',
  '/api/mtc-stats',
  `/api/blocks?page=1&limit=${LIMIT}`,
  `/api/transactions?page=1&limit=${LIMIT}`,
  `/api/tokens?page=1&limit=${LIMIT}`,
  `/api/nfts?page=1&limit=${LIMIT}`,
])
  add(path);

const CONCURRENCY = 16;
let next = 0;
async function worker(): Promise<void> {
  while (next < queue.length) {
    const path = queue[next++]!;
    const [a, b] = await Promise.all([get(baseA!, path), get(baseB!, path)]);
    compared++;
    if (a.status !== b.status) differences.push(`${path}: status ${a.status} and ${b.status}`);
    else if (a.text !== b.text)
      differences.push(`${path}: bodies differ\n  A ${a.text.slice(0, 300)}\n  B ${b.text.slice(0, 300)}`);
    if (a.status !== 200 || !a.text.startsWith('{') || path.startsWith('/api/export/')) continue;
    const body = JSON.parse(a.text) as Record<string, unknown>;
    if (path.includes('page=1&')) pages(path.replace(/[?&]page=1&limit=\d+/, ''), body);
    discover(body);
  }
}
// Workers pick up what others discover until the queue stays empty.
for (let round = 0; next < queue.length; round++)
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));

const routes = new Map<string, number>();
for (const path of queued) {
  const route = path
    .replace(/\?.*$/, '')
    .replace(/\/(MT[0-9a-zA-Z]{38}|[0-9a-f]{64}|\d+|MRC40[^/]*)(?=\/|$)/g, '/{id}');
  routes.set(route, (routes.get(route) ?? 0) + 1);
}
console.log([...routes].map(([r, n]) => `${r} ${n}`).join(', '));
console.log(`${compared} URLs compared, ${differences.length} differences`);
for (const d of differences.slice(0, 50)) console.log(d);
process.exitCode = differences.length > 0 ? 1 : 0;
