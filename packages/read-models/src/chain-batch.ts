import type { BalanceEntry, BlockEvent } from '@mtc/domain';
import type { BlockTxCount, Collection, Filter, Write } from '@mtc/ports';
import { headWrite, projectFacts, txCounts, type StatsOptions } from './chain/project.ts';
import type { HeadDoc } from './chain/docs.ts';
import { holderId, projectHolders, type HolderDoc, type HolderStatsDoc, type WalletWrite } from './holders/holders.ts';
import {
  projectRanked,
  rankListsOf,
  rankPagesToRead,
  type RankDirDoc,
  type RankMove,
  type RankPageDoc,
} from './holders/ranked.ts';
import {
  collectionKeys,
  itemWrites,
  projectCollectionHolders,
  type CollectionHolderDoc,
  type CollectionStatsDoc,
  type ItemOwnerDoc,
  type ItemWrite,
} from './nfts/collection-holders.ts';
import {
  nftHolderId,
  projectNftHolders,
  type Mrc402WalletWrite,
  type NftHolderDoc,
  type NftHolderStatsDoc,
} from './nfts/holders.ts';
import type { Models } from './registry.ts';
import { projectBlockState } from './state.ts';
import type { WalletDoc } from './wallets/wallets.ts';
import { addressTxItems, addressTxs } from './series/address-txs.ts';
import { counterId, projectSeries, type Appended, type SeriesCounterDoc } from './series/series.ts';
import { nftActivity, nftActivityItems, nftListItems, nftLists } from './series/nft-activity.ts';
import { tokenHistory, tokenHistoryItems } from './series/token-history.ts';
import { tokenTxItems, tokenTxs } from './series/token-txs.ts';

/**
 * The block topic's projection: everything that needs total chain order or the previous state —
 * facts, holders and their aggregates, the numbered series, the head. A batch becomes phases of
 * writes, each durable before the next starts (the order is what keeps aggregates exact, see
 * `projectHolders` and `projectSeries`):
 *
 *   1. facts (blocks, transactions, daily counts, the holding-change log), series rows, the
 *      records as written (wallets, tokens, NFT records: put if newer, from the blocks' state writes,
 *      so they move with the head rather than with another consumer), new ranked-list pages
 *   2. aggregates: series counters, holder stats (MRC-010, MRC-402, MRC-400 collections), ranked
 *      list directories
 *   3. holder rows, deletion of the ranked-list pages replaced
 *   4. MRC-401 item owners (what the collection holder deltas are derived from)
 *   5. the head
 *
 * Blocks at or below the stored head are skipped: the head is written last, so they are complete.
 */
export interface ChainPrior {
  head: HeadDoc | null;
  holders: HolderDoc[];
  holderStats: HolderStatsDoc[];
  nftHolders: NftHolderDoc[];
  nftHolderStats: NftHolderStatsDoc[];
  itemOwners: ItemOwnerDoc[];
  collectionHolders: CollectionHolderDoc[];
  collectionStats: CollectionStatsDoc[];
  counters: SeriesCounterDoc[];
  /** The ranked lists' directories and pages the batch's moves touch. */
  ranked: { dirs: RankDirDoc[]; pages: RankPageDoc[] };
  /** The stored wallets of the batch's addresses (what `scopes` were derived from). */
  wallets?: WalletDoc[];
  /**
   * Per address of the batch, the assets its writes change, when only those holder rows were read
   * (see `walletScopes`); an address not in it had every stored row read. Absent: every row.
   */
  scopes?: ReadonlyMap<string, WalletScope>;
  /** What loadChainPrior derived from the batch; projectChainBatch reuses it for the same events. */
  plan?: ChainPlan;
  /** The holdings loadChainPrior projected from this prior (for the ranked moves); reused likewise. */
  holdings?: Holdings;
}

type Holdings = ReturnType<typeof projectAllHoldings>;

/** The three holder models' writes and ranked-list moves for a batch. */
function projectAllHoldings(plan: ChainPlan, prior: ChainPrior) {
  const wallets = scoped(plan.wallets, prior.scopes);
  const holders = projectHolders(wallets, { rows: prior.holders, stats: prior.holderStats });
  const nftHolders = projectNftHolders(wallets, { rows: prior.nftHolders, stats: prior.nftHolderStats });
  const collections = projectCollectionHolders(plan.nftItems, {
    owners: prior.itemOwners,
    rows: prior.collectionHolders,
    stats: prior.collectionStats,
  });
  const moves: RankMove[] = [...holders.moves, ...nftHolders.moves, ...collections.moves];
  return { holders, nftHolders, collections, moves };
}

/** The assets a batch's writes of one address change: MRC-010 token ids and MRC-402 ids. */
export interface WalletScope {
  tokens: ReadonlySet<number>;
  nfts: ReadonlySet<string>;
}

/** A batch's blocks above the head, its wallet writes and its series items, derived once. */
interface ChainPlan {
  events: readonly BlockEvent[];
  head: HeadDoc | null;
  todo: BlockEvent[];
  wallets: (WalletWrite & Mrc402WalletWrite)[];
  nftItems: ItemWrite[];
  items: Appended<never>[][];
}

function planChain(events: readonly BlockEvent[], head: HeadDoc | null): ChainPlan {
  const todo = unapplied(events, head);
  return {
    events,
    head,
    todo,
    wallets: walletWrites(todo),
    nftItems: itemWrites(todo),
    items: SERIES.map((s) => s.items(todo) as never[]),
  };
}

export interface ChainBatch {
  phases: Write[][];
  /** Per-block transaction counts for the today-so-far counters. */
  counts: BlockTxCount[];
}

function walletWrites(events: readonly BlockEvent[]): (WalletWrite & Mrc402WalletWrite)[] {
  const out: (WalletWrite & Mrc402WalletWrite)[] = [];
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes)
        if (w.kind === 'wallet')
          out.push({ pos: w.pos, address: w.key, balances: w.wallet.balances, mrc402: w.wallet.mrc402 });
  return out.sort((a, b) => (a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : 0));
}

const SERIES = [
  { model: addressTxs, items: addressTxItems },
  { model: tokenTxs, items: tokenTxItems },
  { model: tokenHistory, items: tokenHistoryItems },
  { model: nftActivity, items: nftActivityItems },
  { model: nftLists, items: nftListItems },
] as const;

export function unapplied(events: readonly BlockEvent[], head: HeadDoc | null): BlockEvent[] {
  const after = head?.height ?? 0;
  return events.filter((e) => e.height > after);
}

/**
 * A chain wallet write lists every asset of the wallet, so a whale's write lists hundreds that it
 * did not change. The holder rows a batch must read are those of the assets that differ between
 * the stored wallet and the batch's writes of it, one after another: any other asset's row stays
 * as it is. That holds while the stored wallet is the one from before the batch — records are put
 * in the first phase, rows in the third, so a batch that a crashed run half-wrote finds its own
 * later write stored: such an address (stored position at or past its first write here) is left
 * out, and every row it has is read, as for an address with no stored wallet scope at all.
 */
export function walletScopes(
  stored: readonly WalletDoc[],
  writes: readonly (WalletWrite & Mrc402WalletWrite)[],
): Map<string, WalletScope> {
  const versions = new Map<string, { balances: readonly BalanceEntry[]; mrc402: WalletDoc['mrc402'] }[]>();
  const first = new Map<string, string>();
  for (const w of writes) {
    if (!first.has(w.address)) first.set(w.address, w.pos);
    let v = versions.get(w.address);
    if (!v) versions.set(w.address, (v = []));
    v.push(w);
  }
  const storedOf = new Map(stored.map((d) => [d._id, d]));
  const scopes = new Map<string, WalletScope>();
  for (const [address, written] of versions) {
    const prev = storedOf.get(address);
    if (prev && prev.pos >= first.get(address)!) continue;
    const chain = [prev ?? { balances: [], mrc402: null }, ...written];
    const byToken = chain.map((v) => entriesByToken(v.balances));
    const byNft = chain.map((v) => nftsById(v.mrc402));
    const tokens = new Set<number>();
    const nfts = new Set<string>();
    for (let i = 1; i < chain.length; i++) {
      differing(byToken[i - 1]!, byToken[i]!, tokens);
      differing(byNft[i - 1]!, byNft[i]!, nfts);
    }
    scopes.set(address, { tokens, nfts });
  }
  return scopes;
}

function entriesByToken(balances: readonly BalanceEntry[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of balances)
    out.set(e.token, `${out.get(e.token) ?? ''}${e.balance},${e.unlockdate},${e.saleamount},${e.auctionamount};`);
  return out;
}

function nftsById(mrc402: WalletDoc['mrc402']): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, h] of Object.entries(mrc402 ?? {})) out.set(id, `${h.balance},${h.saleamount},${h.auctionamount}`);
  return out;
}

function differing<K>(a: ReadonlyMap<K, string>, b: ReadonlyMap<K, string>, into: Set<K>): void {
  for (const [k, v] of a) if (b.get(k) !== v) into.add(k);
  for (const k of b.keys()) if (!a.has(k)) into.add(k);
}

/** The batch's wallet writes cut to the assets in scope (addresses without a scope stay whole). */
function scoped(
  writes: readonly (WalletWrite & Mrc402WalletWrite)[],
  scopes: ReadonlyMap<string, WalletScope> | undefined,
): (WalletWrite & Mrc402WalletWrite)[] {
  if (!scopes) return [...writes];
  return writes.map((w) => {
    const scope = scopes.get(w.address);
    if (!scope) return w;
    const mrc402 = w.mrc402 && Object.fromEntries(Object.entries(w.mrc402).filter(([id]) => scope.nfts.has(id)));
    return { ...w, balances: w.balances.filter((e) => scope.tokens.has(e.token)), mrc402 };
  });
}

/** Reads what a batch's projection needs from the store. */
export async function loadChainPrior(models: Models, events: readonly BlockEvent[]): Promise<ChainPrior> {
  const head = await models.head.get('indexed');
  const plan = planChain(events, head);
  const addresses = [...new Set(plan.wallets.map((w) => w.address))];
  const wallets = addresses.length > 0 ? await models.wallets.getMany(addresses) : [];
  const scopes = walletScopes(wallets, plan.wallets);
  const whole = addresses.filter((a) => !scopes.has(a));
  const writes = scoped(plan.wallets, scopes);
  const rowIds = (idOf: (scope: WalletScope, address: string) => string[]): string[] =>
    [...scopes].flatMap(([address, scope]) => idOf(scope, address));
  const holderIds = rowIds((s, a) => [...s.tokens].map((t) => holderId(t, a)));
  const nftHolderIds = rowIds((s, a) => [...s.nfts].map((id) => nftHolderId(id, a)));
  const counterIds = new Set<string>();
  SERIES.forEach((s, i) => {
    for (const item of plan.items[i]!) counterIds.add(counterId(s.model.name, item.key));
  });
  const items = [...new Set(plan.nftItems.map((w) => w.item))];
  const [rows, nftRows, counters, itemOwners] = await Promise.all([
    rowsOf(models.holders, holderIds, whole),
    rowsOf(models.nftHolders, nftHolderIds, whole),
    counterIds.size > 0 ? models.seriesCounters.getMany([...counterIds]) : Promise.resolve([]),
    items.length > 0 ? models.itemOwners.getMany(items) : Promise.resolve([]),
  ]);
  const keys = collectionKeys(plan.nftItems, itemOwners);
  const [collectionHolders, collectionStats] = await Promise.all([
    keys.rows.length > 0 ? models.collectionHolders.getMany(keys.rows) : Promise.resolve([]),
    keys.collections.length > 0 ? models.collectionStats.getMany(keys.collections) : Promise.resolve([]),
  ]);
  const tokens = new Set(rows.map((r) => String(r.token)));
  const nftIds = new Set(nftRows.map((r) => r.nftId));
  // Every asset a write lists in scope (a superset of those it changes): one stats read covers them.
  for (const w of writes) {
    for (const e of w.balances) tokens.add(String(e.token));
    for (const id of Object.keys(w.mrc402 ?? {})) nftIds.add(id);
  }
  const [holderStats, nftHolderStats] = await Promise.all([
    tokens.size > 0 ? models.holderStats.getMany([...tokens]) : Promise.resolve([]),
    nftIds.size > 0 ? models.nftHolderStats.getMany([...nftIds]) : Promise.resolve([]),
  ]);
  const prior: ChainPrior = {
    ranked: { dirs: [], pages: [] },
    head,
    holders: rows,
    holderStats,
    nftHolders: nftRows,
    nftHolderStats,
    itemOwners,
    collectionHolders,
    collectionStats,
    counters,
    wallets,
    scopes,
    plan,
  };
  // The ranked lists' pages are found through their directories: two reads after the rows.
  const holdings = projectAllHoldings(plan, prior);
  const lists = rankListsOf(holdings.moves);
  const dirs = lists.length > 0 ? await models.rankDirs.getMany(lists) : [];
  const pageIds = rankPagesToRead(holdings.moves, dirs);
  const pages = pageIds.length > 0 ? await models.rankPages.getMany(pageIds) : [];
  return { ...prior, ranked: { dirs, pages }, holdings };
}

/** Rows by id, and every row of the `whole` addresses. */
async function rowsOf<R extends { _id: string; address: string }>(
  c: Collection<R>,
  ids: readonly string[],
  whole: readonly string[],
): Promise<R[]> {
  const [byId, byAddress] = await Promise.all([
    ids.length > 0 ? c.getMany(ids) : Promise.resolve([]),
    whole.length > 0 ? c.find({ address: { $in: [...whole] } } as Filter<R>) : Promise.resolve([]),
  ]);
  return [...byId, ...byAddress];
}

export function projectChainBatch(events: readonly BlockEvent[], prior: ChainPrior, options: StatsOptions): ChainBatch {
  const plan =
    prior.plan?.events === events && prior.plan.head === prior.head ? prior.plan : planChain(events, prior.head);
  const { todo } = plan;
  const last = todo.at(-1);
  if (!last) return { phases: [], counts: [] };
  const stored = new Map(prior.counters.map((c) => [c._id, c]));
  const facts = projectFacts(todo, options);
  const seriesRows: Write[] = [];
  const seriesCounters: Write[] = [];
  SERIES.forEach((s, i) => {
    const { rows, counters } = projectSeries(s.model as never, plan.items[i]!, stored);
    for (const w of rows) seriesRows.push(w); // no spread: a large batch has 100,000s of rows
    for (const w of counters) seriesCounters.push(w);
  });
  const { holders, nftHolders, collections, moves } =
    plan === prior.plan && prior.holdings ? prior.holdings : projectAllHoldings(plan, prior);
  const ranked = projectRanked(moves, prior.ranked);
  return {
    phases: [
      [
        ...facts,
        ...projectBlockState(todo),
        ...holders.changes,
        ...nftHolders.changes,
        ...collections.changes,
        ...seriesRows,
        ...ranked.pages,
      ],
      [...seriesCounters, ...holders.stats, ...nftHolders.stats, ...collections.stats, ...ranked.dirs],
      [...holders.rows, ...nftHolders.rows, ...collections.rows, ...ranked.retired],
      collections.owners,
      [headWrite(last)],
    ],
    counts: txCounts(todo),
  };
}
