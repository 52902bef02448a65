import { sortedEntries } from '../../chaincode/util.ts';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc400Version } from './versions.ts';
import { createIdList } from '../../world/id-list.ts';
import type { StateValue } from '../../world/state.ts';

/**
 * MRC-400 collections (`MRC400_<32 hex><digit>`) and their MRC-401 items (`<collection>_<40
 * [A-Za-z0-9]>`), in Go's encoding/json field order (metacoin-chain.md §3.3, §3.4), for CC-m
 * 0e78fc1 (`v2.3`) and CC-t 569b17e (`current`), which reordered TMRC400 and added the creator,
 * partner, shareholder and platform fields. The devnet handles them in the CC-t shape: read as
 * json.Unmarshal into the CC-t struct, written as the writing version's struct, maps key-sorted.
 */

export const MRC400_PREFIX = 'MRC400_';
/** What an item's owner becomes when it is melted (CC-m and CC-t Mrc401Melt). */
export const MELTED = 'MELTED';

/** A Go struct field's kind, for json.Unmarshal: string, int64, or map[string]string. */
export type FieldKind = 'string' | 'int' | 'map';

export type Fields<S extends Readonly<Record<string, FieldKind>>> = {
  -readonly [K in keyof S]: S[K] extends 'string'
    ? string
    : S[K] extends 'int'
      ? number
      : Record<string, string> | null;
};

/** CC-t `mrc400.go` TMRC400, in its field order. */
const COLLECTION = {
  id: 'string',
  createdate: 'int',
  owner: 'string',
  name: 'string',
  url: 'string',
  image_url: 'string',
  allow_token: 'string',
  item_url: 'string',
  item_image_url: 'string',
  category: 'string',
  description: 'string',
  socialmedia: 'string',
  /** {address: "partner" | "seller" | "creator"}, at most 64; null when never given. */
  partner: 'map',
  data: 'string',
  job_type: 'string',
  job_args: 'string',
  jobdate: 'int',
} as const satisfies Record<string, FieldKind>;

export type Mrc400Collection = Fields<typeof COLLECTION>;

/** CC-m `mrc400.go` TMRC400's field order: no socialmedia or partner. */
const COLLECTION_V23 = [
  'id',
  'owner',
  'createdate',
  'name',
  'url',
  'image_url',
  'category',
  'description',
  'item_url',
  'item_image_url',
  'data',
  'allow_token',
  'job_type',
  'job_args',
  'jobdate',
] as const;

export type Mrc400CollectionV23 = Pick<Mrc400Collection, (typeof COLLECTION_V23)[number]>;

/** CC-t `mrc400.go` TMRC401, in its field order. Amounts and rates are decimal strings; dates unix seconds. */
const ITEM = {
  id: 'string',
  mrc400: 'string',
  owner: 'string',
  creator: 'string',
  item_url: 'string',
  item_image_url: 'string',
  groupid: 'string',
  createdate: 'int',
  initial_reserve: 'string',
  initial_token: 'string',
  melting_fee: 'string',
  melting_date: 'int',
  /**
   * The transfer policy: Permanent (free), Bound (only while the MRC-400 owner holds it), Temporary
   * (may still be changed by mrc401update). CC-m spells the last one "Temprary" and only accepts
   * that; CC-t accepts "Temporary" for new values and treats a stored "Temprary" as changeable too.
   */
  transferable: 'string',
  sell_date: 'int',
  sell_fee: 'string',
  sell_price: 'string',
  sell_token: 'string',
  job_type: 'string',
  job_args: 'string',
  jobdate: 'int',
  auction_date: 'int',
  auction_end: 'int',
  auction_token: 'string',
  auction_bidding_unit: 'string',
  auction_start_price: 'string',
  auction_buynow_price: 'string',
  auction_current_price: 'string',
  auction_current_bidder: 'string',
  last_trade_date: 'int',
  last_trade_amount: 'string',
  last_trade_token: 'string',
  last_trade_type: 'string',
  last_worker: 'string',
  /** {address: commission %} (≤ 5, 0–10 each), as the client wrote the commissions. */
  shareholder: 'map',
  platform_name: 'string',
  platform_url: 'string',
  platform_address: 'string',
  platform_commission: 'string',
} as const satisfies Record<string, FieldKind>;

export type Mrc401Item = Fields<typeof ITEM>;

/** The TMRC401 fields CC-t added; CC-m's struct is the rest, in the same order. */
const ITEM_CC_T_ONLY = [
  'creator',
  'last_worker',
  'shareholder',
  'platform_name',
  'platform_url',
  'platform_address',
  'platform_commission',
] as const satisfies readonly (keyof Mrc401Item)[];

export type Mrc401ItemV23 = Omit<Mrc401Item, (typeof ITEM_CC_T_ONLY)[number]>;

/** A record as the chain may hold it, whichever version wrote it last (CC-m's lack some fields). */
export type ChainMrc400Collection = Mrc400CollectionV23 & Partial<Mrc400Collection>;
export type ChainMrc401Item = Mrc401ItemV23 & Partial<Mrc401Item>;

export function isCollectionKey(key: string): boolean {
  return key.length === 40 && key.startsWith(MRC400_PREFIX);
}

export function isItemKey(key: string): boolean {
  return key.length === 81 && key.startsWith(MRC400_PREFIX);
}

/** What json.Marshal writes for a map: its keys sorted (a copy; null stays null). */
function sortedMap(map: Readonly<Record<string, string>> | null): Record<string, string> | null {
  return map === null ? null : Object.fromEntries(sortedEntries(map));
}

/** The writing version's struct. */
export function encodeCollection(
  c: Mrc400Collection,
  version: ChaincodeVersion,
): Mrc400Collection | Mrc400CollectionV23 {
  if (mrc400Version(version).name === 'current') return { ...c, partner: sortedMap(c.partner) };
  return Object.fromEntries(COLLECTION_V23.map((field) => [field, c[field]])) as Mrc400CollectionV23;
}

export function encodeItem(item: Mrc401Item, version: ChaincodeVersion): Mrc401Item | Mrc401ItemV23 {
  if (mrc400Version(version).name === 'current') return { ...item, shareholder: sortedMap(item.shareholder) };
  return Object.fromEntries(
    Object.entries(item).filter(([field]) => !(ITEM_CC_T_ONLY as readonly string[]).includes(field)),
  ) as Mrc401ItemV23;
}

/** json.Unmarshal of `raw` into the struct of `fields`: zero values ("", 0, null) where absent. */
export function readFields<S extends Readonly<Record<string, FieldKind>>>(fields: S, raw: object): Fields<S> {
  const r = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field in fields) {
    const kind = fields[field];
    const v = r[field];
    if (kind === 'string') out[field] = typeof v === 'string' ? v : '';
    else if (kind === 'int') out[field] = typeof v === 'number' ? v : 0;
    else out[field] = v !== null && typeof v === 'object' ? v : null;
  }
  return out as Fields<S>;
}

/** Fresh zero structs, for the chaincode to fill. */
export const zeroCollection = (): Mrc400Collection => readFields(COLLECTION, {});
export const zeroItem = (): Mrc401Item => readFields(ITEM, {});

const reads = new WeakMap<object, Mrc400Collection | Mrc401Item>();

/** GetMRC400/GetMRC401's read (an empty id filled from the key), frozen and shared: the chaincode copies it. */
function readRecord(fields: typeof COLLECTION | typeof ITEM, key: string, raw: object): Mrc400Collection | Mrc401Item {
  let record = reads.get(raw);
  if (record === undefined) {
    record = readFields<Record<string, FieldKind>>(fields, raw) as Mrc400Collection | Mrc401Item;
    record.id ||= key;
    reads.set(raw, Object.freeze(record));
  }
  return record;
}

export const readCollection = (key: string, raw: object) => readRecord(COLLECTION, key, raw) as Mrc400Collection;
export const readItem = (key: string, raw: object) => readRecord(ITEM, key, raw) as Mrc401Item;

/** What the MRC-400/401 planners draw from; an item is in one of `idle`, `onSale`, `inAuction` until melted. */
export interface Mrc400Index {
  /** Ids in creation order. */
  readonly collections: readonly string[];
  readonly items: readonly string[];
  itemsOf(collection: string): readonly string[];
  readonly idle: readonly string[];
  readonly onSale: readonly string[];
  readonly inAuction: readonly string[];
  /** A record as the current chaincode reads it. */
  collection(id: string): Mrc400Collection | undefined;
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
        // An item key starts with its collection's 40-character id.
        byCollection.get(key.slice(0, 40))?.push(key);
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
