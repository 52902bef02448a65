import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc400Version } from './versions.ts';
import { createIdList } from '../../world/id-list.ts';
import type { StateValue } from '../../world/state.ts';

/**
 * MRC-400 collections (`MRC400_<32 hex><digit>`) and their MRC-401 items (`<collection>_<40
 * [A-Za-z0-9]>`), in the field order Go's encoding/json writes them (metacoin-chain.md §3.3, §3.4).
 * Two struct versions: CC-m 0e78fc1 (`v2.3`) and CC-t 569b17e (`current`), which reordered TMRC400
 * and added the creator, partner, shareholder and platform fields.
 *
 * Inside the devnet a record is always handled in the CC-t shape (Mrc400Collection, Mrc401Item):
 * reading is Go's json.Unmarshal into the CC-t struct (fields a CC-m record lacks take their zero
 * values: "", 0, null maps) plus GetMRC400/GetMRC401 filling an empty id from the key; writing is
 * json.Marshal of the writing version's struct (encodeCollection, encodeItem). Maps are written
 * with sorted keys, as Go sorts them.
 */

export const MRC400_PREFIX = 'MRC400_';
/** What an item's owner becomes when it is melted (CC-m and CC-t Mrc401Melt). */
export const MELTED = 'MELTED';

/**
 * The transfer policies: Permanent (free), Bound (only while the MRC-400 owner holds it),
 * Temporary (may still be changed by mrc401update). CC-m spells the last one "Temprary" and only
 * accepts that; CC-t accepts "Temporary" for new values and treats a stored "Temprary" as
 * changeable too.
 */
export type Transferable = 'Permanent' | 'Bound' | 'Temporary' | 'Temprary';

/** CC-t `mrc400.go` TMRC400. */
export interface Mrc400Collection {
  id: string;
  createdate: number;
  owner: string;
  name: string;
  url: string;
  image_url: string;
  allow_token: string;
  item_url: string;
  item_image_url: string;
  category: string;
  description: string;
  socialmedia: string;
  /** {address: "partner" | "seller" | "creator"}, at most 64; null when never given. */
  partner: Record<string, string> | null;
  data: string;
  job_type: string;
  job_args: string;
  jobdate: number;
}

/** CC-m `mrc400.go` TMRC400: no socialmedia or partner, another field order. */
export interface Mrc400CollectionV23 {
  id: string;
  owner: string;
  createdate: number;
  name: string;
  url: string;
  image_url: string;
  category: string;
  description: string;
  item_url: string;
  item_image_url: string;
  data: string;
  allow_token: string;
  job_type: string;
  job_args: string;
  jobdate: number;
}

/** CC-t `mrc400.go` TMRC401. Amounts and rates are decimal strings; dates unix seconds. */
export interface Mrc401Item {
  id: string;
  mrc400: string;
  owner: string;
  creator: string;
  item_url: string;
  item_image_url: string;
  groupid: string;
  createdate: number;
  initial_reserve: string;
  initial_token: string;
  melting_fee: string;
  melting_date: number;
  transferable: string;
  sell_date: number;
  sell_fee: string;
  sell_price: string;
  sell_token: string;
  job_type: string;
  job_args: string;
  jobdate: number;
  auction_date: number;
  auction_end: number;
  auction_token: string;
  auction_bidding_unit: string;
  auction_start_price: string;
  auction_buynow_price: string;
  auction_current_price: string;
  auction_current_bidder: string;
  last_trade_date: number;
  last_trade_amount: string;
  last_trade_token: string;
  last_trade_type: string;
  last_worker: string;
  /** {address: commission %} (≤ 5, 0–10 each), as the client wrote the commissions. */
  shareholder: Record<string, string> | null;
  platform_name: string;
  platform_url: string;
  platform_address: string;
  platform_commission: string;
}

/** CC-m `mrc400.go` TMRC401: CC-t's fields minus creator, last_worker, shareholder and platform_*. */
export type Mrc401ItemV23 = Omit<
  Mrc401Item,
  | 'creator'
  | 'last_worker'
  | 'shareholder'
  | 'platform_name'
  | 'platform_url'
  | 'platform_address'
  | 'platform_commission'
>;

/** A collection as the chain may hold it, whichever version wrote it last (CC-m's lack some fields). */
export type ChainMrc400Collection = Mrc400CollectionV23 & Partial<Mrc400Collection>;

/** An item as the chain may hold it, whichever version wrote it last (CC-m's lack some fields). */
export type ChainMrc401Item = Mrc401ItemV23 & Partial<Mrc401Item>;

export function isCollectionKey(key: string): boolean {
  return key.length === 40 && key.startsWith(MRC400_PREFIX);
}

export function isItemKey(key: string): boolean {
  return key.length === 81 && key.startsWith(MRC400_PREFIX);
}

/** The collection an item key belongs to: its first 40 characters. */
export function collectionOf(itemKey: string): string {
  return itemKey.slice(0, 40);
}

/** What json.Marshal writes for a map: its keys sorted (a copy; null stays null). */
export function sortedMap(map: Readonly<Record<string, string>> | null): Record<string, string> | null {
  if (map === null) return null;
  const out: Record<string, string> = {};
  for (const key of Object.keys(map).sort()) out[key] = map[key]!;
  return out;
}

/** The writing version's struct: CC-m's shape under `v2.3`, CC-t's otherwise. */
export function encodeCollection(
  c: Mrc400Collection,
  version: ChaincodeVersion,
): Mrc400Collection | Mrc400CollectionV23 {
  if (mrc400Version(version).name === 'current') return { ...c, partner: sortedMap(c.partner) };
  return {
    id: c.id,
    owner: c.owner,
    createdate: c.createdate,
    name: c.name,
    url: c.url,
    image_url: c.image_url,
    category: c.category,
    description: c.description,
    item_url: c.item_url,
    item_image_url: c.item_image_url,
    data: c.data,
    allow_token: c.allow_token,
    job_type: c.job_type,
    job_args: c.job_args,
    jobdate: c.jobdate,
  };
}

export function encodeItem(item: Mrc401Item, version: ChaincodeVersion): Mrc401Item | Mrc401ItemV23 {
  if (mrc400Version(version).name === 'current') return { ...item, shareholder: sortedMap(item.shareholder) };
  const {
    creator: _creator,
    last_worker: _lastWorker,
    shareholder: _shareholder,
    platform_name: _name,
    platform_url: _url,
    platform_address: _address,
    platform_commission: _commission,
    ...old
  } = item;
  return old;
}

const readCollections = new WeakMap<object, Mrc400Collection>();
const readItems = new WeakMap<object, Mrc401Item>();

type Raw = Record<string, unknown>;
const text = (raw: Raw, field: string): string => {
  const value = raw[field];
  return typeof value === 'string' ? value : '';
};
const num = (raw: Raw, field: string): number => {
  const value = raw[field];
  return typeof value === 'number' ? value : 0;
};
const map = (raw: Raw, field: string): Record<string, string> | null =>
  raw[field] !== null && typeof raw[field] === 'object' ? (raw[field] as Record<string, string>) : null;

/**
 * A stored collection as GetMRC400 returns it (CC-t struct; an empty id filled from the key). The
 * result is frozen and shared: callers copy it (cloneCollection) before changing it.
 */
export function readCollection(key: string, raw: object): Mrc400Collection {
  const known = readCollections.get(raw);
  if (known) return known;
  const r = raw as Raw;
  const c: Mrc400Collection = Object.freeze({
    id: text(r, 'id') || key,
    createdate: num(r, 'createdate'),
    owner: text(r, 'owner'),
    name: text(r, 'name'),
    url: text(r, 'url'),
    image_url: text(r, 'image_url'),
    allow_token: text(r, 'allow_token'),
    item_url: text(r, 'item_url'),
    item_image_url: text(r, 'item_image_url'),
    category: text(r, 'category'),
    description: text(r, 'description'),
    socialmedia: text(r, 'socialmedia'),
    partner: map(r, 'partner'),
    data: text(r, 'data'),
    job_type: text(r, 'job_type'),
    job_args: text(r, 'job_args'),
    jobdate: num(r, 'jobdate'),
  });
  readCollections.set(raw, c);
  return c;
}

/** A stored item as GetMRC401 returns it (CC-t struct; an empty id filled from the key), frozen. */
export function readItem(key: string, raw: object): Mrc401Item {
  const known = readItems.get(raw);
  if (known) return known;
  const r = raw as Raw;
  const item: Mrc401Item = Object.freeze({
    id: text(r, 'id') || key,
    mrc400: text(r, 'mrc400'),
    owner: text(r, 'owner'),
    creator: text(r, 'creator'),
    item_url: text(r, 'item_url'),
    item_image_url: text(r, 'item_image_url'),
    groupid: text(r, 'groupid'),
    createdate: num(r, 'createdate'),
    initial_reserve: text(r, 'initial_reserve'),
    initial_token: text(r, 'initial_token'),
    melting_fee: text(r, 'melting_fee'),
    melting_date: num(r, 'melting_date'),
    transferable: text(r, 'transferable'),
    sell_date: num(r, 'sell_date'),
    sell_fee: text(r, 'sell_fee'),
    sell_price: text(r, 'sell_price'),
    sell_token: text(r, 'sell_token'),
    job_type: text(r, 'job_type'),
    job_args: text(r, 'job_args'),
    jobdate: num(r, 'jobdate'),
    auction_date: num(r, 'auction_date'),
    auction_end: num(r, 'auction_end'),
    auction_token: text(r, 'auction_token'),
    auction_bidding_unit: text(r, 'auction_bidding_unit'),
    auction_start_price: text(r, 'auction_start_price'),
    auction_buynow_price: text(r, 'auction_buynow_price'),
    auction_current_price: text(r, 'auction_current_price'),
    auction_current_bidder: text(r, 'auction_current_bidder'),
    last_trade_date: num(r, 'last_trade_date'),
    last_trade_amount: text(r, 'last_trade_amount'),
    last_trade_token: text(r, 'last_trade_token'),
    last_trade_type: text(r, 'last_trade_type'),
    last_worker: text(r, 'last_worker'),
    shareholder: map(r, 'shareholder'),
    platform_name: text(r, 'platform_name'),
    platform_url: text(r, 'platform_url'),
    platform_address: text(r, 'platform_address'),
    platform_commission: text(r, 'platform_commission'),
  });
  readItems.set(raw, item);
  return item;
}

/** The private copy the chaincode changes before PutState (maps are replaced, never changed in place). */
export function cloneCollection(c: Mrc400Collection): Mrc400Collection {
  return { ...c };
}

export function cloneItem(item: Mrc401Item): Mrc401Item {
  return { ...item };
}

/**
 * What the MRC-400/401 planners draw from, kept up to date as writes are committed. An item is in
 * exactly one of `idle` (held: neither on sale, in auction nor melted), `onSale`, `inAuction`, or
 * none of them once melted.
 */
export interface Mrc400Index {
  /** Collection ids in creation order. */
  readonly collections: readonly string[];
  /** Item ids in creation order. */
  readonly items: readonly string[];
  /** A collection's item ids, in creation order. */
  itemsOf(collection: string): readonly string[];
  readonly idle: readonly string[];
  readonly onSale: readonly string[];
  readonly inAuction: readonly string[];
  /** A collection as the current chaincode reads it, or undefined. */
  collection(id: string): Mrc400Collection | undefined;
  /** An item as the current chaincode reads it, or undefined. */
  item(id: string): Mrc401Item | undefined;
  /** Called by World.apply for every committed write. */
  observe(key: string, value: StateValue): void;
}

export function createMrc400Index(get: (key: string) => StateValue | undefined): Mrc400Index {
  const collections: string[] = [];
  const items: string[] = [];
  const byCollection = new Map<string, string[]>();
  const idle = createIdList();
  const onSale = createIdList();
  const inAuction = createIdList();
  const known = new Set<string>();
  return {
    collections,
    items,
    itemsOf: (collection) => byCollection.get(collection) ?? [],
    idle: idle.ids,
    onSale: onSale.ids,
    inAuction: inAuction.ids,
    collection(id) {
      const raw = isCollectionKey(id) ? get(id) : undefined;
      return raw === undefined ? undefined : readCollection(id, raw as object);
    },
    item(id) {
      const raw = isItemKey(id) ? get(id) : undefined;
      return raw === undefined ? undefined : readItem(id, raw as object);
    },
    observe(key, value) {
      if (typeof value !== 'object') return;
      if (isCollectionKey(key)) {
        if (!byCollection.has(key)) {
          byCollection.set(key, []);
          collections.push(key);
        }
        return;
      }
      if (!isItemKey(key)) return;
      const item = readItem(key, value);
      if (!known.has(key)) {
        known.add(key);
        items.push(key);
        byCollection.get(collectionOf(key))?.push(key);
      }
      idle.remove(key);
      onSale.remove(key);
      inAuction.remove(key);
      if (item.owner === MELTED) return;
      if (item.sell_date > 0) onSale.add(key);
      else if (item.auction_date > 0) inAuction.add(key);
      else idle.add(key);
    },
  };
}
