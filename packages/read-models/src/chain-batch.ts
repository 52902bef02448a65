import type { BlockEvent } from '@mtc/domain';
import type { BlockTxCount, Write } from '@mtc/ports';
import { headWrite, projectFacts, txCounts, type StatsOptions } from './chain/project.ts';
import type { HeadDoc } from './chain/docs.ts';
import { projectHolders, type HolderDoc, type HolderStatsDoc, type WalletWrite } from './holders/holders.ts';
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
  projectNftHolders,
  type Mrc402WalletWrite,
  type NftHolderDoc,
  type NftHolderStatsDoc,
} from './nfts/holders.ts';
import type { Models } from './registry.ts';
import { projectBlockState } from './state.ts';
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
 *   1. facts (blocks, transactions, daily counts, the holding-change log), series rows and the
 *      records as written (wallets, tokens, NFT records: put if newer, from the blocks' state writes,
 *      so they move with the head rather than with another consumer)
 *   2. aggregates: series counters, holder stats (MRC-010, MRC-402, MRC-400 collections)
 *   3. holder rows
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
  /** What loadChainPrior derived from the batch; projectChainBatch reuses it for the same events. */
  plan?: ChainPlan;
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

/** Reads what a batch's projection needs from the store. */
export async function loadChainPrior(models: Models, events: readonly BlockEvent[]): Promise<ChainPrior> {
  const head = await models.head.get('indexed');
  const plan = planChain(events, head);
  const writes = plan.wallets;
  const addresses = [...new Set(writes.map((w) => w.address))];
  const counterIds = new Set<string>();
  SERIES.forEach((s, i) => {
    for (const item of plan.items[i]!) counterIds.add(counterId(s.model.name, item.key));
  });
  const items = [...new Set(plan.nftItems.map((w) => w.item))];
  const [rows, nftRows, counters, itemOwners] = await Promise.all([
    addresses.length > 0 ? models.holders.find({ address: { $in: addresses } }) : Promise.resolve([]),
    addresses.length > 0 ? models.nftHolders.find({ address: { $in: addresses } }) : Promise.resolve([]),
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
  // Every asset a write lists (a superset of those it holds): one stats read covers them all.
  for (const w of writes) {
    for (const e of w.balances) tokens.add(String(e.token));
    for (const id of Object.keys(w.mrc402 ?? {})) nftIds.add(id);
  }
  const [holderStats, nftHolderStats] = await Promise.all([
    tokens.size > 0 ? models.holderStats.getMany([...tokens]) : Promise.resolve([]),
    nftIds.size > 0 ? models.nftHolderStats.getMany([...nftIds]) : Promise.resolve([]),
  ]);
  return {
    head,
    holders: rows,
    holderStats,
    nftHolders: nftRows,
    nftHolderStats,
    itemOwners,
    collectionHolders,
    collectionStats,
    counters,
    plan,
  };
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
    seriesRows.push(...rows);
    seriesCounters.push(...counters);
  });
  const holders = projectHolders(plan.wallets, { rows: prior.holders, stats: prior.holderStats });
  const nftHolders = projectNftHolders(plan.wallets, { rows: prior.nftHolders, stats: prior.nftHolderStats });
  const collections = projectCollectionHolders(plan.nftItems, {
    owners: prior.itemOwners,
    rows: prior.collectionHolders,
    stats: prior.collectionStats,
  });
  return {
    phases: [
      [
        ...facts,
        ...projectBlockState(todo),
        ...holders.changes,
        ...nftHolders.changes,
        ...collections.changes,
        ...seriesRows,
      ],
      [...seriesCounters, ...holders.stats, ...nftHolders.stats, ...collections.stats],
      [...holders.rows, ...nftHolders.rows, ...collections.rows],
      collections.owners,
      [headWrite(last)],
    ],
    counts: txCounts(todo),
  };
}
