/**
 * A crawler that reads the API while the index moves and checks that every answer is true as of
 * the one height it names in X-Indexed-Height (explorer-api.md's fields; rules from "One height per
 * answer"):
 *
 * - within an answer: page 1 of a list holds min(limit, total) rows; a holder list that fits one
 *   page sums to `total_balance`; `/blocks` page 1 starts at `currentBlock` = the stamped height;
 * - across two answers stamped with the same height: a token holder row's balance = that token's
 *   balance in `/address`; an MRC-402 holder row = the holding in `/address` `nfts`, and an MRC-400
 *   collection holder's item count = its items in `/address` `nfts`;
 * - across heights: anything listed at H (a block, a transaction, an address, a token, an NFT)
 *   answers 200 at every height ≥ H, and /search finds it there (a height, a transaction hash, an
 *   address or an NFT ID redirects to its page);
 * - every other endpoint, once a round, with ids the crawl has seen (/chain, /tx-stats, raw blocks
 *   and transactions, templates, token history and locks, NFT history and transactions, images):
 *   never a 5xx, and its own within-answer rule where the spec gives one (/chain starts at the
 *   stamped height; a list without paging holds `total` rows).
 *
 * It counts what it compared, so a run that compared nothing cannot pass for a clean one.
 */
export interface CrawlReport {
  requests: number;
  /** Within-answer checks made. */
  within: number;
  /** Same-height pairs compared. */
  sameHeight: number;
  /** Later-height lookups whose stamp was at or above the listing's. */
  later: number;
  /** Heights seen in stamps (distinct). */
  heights: number;
  contradictions: string[];
}

interface Stamped<T> {
  status: number;
  height: number;
  body: T;
}

type Holder = { address: string; balance: string };
type NftHolder = { address: string; amount: string; total: string };
type AddressBody = {
  balances: { tokenId: number; balance: string }[];
  nfts: { id: string; balance: string; parent: string }[];
};
type SearchBody = {
  redirect?: string;
  blocks?: { height: number }[];
  transactions?: { id: string }[];
  nfts?: { id: string }[];
  addresses?: { address: string }[];
};
type Page<K extends string, R> = { total: number; page: number; limit: number } & Record<K, R[]>;

const MAX_LISTED = 5_000;
const MAX_CONTRADICTIONS = 50;

export async function crawlWhileIndexing(options: {
  apiUrl: string;
  /** Stop when this resolves true (checked between rounds), or at `maxMs`. */
  until: () => Promise<boolean> | boolean;
  maxMs: number;
  workers?: number;
}): Promise<CrawlReport> {
  const api = `${options.apiUrl}/api`;
  const report: CrawlReport = { requests: 0, within: 0, sameHeight: 0, later: 0, heights: 0, contradictions: [] };
  const heights = new Set<number>();
  /** Path → the lowest height it was listed at, and by what. */
  const listed = new Map<string, { at: number; by: string }>();
  const tokens = new Set<number>([0]);
  const mrc402s = new Set<string>();
  const collections = new Set<string>();
  const addresses = new Set<string>();
  const txIds = new Set<string>();
  const nftIds = new Set<string>();
  /** Listed things /search must find at every later height: the query and the path it redirects to. */
  const searchable = new Map<string, { at: number; redirect: string }>();

  const contradiction = (what: string): void => {
    if (report.contradictions.length < MAX_CONTRADICTIONS) report.contradictions.push(what);
    else report.contradictions[MAX_CONTRADICTIONS - 1] = `… and more (last: ${what})`;
  };
  const list = (path: string, height: number, by: string): void => {
    if (listed.has(path)) return;
    if (listed.size >= MAX_LISTED) listed.delete(listed.keys().next().value!);
    listed.set(path, { at: height, by });
    const [, kind, id] = path.split('/');
    const redirect =
      kind === 'block' || kind === 'tx' ? path : kind === 'address' || kind === 'nft' ? `${path}/tx/1` : undefined;
    if (redirect && id && !searchable.has(id) && searchable.size < MAX_LISTED)
      searchable.set(id, { at: height, redirect });
  };

  async function get<T>(path: string): Promise<Stamped<T>> {
    const res = await fetch(`${api}${path}`);
    report.requests++;
    const height = Number(res.headers.get('x-indexed-height'));
    if (!Number.isInteger(height)) throw new Error(`${path}: no X-Indexed-Height (status ${res.status})`);
    heights.add(height);
    const body = (await res.json()) as T;
    if (res.status >= 500) contradiction(`${path} at ${height}: ${res.status} ${JSON.stringify(body)}`);
    return { status: res.status, height, body };
  }

  /** Page 1 of a list holds min(limit, total) rows. */
  const fullPage = (path: string, r: Stamped<{ total: number; limit: number }>, rows: unknown[]): void => {
    report.within++;
    const want = Math.min(r.body.limit, r.body.total);
    if (rows.length !== want)
      contradiction(
        `${path} at ${r.height}: total ${r.body.total}, limit ${r.body.limit}, page 1 holds ${rows.length}`,
      );
  };
  const sum = (values: string[]): bigint => values.reduce((s, v) => s + BigInt(v.split('.')[0]!), 0n);

  const pick = <T>(set: Set<T>): T | undefined => {
    const all = [...set];
    return all[Math.floor(Math.random() * all.length)];
  };
  const some = <T>(rows: T[], n: number): T[] => [...rows].sort(() => Math.random() - 0.5).slice(0, n);

  async function lists(): Promise<void> {
    const blocks = await get<{ blocks: { height: number }[]; currentBlock: number; totalPages: number }>(
      '/blocks?limit=50',
    );
    if (blocks.status !== 200) return; // a 5xx is a contradiction already (get)
    report.within++;
    const top = blocks.body.blocks[0]?.height ?? 0;
    if (blocks.body.currentBlock !== blocks.height || top !== blocks.height)
      contradiction(`/blocks at ${blocks.height}: currentBlock ${blocks.body.currentBlock}, first row ${top}`);
    if (blocks.body.blocks.length !== Math.min(50, blocks.height))
      contradiction(`/blocks at ${blocks.height}: page 1 holds ${blocks.body.blocks.length}`);
    for (const b of blocks.body.blocks.slice(0, 3)) list(`/block/${b.height}`, blocks.height, '/blocks');

    const txs = await get<{ transactions: { id: string }[]; currentBlock: number }>('/transactions?limit=20');
    if (txs.status !== 200) return;
    report.within++;
    if (txs.body.currentBlock !== txs.height)
      contradiction(`/transactions at ${txs.height}: currentBlock ${txs.body.currentBlock}`);
    for (const t of txs.body.transactions.slice(0, 5)) {
      list(`/tx/${t.id}`, txs.height, '/transactions');
      txIds.add(t.id);
    }

    const tokenList = await get<Page<'items', { token: number }>>('/tokens?limit=50');
    if (tokenList.status !== 200) return;
    fullPage('/tokens', tokenList, tokenList.body.items);
    for (const t of tokenList.body.items) {
      tokens.add(t.token);
      list(`/token/${t.token}`, tokenList.height, '/tokens');
    }

    const nfts = await get<Page<'items', { id: string; protocol: string }>>('/nfts?limit=50');
    if (nfts.status !== 200) return;
    fullPage('/nfts', nfts, nfts.body.items);
    for (const n of nfts.body.items) {
      list(`/nft/${n.id}`, nfts.height, '/nfts');
      nftIds.add(n.id);
      if (n.protocol === 'MRC402') mrc402s.add(n.id);
      if (n.protocol === 'MRC401') collections.add(n.id.split('_').slice(0, 2).join('_'));
    }
  }

  async function tokenHolders(): Promise<void> {
    const token = pick(tokens);
    if (token === undefined) return;
    const path = `/token/${token}/holders?limit=50`;
    const r = await get<Page<'holders', Holder> & { total_balance: string }>(path);
    if (r.status !== 200) return;
    fullPage(path, r, r.body.holders);
    if (r.body.total <= r.body.limit) {
      report.within++;
      const total = sum(r.body.holders.map((h) => h.balance));
      if (total !== BigInt(r.body.total_balance))
        contradiction(`${path} at ${r.height}: rows sum to ${total}, total_balance ${r.body.total_balance}`);
    }
    for (const h of r.body.holders) {
      addresses.add(h.address);
      list(`/address/${h.address}`, r.height, path);
    }
    for (const h of some(r.body.holders, 4)) {
      const a = await get<AddressBody>(`/address/${h.address}`);
      if (a.height !== r.height || a.status !== 200) continue;
      report.sameHeight++;
      const held = a.body.balances.find((b) => b.tokenId === token)?.balance ?? 'none';
      if (held !== h.balance)
        contradiction(`at ${r.height}: ${path} says ${h.address} holds ${h.balance}, /address says ${held}`);
    }
  }

  async function nftHolders(): Promise<void> {
    const kind = Math.random() < 0.5 ? 'mrc402' : 'collection';
    const id = pick(kind === 'mrc402' ? mrc402s : collections);
    if (id === undefined) return;
    const path = `/nft-holders?id=${id}`;
    const r = await get<{ total: number; total_balance: string; holders: NftHolder[] }>(path);
    if (r.status !== 200) return;
    if (r.body.holders.length === r.body.total) {
      report.within++;
      const total = sum(r.body.holders.map((h) => h.total));
      if (total !== sum([r.body.total_balance]))
        contradiction(`${path} at ${r.height}: rows sum to ${total}, total_balance ${r.body.total_balance}`);
    }
    for (const h of some(r.body.holders, 3)) {
      list(`/address/${h.address}`, r.height, path);
      const a = await get<AddressBody>(`/address/${h.address}`);
      if (a.height !== r.height || a.status !== 200) continue;
      report.sameHeight++;
      if (kind === 'mrc402') {
        const held = a.body.nfts.find((n) => n.id === id);
        if (!held || `${held.balance}.0000000000` !== h.amount)
          contradiction(`at ${r.height}: ${path} says ${h.address} holds ${h.amount}, /address says ${held?.balance}`);
      } else {
        const items = a.body.nfts.filter((n) => n.parent === id).length;
        if (BigInt(items) !== sum([h.total]))
          contradiction(`at ${r.height}: ${path} says ${h.address} owns ${h.total} items, /address lists ${items}`);
      }
    }
  }

  async function activity(): Promise<void> {
    const address = pick(addresses);
    if (address !== undefined) {
      const path = `/address/${address}/txs?limit=20`;
      const r = await get<Page<'data', { tx_id: string }>>(path);
      if (r.status === 200) {
        fullPage(path, r, r.body.data);
        for (const d of r.body.data.slice(0, 2)) list(`/tx/${d.tx_id}`, r.height, path);
      }
    }
    const token = pick(tokens);
    if (token !== undefined) {
      const path = `/token/${token}/txs?limit=20`;
      const r = await get<Page<'data', unknown>>(path);
      if (r.status === 200) fullPage(path, r, r.body.data);
    }
    const collection = pick(collections);
    if (collection !== undefined) {
      const path = `/nft-items?id=${collection}&limit=20`;
      const r = await get<Page<'items', { id: string }>>(path);
      if (r.status === 200) {
        fullPage(path, r, r.body.items);
        for (const i of r.body.items.slice(0, 2)) list(`/nft/${i.id}`, r.height, path);
      }
    }
  }

  /** Every endpoint the rounds above do not read: no 5xx, and the spec's within-answer rules. */
  async function sweep(): Promise<void> {
    const chain = await get<{ localBlock: number; blocks: { height: number }[] }>('/chain');
    if (chain.status === 200) {
      report.within++;
      if (chain.body.localBlock !== chain.height || (chain.body.blocks[0]?.height ?? 0) !== chain.height)
        contradiction(
          `/chain at ${chain.height}: localBlock ${chain.body.localBlock}, first block ${chain.body.blocks[0]?.height}`,
        );
    }
    await get('/tx-stats?days=7');
    await get('/mtc-stats');
    await get(`/rawblock/${Math.max(1, Math.floor(Math.random() * chain.height))}`);
    const tx = pick(txIds);
    if (tx !== undefined) {
      await get(`/rawtx/${tx}`);
      await get(`/tx/${tx}/templates`);
    }
    const token = pick(tokens);
    if (token !== undefined) {
      const history = await get<{ total: number; events: unknown[] }>(`/token/${token}/history`);
      if (history.status === 200) {
        report.within++;
        if (history.body.events.length !== history.body.total)
          contradiction(
            `/token/${token}/history at ${history.height}: total ${history.body.total}, ${history.body.events.length} events`,
          );
      }
      await get(`/token/${token}/locks`);
      await bytes(`/v1/token/${token}/image`);
    }
    const nft = pick(nftIds);
    if (nft !== undefined) {
      const parent = nft.split('_').slice(0, 2).join('_');
      const history = await get<{ total: number; history: unknown[] }>(`/nft-history?id=${parent}`);
      if (history.status === 200) {
        report.within++;
        if (history.body.history.length !== history.body.total)
          contradiction(
            `/nft-history?id=${parent} at ${history.height}: total ${history.body.total}, ${history.body.history.length} entries`,
          );
      }
      const path = `/nft-tx?id=${nft}&limit=20`;
      const txsOf = await get<{ total: number; items: unknown[] }>(path);
      if (txsOf.status === 200) fullPage(path, { ...txsOf, body: { ...txsOf.body, limit: 20 } }, txsOf.body.items);
      await bytes(`/v1/nft/${parent}/image`);
    }
    const protocol = Math.random() < 0.5 ? 'MRC401' : 'MRC402';
    const byProtocol = await get<Page<'items', unknown>>(`/nfts?protocol=${protocol}&limit=20`);
    if (byProtocol.status === 200) fullPage(`/nfts?protocol=${protocol}`, byProtocol, byProtocol.body.items);
  }

  /** A binary route (an image): no stamp to check, but never a 5xx. */
  async function bytes(path: string): Promise<void> {
    const res = await fetch(`${api}${path}`);
    report.requests++;
    await res.arrayBuffer();
    if (res.status >= 500) contradiction(`${path}: ${res.status}`);
  }

  /** What was listed at H, searched for at a height ≥ H, redirects to its page. */
  async function searches(): Promise<void> {
    for (const [q, { at, redirect }] of some([...searchable], 3)) {
      const r = await get<SearchBody>(`/search?q=${encodeURIComponent(q)}`);
      if (r.height < at) continue;
      report.later++;
      // One match redirects; a query that names several things (a height that is also a token id)
      // lists them all, this one among them.
      const b = r.body;
      const among =
        b.redirect === redirect ||
        (b.blocks ?? []).some((x) => redirect === `/block/${x.height}`) ||
        (b.transactions ?? []).some((x) => redirect === `/tx/${x.id}`) ||
        (b.nfts ?? []).some((x) => redirect === `/nft/${x.id}/tx/1`) ||
        (b.addresses ?? []).some((x) => redirect === `/address/${x.address}/tx/1`);
      if (r.status !== 200 || !among)
        contradiction(
          `/search?q=${q}: listed at ${at}, answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)} at ${r.height}`,
        );
    }
  }

  async function laterHeights(): Promise<void> {
    const all = [...listed];
    // The newest listings (a wallet made in the last block), and some older ones.
    for (const [path, { at, by }] of [...all.slice(-3), ...some(all, 4)]) {
      const r = await get<unknown>(path);
      if (r.height < at) continue; // another process's older head: the rule is per height
      report.later++;
      if (r.status !== 200) contradiction(`${path}: listed at ${at} by ${by}, answered ${r.status} at ${r.height}`);
    }
  }

  const started = Date.now();
  const worker = async (): Promise<void> => {
    while (Date.now() - started < options.maxMs && !(await options.until())) {
      await lists();
      await tokenHolders();
      await nftHolders();
      await activity();
      await laterHeights();
      await sweep();
      await searches();
    }
  };
  await Promise.all(Array.from({ length: options.workers ?? 4 }, worker));
  report.heights = heights.size;
  return report;
}
