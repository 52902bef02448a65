import { amountSortKey, type BlockEvent } from '@mtc/domain';
import type { Collection, Write } from '@mtc/ports';
import { holdingAsset, holdingChangeWrite } from '../holders/changes.ts';
import { defineModel } from '../model.ts';
import {
  addressOfKey,
  rankedRows,
  rankKey,
  type RankedLists,
  type RankedRows,
  type RankedSeek,
  type RankMove,
} from '../holders/ranked.ts';
import type { NftItemDoc } from './records.ts';

/**
 * MRC-400 holders: per (collection, address) how many of the collection's items the address owns,
 * and per collection its holder count and items held (melted items are held by nobody). Ownership
 * lives in the item record (metacoin-chain.md §3.4), so this follows the item writes of the block
 * topic and remembers each item's owner (`nft_item_owners`) to know where an item moved from.
 *
 * Exact under crashes and replays, like the MRC-010 holders: a batch writes the collection stats
 * (skipping deltas at positions they already counted), then the holder rows (each put with the
 * position of the last item write it counted: a row already past a position is left alone), then
 * the item owners. A replay before the owners are durable sees the old owners and derives the same
 * deltas, which the guards then skip where they were applied. Every row a write changes also goes
 * to the holding-change log (`changes`, with the facts), under the same row guard (see `changes.ts`).
 */
export type CollectionHolderDoc = {
  /** `<collection>:<address>`. */
  _id: string;
  collection: string;
  address: string;
  /** Items of the collection the address owns (0 once it owns none). */
  count: number;
  /** Of those, the items on sale and the items in auction (an owner keeps an item it offers). */
  sale: number;
  auction: number;
  /** `count` zero-padded: string order is numeric order. */
  rank: string;
  pos: string;
};

export type CollectionStatsDoc = {
  /** The collection id. */
  _id: string;
  holders: number;
  /** Items held (created and not melted). */
  items: number;
  pos: string;
};

export type ItemOwnerDoc = {
  /** The item id. */
  _id: string;
  collection: string;
  /** An address, or MELTED. */
  owner: string;
  /** Whether the item is on sale or in auction (as its record last said). */
  offer: Offer;
  pos: string;
};

export type Offer = 'held' | 'sale' | 'auction';

export const collectionHolders = defineModel<CollectionHolderDoc>('collection_holders', [
  {
    fields: [
      ['collection', 1],
      ['rank', -1],
      ['address', 1],
    ],
  },
  { fields: [['address', 1]] },
]);
export const collectionStats = defineModel<CollectionStatsDoc>('collection_stats');
export const itemOwners = defineModel<ItemOwnerDoc>('nft_item_owners');

export const MELTED = 'MELTED';

export const collectionHolderId = (collection: string, address: string): string => `${collection}:${address}`;

/** An item write of a batch: the item's owner and offer after it, in chain order. */
export interface ItemWrite {
  pos: string;
  item: string;
  collection: string;
  owner: string;
  offer: Offer;
}

/** An item's offer as its record says: on sale (a sell date), else in auction (an auction date), else held. */
export function offerOf(item: { sell_date: number; auction_date: number }): Offer {
  return item.sell_date > 0 ? 'sale' : item.auction_date > 0 ? 'auction' : 'held';
}

export function itemWrites(events: readonly BlockEvent[]): ItemWrite[] {
  const out: ItemWrite[] = [];
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes)
        if (w.kind === 'nftItem')
          out.push({ pos: w.pos, item: w.key, collection: w.item.mrc400, owner: w.item.owner, offer: offerOf(w.item) });
  return out;
}

export interface CollectionPrior {
  /** Stored owners of the items the batch writes. */
  owners: readonly ItemOwnerDoc[];
  /** Stored rows of every (collection, address) those owners and writes name. */
  rows: readonly CollectionHolderDoc[];
  /** Stored stats of every collection the batch writes. */
  stats: readonly CollectionStatsDoc[];
}

/** The (collection, address) rows and collection stats a batch's item writes may touch, to load. */
export function collectionKeys(writes: readonly ItemWrite[], owners: readonly ItemOwnerDoc[]) {
  const rows = new Set<string>();
  const collections = new Set<string>();
  for (const o of owners) if (o.owner !== MELTED) rows.add(collectionHolderId(o.collection, o.owner));
  for (const w of writes) {
    collections.add(w.collection);
    if (w.owner !== MELTED) rows.add(collectionHolderId(w.collection, w.owner));
  }
  return { rows: [...rows], collections: [...collections] };
}

/**
 * The batch's writes in three phases: stats, then holder rows, then item owners (each durable first);
 * `changes` go before all three.
 */
export function projectCollectionHolders(
  writes: readonly ItemWrite[],
  prior: CollectionPrior,
): { stats: Write[]; rows: Write[]; owners: Write[]; changes: Write[]; moves: RankMove[] } {
  // Owner docs stored before offers were kept read as held.
  const owner = new Map(prior.owners.map((o) => [o._id, { owner: o.owner, offer: o.offer ?? 'held' }]));
  const rows = new Map(prior.rows.map((r) => [r._id, { ...r }]));
  const storedRowPos = new Map(prior.rows.map((r) => [r._id, r.pos]));
  const storedStatsPos = new Map(prior.stats.map((s) => [s._id, s.pos]));
  const stats = new Map(prior.stats.map((s) => [s._id, { ...s }]));
  const changedRows = new Set<string>();
  const changedStats = new Set<string>();
  const changedOwners = new Map<string, ItemOwnerDoc>();
  /** By row and position: an offer changed by its owner moves the item out of and back into one row. */
  const changes = new Map<string, Write>();
  const moves: RankMove[] = [];

  for (const w of writes) {
    const before = owner.get(w.item) ?? null;
    owner.set(w.item, { owner: w.owner, offer: w.offer });
    changedOwners.set(w.item, { _id: w.item, collection: w.collection, owner: w.owner, offer: w.offer, pos: w.pos });
    if (before?.owner !== w.owner) {
      // The item leaves its owner's list of items and joins the new owner's (guarded per list).
      const key = ownedItemKey(w.collection, w.item);
      if (before !== null && before.owner !== MELTED)
        moves.push({ list: ownedItemsList(before.owner), pos: w.pos, from: key, to: null });
      if (w.owner !== MELTED) moves.push({ list: ownedItemsList(w.owner), pos: w.pos, from: null, to: key });
    }
    if (before?.owner === w.owner && before.offer === w.offer) continue;
    let dHolders = 0;
    let dItems = 0;
    const move = (address: string, delta: 1 | -1, offer: Offer) => {
      const id = collectionHolderId(w.collection, address);
      // A stored row already past this write counted it (and so did the stats, written first).
      if ((storedRowPos.get(id) ?? '') >= w.pos) return;
      const row = rows.get(id) ?? {
        _id: id,
        collection: w.collection,
        address,
        count: 0,
        sale: 0,
        auction: 0,
        rank: '',
        pos: '',
      };
      const was = row.count;
      row.count += delta;
      row.sale = (row.sale ?? 0) + (offer === 'sale' ? delta : 0);
      row.auction = (row.auction ?? 0) + (offer === 'auction' ? delta : 0);
      if (row.count < 0 || row.sale < 0 || row.auction < 0)
        throw new Error(
          `${address} would own ${row.count} items (${row.sale} on sale, ${row.auction} in auction) of ${w.collection} at ${w.pos}: the stored state is inconsistent`,
        );
      row.rank = amountSortKey(BigInt(row.count));
      row.pos = w.pos;
      // A row past this write was written after the ranked list had taken its move (see ranked.ts).
      moves.push({
        list: holdingAsset('mrc400', w.collection),
        pos: w.pos,
        from: was > 0 ? rankKey(amountSortKey(BigInt(was)), address) : null,
        to: row.count > 0 ? rankKey(row.rank, address) : null,
      });
      changes.set(
        `${id}:${w.pos}`,
        holdingChangeWrite(holdingAsset('mrc400', w.collection), address, w.pos, row.count > 0 ? { ...row } : null),
      );
      changedRows.add(id);
      rows.set(id, row);
      dHolders += (row.count > 0 ? 1 : 0) - (was > 0 ? 1 : 0);
      dItems += delta;
    };
    // An offer opened or closed by the owner moves the item within its row (no count changes).
    if (before !== null && before.owner !== MELTED) move(before.owner, -1, before.offer);
    if (w.owner !== MELTED) move(w.owner, 1, w.offer);
    if ((storedStatsPos.get(w.collection) ?? '') >= w.pos || (dHolders === 0 && dItems === 0)) continue;
    const s = stats.get(w.collection) ?? { _id: w.collection, holders: 0, items: 0, pos: '' };
    s.holders += dHolders;
    s.items += dItems;
    s.pos = w.pos;
    stats.set(w.collection, s);
    changedStats.add(w.collection);
  }

  const sorted = <T>(ids: Iterable<string>, get: (id: string) => T) => [...ids].sort().map(get);
  return {
    stats: sorted(changedStats, (id) => ({ op: 'putIfNewer', collection: collectionStats.name, doc: stats.get(id)! })),
    rows: sorted(changedRows, (id) => ({ op: 'putIfNewer', collection: collectionHolders.name, doc: rows.get(id)! })),
    owners: sorted(changedOwners.keys(), (id) => ({
      op: 'putIfNewer',
      collection: itemOwners.name,
      doc: changedOwners.get(id)!,
    })),
    changes: [...changes.values()],
    moves,
  };
}

/** The ranked list of the MRC-401 items an address owns, by collection, then item id. */
export const ownedItemsList = (address: string): string => `items:${address}`;
export const ownedItemKey = (collection: string, item: string): string => `${collection} ${item}`;
export const itemOfKey = (key: string): string => key.slice(key.indexOf(' ') + 1);

/**
 * The first `limit` MRC-401 items `address` owns, by collection, then item id, read through its
 * list; null when the list and the items disagree (read while a batch was written over them).
 */
export async function ownedItemsOf(
  models: RankedLists & { nftItems: Collection<NftItemDoc> },
  address: string,
  limit: number,
): Promise<NftItemDoc[] | null> {
  const page = await rankedRows(
    models,
    ownedItemsList(address),
    {
      rows: models.nftItems,
      idOf: itemOfKey,
      // An item that changed hands is listed by nobody's key but its owner's.
      keyOf: (item) => (item.owner === address ? ownedItemKey(item.mrc400, item._id) : ''),
    },
    { skip: 0 },
    limit,
  );
  return page && page.rows;
}

/** A page of a collection's holders, by items owned descending, then address (see `holdersPage`). */
export function collectionHoldersPage(
  models: RankedLists & { collectionHolders: Collection<CollectionHolderDoc> },
  collection: string,
  seek: RankedSeek,
  limit: number,
): Promise<RankedRows<CollectionHolderDoc> | null> {
  return rankedRows(
    models,
    holdingAsset('mrc400', collection),
    {
      rows: models.collectionHolders,
      idOf: (k) => collectionHolderId(collection, addressOfKey(k)),
      keyOf: (row) => (row.count > 0 ? rankKey(row.rank, row.address) : ''),
    },
    seek,
    limit,
  );
}
