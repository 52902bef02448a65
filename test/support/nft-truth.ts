import type { Devnet } from '@mtc/devnet';
import type { RawEntry } from '@mtc/domain';
import { validEntries } from './fungible-truth.ts';

/**
 * What the NFT endpoints must serve, computed from the devnet's world state (its NFT records and
 * wallets as the chaincode left them) and its raw chain — never from our decoder or projections.
 * The rules are the spec's plus what our OpenAPI document states:
 * - an MRC-402's circulation = created + minted − burned − melted units, counted from the chain's
 *   valid entries (not totalsupply − meltedamount: the chaincode's burn subtracts the melted amount
 *   again, metacoin-chain.md §7), and its holders' totals (balance + sale + auction) sum to it;
 * - MRC-400 holders count the items each address owns (melted items belong to nobody); an item on
 *   sale or in auction stays its owner's and counts in sellAmount / auctionAmount;
 * - ratio = a holding over what all holders hold, a percentage with 4 decimals rounded down;
 * - an item's image is its own URL, else its collection's item image URL with `{id}` replaced by the
 *   item id (the part after the collection) in hex.
 */
type World = ReturnType<Devnet['worldState']>;
type Wallet = World['wallets'][string];
export type Collection = World['mrc400s'][string];
export type Item = World['mrc401s'][string];
export type Mrc402 = World['mrc402s'][string];

const MELTED = 'MELTED';
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const big = (v: string | undefined): bigint => (v && /^-?[0-9]+$/.test(v) ? BigInt(v) : 0n);

/**
 * The world with each NFT record's `id` set to its key: CC-m wrote collections and items with an
 * empty `id` (the key is the id; metacoin-chain.md §4.3), and the API names every record by its key.
 */
export function withRecordIds(world: World): World {
  const keyed = <T extends { id: string }>(records: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(records).map(([id, r]) => [id, { ...r, id }]));
  return { ...world, mrc400s: keyed(world.mrc400s), mrc401s: keyed(world.mrc401s), mrc402s: keyed(world.mrc402s) };
}

/** `part` over `whole` as a percentage with 4 decimals, rounded down. */
export function ratio(part: bigint, whole: bigint): string {
  if (whole <= 0n || part <= 0n) return '0.0000';
  const text = ((part * 1_000_000n) / whole).toString().padStart(5, '0');
  return `${text.slice(0, -4)}.${text.slice(-4)}`;
}

const tenDigits = (units: bigint | string): string => `${units}.0000000000`;

export interface NftChain {
  /** Per record key (collection, item, MRC-402): the type of its last valid write. */
  lastType: Map<string, string>;
  /** Per collection: its items in creation order. */
  itemsOf: Map<string, string[]>;
  /** Per collection: the owner its creation gave it. */
  creatorOf: Map<string, string>;
  /** Per MRC-402: created + minted − burned − melted units. */
  circulation: Map<string, bigint>;
  /** Per NFT (collection or MRC-402): the valid transactions that touched it, in chain order. */
  touching: Map<string, string[]>;
}

const COLLECTION = /^MRC400_[0-9a-f]{32}[0-9]$/;
const ITEM = /^(MRC400_[0-9a-f]{32}[0-9])_[A-Za-z0-9]{40}$/;
const MRC402 = /^MRC402_[0-9a-f]{32}[0-9]$/;
const WALLET = /^MT[A-Za-z0-9]{38}$/;

/** Units of an amount parameter (job_args[2] for mint, burn and melt, as the chaincode writes them). */
function amountArg(e: RawEntry): bigint {
  const p = e.parameters;
  const amount = Array.isArray(p) ? p[2] : undefined;
  return typeof amount === 'string' ? big(amount) : 0n;
}

/** Reads what the chain says of its NFTs, in one pass over the valid entries. */
export function nftChain(devnet: Devnet): NftChain {
  const out: NftChain = {
    lastType: new Map(),
    itemsOf: new Map(),
    creatorOf: new Map(),
    circulation: new Map(),
    touching: new Map(),
  };
  /** Per wallet, its MRC-402 map as last written (to see which holdings a write changed). */
  const held = new Map<string, Record<string, { balance: string; saleamount: string; auctionamount: string }>>();
  const touch = (nft: string, txId: string): void => {
    const list = out.touching.get(nft) ?? [];
    if (list.at(-1) !== txId) list.push(txId);
    out.touching.set(nft, list);
  };
  for (const { txId, entry } of validEntries(devnet)) {
    const key = entry.datakey ?? '';
    const values = entry.values ?? {};
    const text = (field: string): string => {
      const v = values[field];
      return typeof v === 'string' ? v : '';
    };
    if (COLLECTION.test(key) || ITEM.test(key) || MRC402.test(key)) out.lastType.set(key, entry.type);
    if (COLLECTION.test(key)) {
      if (!out.creatorOf.has(key)) out.creatorOf.set(key, text('owner'));
      touch(key, txId);
    }
    const item = ITEM.exec(key);
    if (item) {
      const collection = item[1]!;
      const items = out.itemsOf.get(collection) ?? [];
      if (!items.includes(key)) items.push(key);
      out.itemsOf.set(collection, items);
      touch(collection, txId);
    }
    if (MRC402.test(key)) {
      touch(key, txId);
      const c = out.circulation.get(key) ?? 0n;
      if (entry.type === 'mrc402_create') out.circulation.set(key, big(text('totalsupply')));
      else if (entry.type === 'mrc402_mint') out.circulation.set(key, c + amountArg(entry));
      else if (entry.type === 'mrc402_burn' || entry.type === 'mrc402_melt')
        out.circulation.set(key, c - amountArg(entry));
    }
    // A DEX402 order names its MRC-402; bids and settlements write the order.
    const ordered = values['mrc402'];
    if (typeof ordered === 'string' && MRC402.test(ordered)) touch(ordered, txId);
    if (WALLET.test(key) && entry.values) {
      const before = held.get(key) ?? {};
      const after = (values['mrc402'] ?? {}) as typeof before;
      for (const id of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (JSON.stringify(before[id] ?? null) !== JSON.stringify(after[id] ?? null)) touch(id, txId);
      }
      held.set(key, after);
    }
  }
  return out;
}

/** Units of a wallet's holding of one MRC-402: balance + sale + auction escrow. */
const unitsOf = (h: { balance: string; saleamount: string; auctionamount: string }): bigint =>
  big(h.balance) + big(h.saleamount) + big(h.auctionamount);

const offer = (item: Item): 'sale' | 'auction' | 'held' =>
  item.sell_date > 0 ? 'sale' : item.auction_date > 0 ? 'auction' : 'held';

export function itemImage(item: Item, collection: Collection | undefined): string {
  const own = text(item, 'item_image_url');
  if (own !== '') return own;
  const hex = Buffer.from(item.id.slice(41), 'utf8').toString('hex');
  return (collection?.item_image_url ?? '').replaceAll('{id}', hex);
}

export function expectedMrc402(t: Mrc402, chain: NftChain): unknown {
  return {
    id: t.id,
    protocol: 'MRC402',
    creator: t.creator,
    owner: t.creator,
    name: t.name,
    totalsupply: t.totalsupply,
    meltedamount: t.meltedamount,
    circulation_supply: String(chain.circulation.get(t.id) ?? 0n),
    decimal: t.decimal,
    creatorcommission: t.creatorcommission,
    image: t.image,
    url: t.url,
    info: t.info,
    expiredate: t.expiredate,
    initialreserve: t.initialreserve ?? {},
    shareholder: t.shareholder,
    job_type: chain.lastType.get(t.id),
  };
}

export function expectedCollection(c: Collection, chain: NftChain): unknown {
  return {
    id: c.id,
    protocol: 'MRC400',
    owner: c.owner,
    creator: chain.creatorOf.get(c.id),
    name: c.name,
    category: c.category,
    description: c.description,
    url: c.url,
    image_url: c.image_url,
    image: c.image_url,
    item_url: c.item_url,
    item_image_url: c.item_image_url,
    allow_token: c.allow_token,
    job_type: chain.lastType.get(c.id),
    createdate: c.createdate,
  };
}

/** A string field of a record as the API shows it: "" when the chaincode's layout has no such field (CC-m items). */
function text(record: object, field: string): string {
  const v = (record as Record<string, unknown>)[field];
  return typeof v === 'string' ? v : '';
}

export function expectedItem(item: Item, world: World, chain: NftChain): unknown {
  const parent = world.mrc400s[item.mrc400];
  return {
    id: item.id,
    protocol: 'MRC401',
    mrc400: item.mrc400,
    owner: item.owner,
    creator: text(item, 'creator'),
    name: parent?.name ?? '',
    image: itemImage(item, parent),
    item_image_url: text(item, 'item_image_url'),
    parent: item.mrc400,
    parentName: parent?.name ?? '',
    parentImage: parent?.image_url ?? '',
    groupid: text(item, 'groupid'),
    createdate: item.createdate,
    transferable: text(item, 'transferable'),
    status: item.owner === MELTED ? 'melted' : offer(item),
    sell_price: text(item, 'sell_price'),
    sell_token: text(item, 'sell_token'),
    auction_start_price: text(item, 'auction_start_price'),
    job_type: chain.lastType.get(item.id),
  };
}

export interface ExpectedHolders {
  total: number;
  total_balance: string;
  holders: unknown[];
}

/** An MRC-402's holders from the wallets' `mrc402` maps: largest total first, then address. */
export function expectedMrc402Holders(id: string, wallets: Record<string, Wallet>): ExpectedHolders {
  const rows = Object.entries(wallets).flatMap(([address, w]) => {
    const h = w.mrc402?.[id];
    if (!h || (h.balance === '0' && h.saleamount === '0' && h.auctionamount === '0')) return [];
    return [{ address, h, total: unitsOf(h) }];
  });
  const whole = rows.reduce((s, r) => s + r.total, 0n);
  rows.sort((a, b) => (a.total === b.total ? byteOrder(a.address, b.address) : a.total > b.total ? -1 : 1));
  return {
    total: rows.length,
    total_balance: tenDigits(whole),
    holders: rows.map((r) => ({
      address: r.address,
      amount: tenDigits(r.h.balance),
      sellAmount: tenDigits(r.h.saleamount),
      auctionAmount: tenDigits(r.h.auctionamount),
      total: tenDigits(r.total),
      ratio: ratio(r.total, whole),
    })),
  };
}

/** A collection's holders from its items' owners: most items first, then address. */
export function expectedCollectionHolders(collection: string, items: readonly Item[]): ExpectedHolders {
  const by = new Map<string, { sale: number; auction: number; count: number }>();
  for (const item of items) {
    if (item.mrc400 !== collection || item.owner === MELTED) continue;
    const row = by.get(item.owner) ?? { sale: 0, auction: 0, count: 0 };
    row.count++;
    const state = offer(item);
    if (state === 'sale') row.sale++;
    if (state === 'auction') row.auction++;
    by.set(item.owner, row);
  }
  const whole = [...by.values()].reduce((s, r) => s + r.count, 0);
  const rows = [...by.entries()].sort(([a, x], [b, y]) => (x.count === y.count ? byteOrder(a, b) : y.count - x.count));
  return {
    total: rows.length,
    total_balance: String(whole),
    holders: rows.map(([address, r]) => ({
      address,
      amount: String(r.count - r.sale - r.auction),
      sellAmount: String(r.sale),
      auctionAmount: String(r.auction),
      total: String(r.count),
      ratio: ratio(BigInt(r.count), BigInt(whole)),
    })),
  };
}

/** An address's `nfts`: MRC-402 holdings by id, then owned items by collection and id. */
export function expectedNftHoldings(address: string, world: World): unknown[] {
  const wallet = world.wallets[address];
  const mrc402 = Object.entries(wallet?.mrc402 ?? {})
    .filter(([, h]) => !(h.balance === '0' && h.saleamount === '0' && h.auctionamount === '0'))
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([id, h]) => ({
      id,
      name: world.mrc402s[id]?.name ?? '',
      image: world.mrc402s[id]?.image ?? '',
      balance: h.balance,
      saleamount: h.saleamount,
      auctionamount: h.auctionamount,
      parent: '',
      parentName: '',
    }));
  const items = Object.values(world.mrc401s)
    .filter((i) => i.owner === address)
    .sort((a, b) => byteOrder(a.mrc400, b.mrc400) || byteOrder(a.id, b.id))
    .map((item) => {
      const parent = world.mrc400s[item.mrc400];
      const state = offer(item);
      return {
        id: item.id,
        name: parent?.name ?? '',
        image: itemImage(item, parent),
        balance: state === 'held' ? '1' : '0',
        saleamount: state === 'sale' ? '1' : '0',
        auctionamount: state === 'auction' ? '1' : '0',
        parent: item.mrc400,
        parentName: parent?.name ?? '',
      };
    });
  return [...mrc402, ...items];
}
