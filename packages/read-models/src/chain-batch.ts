import {
  applyWalletChange,
  walletChange,
  type BlockEvent,
  type WalletChangeWrite,
  type WalletState,
  type WalletVersion,
} from '@mtc/domain';
import type { BlockTxCount, Collection, Filter, Write } from '@mtc/ports';
import { headWrite, projectFacts, txCounts, type StatsOptions } from './chain/project.ts';
import type { HeadDoc } from './chain/docs.ts';
import { BatchValues } from './shared-values.ts';
import { shareLocks } from './holders/changes.ts';
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
import type { ModelSpec } from './model.ts';
import type { Models } from './registry.ts';
import { projectBlockState } from './state.ts';
import type { WalletDoc } from './wallets/wallets.ts';
import { addressTxFiledKeys, addressTxItems, addressTxs } from './series/address-txs.ts';
import {
  counterId,
  projectSeries,
  type Appended,
  type FiledKeys,
  type SeriesCounterDoc,
  type SeriesRow,
} from './series/series.ts';
import { nftActivity, nftActivityItems, nftListItems, nftLists } from './series/nft-activity.ts';
import { tokenHistory, tokenHistoryItems } from './series/token-history.ts';
import { tokenTxFiledKeys, tokenTxItems, tokenTxs } from './series/token-txs.ts';
import { marketOrderWrites } from './market/orders.ts';
import {
  marketStatsIds,
  marketTradeFiledKeys,
  marketTradeItems,
  marketTrades,
  projectMarketStats,
  type MarketStatsDoc,
  type MarketTradeDoc,
} from './market/trades.ts';

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
  /** The market stats the batch's trades move. */
  marketStats: MarketStatsDoc[];
  /** The ranked lists' directories and pages the batch's moves touch. */
  ranked: { dirs: RankDirDoc[]; pages: RankPageDoc[] };
  /** The stored wallets of the batch's addresses (what its wallet changes apply to). Absent: none. */
  wallets?: WalletDoc[];
  /** What loadChainPrior derived from the batch; projectChainBatch reuses it for the same events. */
  plan?: ChainPlan;
  /** The holdings loadChainPrior projected from this prior (for the ranked moves); reused likewise. */
  holdings?: Holdings;
}

type Holdings = ReturnType<typeof projectAllHoldings>;

/** The three holder models' writes and ranked-list moves for a batch. */
function projectAllHoldings(plan: ChainPlan, prior: ChainPrior, wallets: ResolvedWallets) {
  const holders = projectHolders(wallets.writes, { rows: prior.holders, stats: prior.holderStats });
  const nftHolders = projectNftHolders(wallets.writes, { rows: prior.nftHolders, stats: prior.nftHolderStats });
  const collections = projectCollectionHolders(plan.nftItems, {
    owners: prior.itemOwners,
    rows: prior.collectionHolders,
    stats: prior.collectionStats,
  });
  const moves: RankMove[] = [...holders.moves, ...nftHolders.moves, ...collections.moves];
  return { holders, nftHolders, collections, moves, wallets };
}

/** The addresses a batch writes wallets of. */
function walletAddresses(events: readonly BlockEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes) if (w.kind === 'wallet' || w.kind === 'walletChange') out.add(w.key);
  return [...out];
}

/** A batch's blocks above the head and its series items, derived once. */
interface ChainPlan {
  events: readonly BlockEvent[];
  head: HeadDoc | null;
  todo: BlockEvent[];
  nftItems: ItemWrite[];
  items: Appended<SeriesRow>[][];
}

function planChain(events: readonly BlockEvent[], head: HeadDoc | null): ChainPlan {
  const todo = unapplied(events, head);
  return {
    events,
    head,
    todo,
    nftItems: itemWrites(todo),
    items: SERIES.map((s) => s.items(todo)),
  };
}

export interface ChainBatch {
  phases: Write[][];
  /** The shared values the batch names: stored once it is committed (`StoredValues.committed`). */
  shared: string[];
  /** Per-block transaction counts for the today-so-far counters. */
  counts: BlockTxCount[];
}

/** A wallet write as the holder projections take it: the assets it covers, as they are after it. */
export type HolderWrite = WalletWrite &
  Mrc402WalletWrite & { covers?: { tokens: ReadonlySet<number>; nfts: ReadonlySet<string> } };

/** A batch's wallet writes, resolved against the stored wallets (see `resolveWallets`). */
export interface ResolvedWallets {
  /** For the holder projections, in chain order. */
  writes: HolderWrite[];
  /** Per address, its newest record of the batch, when newer than the stored one. */
  records: Map<string, WalletVersion>;
  /** Addresses with a write that covers every asset: every stored holder row of theirs is read. */
  whole: Set<string>;
}

const versionOf = (pos: string, { regdate, addinfo, balances, mrc402 }: WalletState): WalletVersion => ({
  pos,
  regdate,
  addinfo,
  balances,
  mrc402,
});

const NO_WALLET: WalletVersion = { pos: '', regdate: 0, addinfo: '', balances: [], mrc402: null };

const fromChange = (c: WalletChangeWrite): HolderWrite => ({
  pos: c.pos,
  address: c.key,
  balances: c.balances,
  mrc402: c.mrc402,
  covers: { tokens: new Set(c.tokens), nfts: new Set(c.nfts) },
});

/**
 * A batch's wallet writes against the stored wallets. A block event's wallet write is a change to
 * the wallet's previous write, or whole (the first the follower published since it started), which
 * becomes a change to the record before it here. Either way a write covers the assets it changed
 * (a whale's write lists hundreds it did not change): those are the holder rows a batch reads and
 * the holdings it projects, and the newest record of each wallet is its record write.
 *
 * Records are put in the first phase and holder rows in the third, so a batch a crashed run
 * half-wrote finds a newer record stored than some of its writes: a change older than the stored
 * record still covers what it changed, but a whole write there has no record before it at hand,
 * and covers everything (every stored row of its address is read).
 */
export function resolveWallets(events: readonly BlockEvent[], stored: readonly WalletDoc[]): ResolvedWallets {
  const current = new Map<string, WalletVersion>(stored.map((d) => [d._id, d]));
  const storedPos = new Map(stored.map((d) => [d._id, d.pos]));
  const writes: HolderWrite[] = [];
  const whole = new Set<string>();
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes) {
        if (w.kind !== 'wallet' && w.kind !== 'walletChange') continue;
        const address = w.key;
        const cur = current.get(address) ?? NO_WALLET;
        if (w.pos <= (storedPos.get(address) ?? '')) {
          if (w.kind === 'walletChange') writes.push(fromChange(w));
          else {
            writes.push({ pos: w.pos, address, balances: w.wallet.balances, mrc402: w.wallet.mrc402 });
            whole.add(address);
          }
          continue;
        }
        const next = w.kind === 'walletChange' ? applyWalletChange(cur, w) : versionOf(w.pos, w.wallet);
        writes.push(fromChange(w.kind === 'walletChange' ? w : walletChange(address, w.pos, w.jobType, cur, next)));
        current.set(address, next);
      }
  const records = new Map<string, WalletVersion>();
  for (const [address, v] of current) if (v.pos > (storedPos.get(address) ?? '')) records.set(address, v);
  return { writes, records, whole };
}

/** A numbered series: its rows of a batch, and the keys it files them under by reference (`refs.ts`). */
interface Series<R extends SeriesRow> {
  model: ModelSpec<R>;
  items: (events: readonly BlockEvent[]) => Appended<R>[];
  filed?: FiledKeys<R>;
}

const series = <R extends SeriesRow>(s: Series<R>): Series<SeriesRow> => s as unknown as Series<SeriesRow>;

const SERIES = [
  series({ model: addressTxs, items: addressTxItems, filed: addressTxFiledKeys }),
  series({ model: tokenTxs, items: tokenTxItems, filed: tokenTxFiledKeys }),
  series({ model: tokenHistory, items: tokenHistoryItems }),
  series({ model: nftActivity, items: nftActivityItems }),
  series({ model: nftLists, items: nftListItems }),
  series({ model: marketTrades, items: marketTradeItems, filed: marketTradeFiledKeys }),
];

/** The market's trades of a plan (its series items). */
const tradesOf = (plan: ChainPlan) =>
  plan.items[SERIES.findIndex((s) => s.model === (marketTrades as unknown))]! as Appended<MarketTradeDoc>[];

/** Each block's time, by height. */
function blockTimes(events: readonly BlockEvent[]): (height: number) => number {
  const times = new Map(events.map((e) => [e.height, e.timestamp]));
  return (height) => times.get(height) ?? 0;
}

export function unapplied(events: readonly BlockEvent[], head: HeadDoc | null): BlockEvent[] {
  const after = head?.height ?? 0;
  return events.filter((e) => e.height > after);
}

/** Reads what a batch's projection needs from the store. */
export async function loadChainPrior(models: Models, events: readonly BlockEvent[]): Promise<ChainPrior> {
  const head = await models.head.get('indexed');
  const plan = planChain(events, head);
  const addresses = walletAddresses(plan.todo);
  const wallets = addresses.length > 0 ? await models.wallets.getMany(addresses) : [];
  const resolved = resolveWallets(plan.todo, wallets);
  const whole = [...resolved.whole];
  const holderIds = new Set<string>();
  const nftHolderIds = new Set<string>();
  for (const w of resolved.writes) {
    if (!w.covers) continue;
    for (const t of w.covers.tokens) holderIds.add(holderId(t, w.address));
    for (const id of w.covers.nfts) nftHolderIds.add(nftHolderId(id, w.address));
  }
  const counterIds = new Set<string>();
  SERIES.forEach((s, i) => {
    for (const item of plan.items[i]!) counterIds.add(counterId(s.model.name, item.key));
  });
  const items = [...new Set(plan.nftItems.map((w) => w.item))];
  const statsIds = marketStatsIds(tradesOf(plan));
  const [rows, nftRows, counters, itemOwners, marketStats] = await Promise.all([
    rowsOf(models.holders, [...holderIds], whole),
    rowsOf(models.nftHolders, [...nftHolderIds], whole),
    counterIds.size > 0 ? models.seriesCounters.getMany([...counterIds]) : Promise.resolve([]),
    items.length > 0 ? models.itemOwners.getMany(items) : Promise.resolve([]),
    statsIds.length > 0 ? models.marketStats.getMany(statsIds) : Promise.resolve([]),
  ]);
  const keys = collectionKeys(plan.nftItems, itemOwners);
  const [collectionHolders, collectionStats] = await Promise.all([
    keys.rows.length > 0 ? models.collectionHolders.getMany(keys.rows) : Promise.resolve([]),
    keys.collections.length > 0 ? models.collectionStats.getMany(keys.collections) : Promise.resolve([]),
  ]);
  const tokens = new Set(rows.map((r) => String(r.token)));
  const nftIds = new Set(nftRows.map((r) => r.nftId));
  // Every asset a write covers (or lists, when it covers every one): one stats read covers them.
  for (const w of resolved.writes) {
    for (const t of w.covers?.tokens ?? w.balances.map((e) => e.token)) tokens.add(String(t));
    for (const id of w.covers?.nfts ?? Object.keys(w.mrc402 ?? {})) nftIds.add(id);
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
    marketStats,
    wallets,
    plan,
  };
  // The ranked lists' pages are found through their directories: two reads after the rows.
  const holdings = projectAllHoldings(plan, prior, resolved);
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

/** `storedValues`: the shared values known to be stored, not written again (`shared-values.ts`). */
export function projectChainBatch(
  events: readonly BlockEvent[],
  prior: ChainPrior,
  options: StatsOptions,
  storedValues?: { has(id: string): boolean },
): ChainBatch {
  const plan =
    prior.plan?.events === events && prior.plan.head === prior.head ? prior.plan : planChain(events, prior.head);
  const { todo } = plan;
  const last = todo.at(-1);
  if (!last) return { phases: [], counts: [], shared: [] };
  const stored = new Map(prior.counters.map((c) => [c._id, c]));
  const shared = new BatchValues(storedValues);
  const facts = projectFacts(todo, options, shared);
  const seriesRows: Write[] = [];
  const seriesCounters: Write[] = [];
  SERIES.forEach((s, i) => {
    const { rows, counters } = projectSeries(s.model, plan.items[i]!, stored, s.filed);
    for (const w of rows) seriesRows.push(w); // no spread: a large batch has 100,000s of rows
    for (const w of counters) seriesCounters.push(w);
  });
  const { holders, nftHolders, collections, moves, wallets } =
    plan === prior.plan && prior.holdings
      ? prior.holdings
      : projectAllHoldings(plan, prior, resolveWallets(todo, prior.wallets ?? []));
  const ranked = projectRanked(moves, prior.ranked);
  const holderChanges = shareLocks(holders.changes, shared);
  return {
    phases: [
      [
        ...shared.writes(),
        ...facts,
        ...projectBlockState(todo, wallets.records),
        ...holderChanges,
        ...nftHolders.changes,
        ...collections.changes,
        ...seriesRows,
        ...ranked.pages,
        ...marketOrderWrites(todo),
      ],
      [
        ...seriesCounters,
        ...projectMarketStats(tradesOf(plan), prior.marketStats, blockTimes(todo)),
        ...holders.stats,
        ...nftHolders.stats,
        ...collections.stats,
        ...ranked.dirs,
      ],
      [...holders.rows, ...nftHolders.rows, ...collections.rows, ...ranked.retired],
      collections.owners,
      [headWrite(last)],
    ],
    counts: txCounts(todo),
    shared: shared.ids(),
  };
}
