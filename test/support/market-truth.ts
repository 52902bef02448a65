import type { Devnet } from '@mtc/devnet';
import { DEX010, MRC400, MRC402 } from '@mtc/domain';
import { expect } from 'vitest';
import type { BackfillComparisons } from './during-backfill.ts';
import { validEntries } from './fungible-truth.ts';

/**
 * What the DEX-market endpoints (/api/market/orders, /order/{id}, /trades, /stats) must serve at a
 * height, computed from the devnet's raw chain alone — the valid writes of DEX010_/DEX402_ order
 * records and MRC-401 items (metacoin-chain.md §3.4, §3.6, §4) — never from our decoder or read
 * models; and the checks that walk the API against it, each answer held to the truth at the height
 * its X-Indexed-Height names.
 *
 * An order is a DEX record in any status, or an MRC-401 item while offered (sale or auction, always
 * open). A trade is a valid write of a DEX record or an item by a settling job type (TRADE_KINDS).
 * Amounts, prices and values stay integer strings as the chain writes them, "" read as "0".
 */

export type Protocol = 'MRC010' | 'MRC402' | 'MRC401';
export type Side = 'sell' | 'buy' | 'auction';
export type Status = 'open' | 'filled' | 'cancelled' | 'sold' | 'failed';
export type TradeKind = 'sale' | 'request' | 'auction';

export interface Order {
  id: string;
  protocol: Protocol;
  asset: string;
  nftId: string;
  side: Side;
  status: Status;
  owner: string;
  amount: string;
  remaining: string;
  price: string;
  unit: string;
  payToken: number;
  createdAt: number;
  expiry: number;
  auction: {
    startDate: number;
    endDate: number;
    startPrice: string;
    buyNowPrice: string;
    biddingUnit: string;
    currentPrice: string;
    currentBidder: string;
  } | null;
  platform: { name: string; url: string; address: string; commission: string };
  height: number;
}

export interface Trade {
  txId: string;
  height: number;
  timestamp: number;
  protocol: Protocol;
  asset: string;
  nftId: string;
  orderId: string;
  kind: TradeKind;
  seller: string;
  buyer: string;
  amount: string;
  price: string;
  unit: string;
  payToken: number;
  value: string;
}

export interface PayTokenStats {
  payToken: number;
  trades: number;
  volume: string;
  trades24h: number;
  volume24h: string;
  lastPrice: string;
  lastUnit: string;
  lastTime: number;
}

export interface Stats {
  asset: string;
  protocol: Protocol;
  time: number;
  orders: Record<Side, number>;
  payTokens: PayTokenStats[];
}

type Values = Readonly<Record<string, unknown>>;

/** One valid write of an order record or an item, in chain order. */
interface RecordWrite {
  key: string;
  height: number;
  values: Values;
}

/** A trade with the time of its block (what stats' 24-hour window and lastTime read). */
interface ChainTrade {
  trade: Trade;
  blockTime: number;
}

/** What the chain says of its market, in one pass over the valid entries. */
export interface MarketChain {
  head: number;
  /** Order-record and item writes in chain order. */
  writes: readonly RecordWrite[];
  trades: readonly ChainTrade[];
  /** Per asset (token id in decimal, MRC402_ id, MRC400_ collection id): the height it was first written. */
  assets: ReadonlyMap<string, number>;
  /** Block time by height (index 0 unused). */
  blockTimes: readonly number[];
  /** Truths already computed, by height. */
  cache: Map<number, MarketAt>;
}

const DEX010_KEY = /^DEX010_[0-9a-f]{32}[0-9]$/;
const DEX402_KEY = /^DEX402_[0-9a-f]{32}[0-9]$/;
const ITEM_KEY = /^(MRC400_[0-9a-f]{32}[0-9])_[A-Za-z0-9]{40}$/;
const COLLECTION_KEY = /^MRC400_[0-9a-f]{32}[0-9]$/;
const MRC402_KEY = /^MRC402_[0-9a-f]{32}[0-9]$/;
const TOKEN_KEY = /^TOKEN_DATA_([0-9]+)$/;

/** The job types whose write of an order record or an item is a trade, by kind. */
const TRADE_KINDS: Readonly<Record<string, TradeKind>> = {
  [DEX010.buy]: 'sale',
  [DEX010.acceptreqsell]: 'request',
  [DEX010.auctionwinning]: 'auction',
  [DEX010.auctionbuynow]: 'auction',
  [MRC402.buy]: 'sale',
  [MRC402.auctionwinning]: 'auction',
  [MRC402.auctionbuynow]: 'auction',
  [MRC400.itemBuy]: 'sale',
  // A create-and-sell (CC-t mrc401createtrade): the item comes to be and is bought at once, a sale.
  [MRC400.itemCreatetrade]: 'sale',
  [MRC400.itemAuctionwinning]: 'auction',
  [MRC400.itemAuctionbuynow]: 'auction',
};

const text = (v: Values | undefined, field: string): string => {
  const x = v?.[field];
  return typeof x === 'string' ? x : '';
};
const int = (v: Values | undefined, field: string): number => {
  const x = v?.[field];
  return typeof x === 'number' ? x : 0;
};
/** An amount or price as the chain wrote it; "" (and absent) reads as "0". */
const amount = (v: Values | undefined, field: string): string => text(v, field) || '0';
const big = (s: string): bigint => (/^-?[0-9]+$/.test(s) ? BigInt(s) : 0n);
const decimal = (s: string): string => big(s).toString();
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function protocolOf(asset: string): Protocol {
  if (asset.startsWith('MRC402_')) return 'MRC402';
  if (asset.startsWith('MRC400_')) return 'MRC401';
  return 'MRC010';
}

/** Reads the chain's market writes, trades and assets, in one pass over its valid entries. */
export function marketChain(devnet: Devnet): MarketChain {
  const writes: RecordWrite[] = [];
  const trades: ChainTrade[] = [];
  const assets = new Map<string, number>();
  const blockTimes = [0];
  for (let h = 1; h <= devnet.height(); h++) blockTimes.push(devnet.block(h)!.timestamp);
  const last = new Map<string, Values>();
  for (const { height, txId, entry } of validEntries(devnet)) {
    const key = entry.datakey ?? '';
    const values = entry.values;
    if (!values) continue;
    const token = TOKEN_KEY.exec(key);
    const asset = token ? decimal(token[1]!) : MRC402_KEY.test(key) || COLLECTION_KEY.test(key) ? key : null;
    if (asset !== null && !assets.has(asset)) assets.set(asset, height);
    if (!DEX010_KEY.test(key) && !DEX402_KEY.test(key) && !ITEM_KEY.test(key)) continue;
    writes.push({ key, height, values });
    const kind = TRADE_KINDS[entry.type];
    const before = last.get(key);
    last.set(key, values);
    if (kind === undefined) continue;
    const parameters = Array.isArray(entry.parameters) ? entry.parameters : [];
    const trade = tradeOf(key, kind, before, values, typeof parameters[1] === 'string' ? parameters[1] : '');
    trades.push({
      trade: { txId, height, timestamp: entry.timestamp, ...trade },
      blockTime: blockTimes[height]!,
    });
  }
  return { head: devnet.height(), writes, trades, assets, blockTimes, cache: new Map() };
}

/** The trade a settling write makes, from the record before and after it. */
function tradeOf(
  key: string,
  kind: TradeKind,
  before: Values | undefined,
  after: Values,
  /** job_args[1]: the seller a create-and-sell names (its item has no owner before it). */
  namedSeller: string,
): Omit<Trade, 'txId' | 'height' | 'timestamp'> {
  const item = ITEM_KEY.exec(key);
  if (item) {
    const price = amount(after, 'last_trade_amount');
    return {
      protocol: 'MRC401',
      asset: item[1]!,
      nftId: key,
      orderId: key,
      kind,
      seller: before ? text(before, 'owner') : namedSeller,
      buyer: text(after, 'owner'),
      amount: '1',
      price,
      unit: '1',
      payToken: Number(text(after, 'last_trade_token')),
      value: price,
    };
  }
  const dex010 = DEX010_KEY.test(key);
  const head = {
    protocol: dex010 ? ('MRC010' as const) : ('MRC402' as const),
    asset: dex010 ? decimal(text(after, 'mrc010')) : text(after, 'mrc402'),
    nftId: dex010 ? '' : text(after, 'mrc402'),
    orderId: key,
    kind,
  };
  if (kind === 'auction') {
    const price = amount(after, 'auction_current_price');
    return {
      ...head,
      seller: text(after, 'seller'),
      buyer: text(after, 'auction_current_bidder'),
      amount: amount(after, 'amount'),
      price,
      unit: '1',
      payToken: Number(text(after, 'sell_token')),
      value: price,
    };
  }
  const traded = big(amount(before, 'remain_amount')) - big(amount(after, 'remain_amount'));
  const request = kind === 'request';
  const price = amount(after, request ? 'buy_price' : 'sell_price');
  const unit = dex010 ? text(after, 'min_trade_unit') || '1' : '1';
  return {
    ...head,
    seller: text(after, 'seller'),
    buyer: text(after, 'buyer'),
    amount: traded.toString(),
    price,
    unit,
    payToken: Number(text(after, request ? 'buy_token' : 'sell_token')),
    value: ((traded * big(price)) / big(unit)).toString(),
  };
}

const platformOf = (v: Values): Order['platform'] => ({
  name: text(v, 'platform_name'),
  url: text(v, 'platform_url'),
  address: text(v, 'platform_address'),
  commission: text(v, 'platform_commission'),
});

/** A DEX010 or DEX402 record as an order, in whatever status it is. */
export function dexOrder(key: string, v: Values, height: number): Order {
  const dex010 = DEX010_KEY.test(key);
  const side: Side =
    int(v, 'auction_start_date') > 0 ? 'auction' : dex010 && text(v, 'buy_token') !== '' ? 'buy' : 'sell';
  let status: Status;
  if (int(v, 'cancel_date') > 0) status = 'cancelled';
  else if (side === 'auction')
    status = int(v, 'auction_settle_date') > 0 ? (int(v, 'sell_date') > 0 ? 'sold' : 'failed') : 'open';
  else status = amount(v, 'remain_amount') === '0' || int(v, 'sell_date') > 0 ? 'filled' : 'open';
  const auction = side === 'auction';
  return {
    id: key,
    protocol: dex010 ? 'MRC010' : 'MRC402',
    asset: dex010 ? decimal(text(v, 'mrc010')) : text(v, 'mrc402'),
    nftId: dex010 ? '' : text(v, 'mrc402'),
    side,
    status,
    owner: text(v, side === 'buy' ? 'buyer' : 'seller'),
    amount: amount(v, 'amount'),
    remaining: auction ? (status === 'open' ? amount(v, 'amount') : '0') : amount(v, 'remain_amount'),
    price: auction
      ? amount(v, int(v, 'auction_bid_count') > 0 ? 'auction_current_price' : 'auction_start_price')
      : amount(v, side === 'buy' ? 'buy_price' : 'sell_price'),
    unit: dex010 && !auction ? text(v, 'min_trade_unit') || '1' : '1',
    payToken: Number(text(v, side === 'buy' ? 'buy_token' : 'sell_token')),
    createdAt: int(v, 'regdate'),
    expiry: auction ? int(v, 'auction_end_date') : 0,
    auction: auction
      ? {
          startDate: int(v, 'auction_start_date'),
          endDate: int(v, 'auction_end_date'),
          startPrice: amount(v, 'auction_start_price'),
          buyNowPrice: amount(v, 'auction_buynow_price'),
          biddingUnit: amount(v, 'auction_bidding_unit'),
          currentPrice: amount(v, 'auction_current_price'),
          currentBidder: text(v, 'auction_current_bidder'),
        }
      : null,
    platform: platformOf(v),
    height,
  };
}

/** An MRC-401 item as an order while it is offered (sale: sell_date > 0, auction: auction_date > 0); else null. */
export function itemOrder(key: string, v: Values, height: number): Order | null {
  const collection = ITEM_KEY.exec(key)?.[1] ?? '';
  const auction = int(v, 'auction_date') > 0;
  if (!auction && int(v, 'sell_date') <= 0) return null;
  return {
    id: key,
    protocol: 'MRC401',
    asset: collection,
    nftId: key,
    side: auction ? 'auction' : 'sell',
    status: 'open',
    owner: text(v, 'owner'),
    amount: '1',
    remaining: '1',
    price: auction
      ? amount(v, text(v, 'auction_current_bidder') !== '' ? 'auction_current_price' : 'auction_start_price')
      : amount(v, 'sell_price'),
    unit: '1',
    payToken: Number(text(v, auction ? 'auction_token' : 'sell_token')),
    createdAt: int(v, auction ? 'auction_date' : 'sell_date'),
    expiry: auction ? int(v, 'auction_end') : 0,
    auction: auction
      ? {
          startDate: int(v, 'auction_date'),
          endDate: int(v, 'auction_end'),
          startPrice: amount(v, 'auction_start_price'),
          buyNowPrice: amount(v, 'auction_buynow_price'),
          biddingUnit: amount(v, 'auction_bidding_unit'),
          currentPrice: amount(v, 'auction_current_price'),
          currentBidder: text(v, 'auction_current_bidder'),
        }
      : null,
    platform: platformOf(v),
    height,
  };
}

/** The market as it stood after block `height`. */
export interface MarketAt {
  height: number;
  /** The time of the block at the height. */
  time: number;
  /** Every DEX order in any status and every offered item, by id. */
  orders: ReadonlyMap<string, Order>;
  /** Per order-record or item key: its last written values (for the records' self-check). */
  records: ReadonlyMap<string, Values>;
  /** Trades up to the height, in chain order. */
  trades: readonly ChainTrade[];
  /** The assets that exist at the height. */
  assets: ReadonlySet<string>;
}

/** The market after block `height`: per key, its last valid write at or below it. Computed once per height. */
export function marketAt(chain: MarketChain, height: number): MarketAt {
  const known = chain.cache.get(height);
  if (known) return known;
  const records = new Map<string, Values>();
  const heights = new Map<string, number>();
  for (const w of chain.writes) {
    if (w.height > height) break;
    records.set(w.key, w.values);
    heights.set(w.key, w.height);
  }
  const orders = new Map<string, Order>();
  for (const [key, v] of records) {
    const order = ITEM_KEY.test(key) ? itemOrder(key, v, heights.get(key)!) : dexOrder(key, v, heights.get(key)!);
    if (order) orders.set(key, order);
  }
  const at: MarketAt = {
    height,
    time: chain.blockTimes[height] ?? 0,
    orders,
    records,
    trades: chain.trades.filter((t) => t.trade.height <= height),
    assets: new Set([...chain.assets].filter(([, h]) => h <= height).map(([asset]) => asset)),
  };
  chain.cache.set(height, at);
  return at;
}

export interface OrderQuery {
  asset?: string;
  owner?: string;
  side?: Side;
}

/** Unit price a/b ascending, as rationals. */
const unitPriceOrder = (a: Order, b: Order): number => {
  const l = big(a.price) * big(b.unit);
  const r = big(b.price) * big(a.unit);
  return l < r ? -1 : l > r ? 1 : 0;
};

/**
 * The open orders a query lists, in its order: with an asset and a side (and no owner) sales by unit
 * price ascending, requests by unit price descending, auctions by expiry ascending, ties by id
 * ascending; otherwise newest created first, ties by id descending.
 */
export function openOrders(m: MarketAt, q: OrderQuery): Order[] {
  const rows = [...m.orders.values()].filter(
    (o) =>
      o.status === 'open' &&
      (q.asset === undefined || o.asset === q.asset) &&
      (q.owner === undefined || o.owner === q.owner) &&
      (q.side === undefined || o.side === q.side),
  );
  const side = q.asset !== undefined && q.owner === undefined ? q.side : undefined;
  const compare: (a: Order, b: Order) => number =
    side === 'sell'
      ? unitPriceOrder
      : side === 'buy'
        ? (a, b) => unitPriceOrder(b, a)
        : side === 'auction'
          ? (a, b) => a.expiry - b.expiry
          : (a, b) => b.createdAt - a.createdAt || byteOrder(b.id, a.id);
  return rows.sort((a, b) => compare(a, b) || byteOrder(a.id, b.id));
}

/** The trades of an asset (in one pay token if given), newest first. */
export function tradesOf(m: MarketAt, asset: string, payToken?: number): Trade[] {
  return m.trades
    .filter((t) => t.trade.asset === asset && (payToken === undefined || t.trade.payToken === payToken))
    .map((t) => t.trade)
    .reverse();
}

/** /market/stats of an asset; null when it does not exist at the height (404). */
export function expectedStats(m: MarketAt, asset: string): Stats | null {
  if (!m.assets.has(asset)) return null;
  const orders: Record<Side, number> = { sell: 0, buy: 0, auction: 0 };
  for (const o of openOrders(m, { asset })) orders[o.side]++;
  const by = new Map<number, { s: PayTokenStats; volume: bigint; volume24h: bigint }>();
  for (const { trade, blockTime } of m.trades) {
    if (trade.asset !== asset) continue;
    let row = by.get(trade.payToken);
    if (!row) {
      const s = {
        payToken: trade.payToken,
        trades: 0,
        volume: '0',
        trades24h: 0,
        volume24h: '0',
        lastPrice: '',
        lastUnit: '',
        lastTime: 0,
      };
      by.set(trade.payToken, (row = { s, volume: 0n, volume24h: 0n }));
    }
    row.s.trades++;
    row.volume += BigInt(trade.value);
    if (blockTime > m.time - 86_400) {
      row.s.trades24h++;
      row.volume24h += BigInt(trade.value);
    }
    row.s.lastPrice = trade.price;
    row.s.lastUnit = trade.unit;
    row.s.lastTime = blockTime;
  }
  const payTokens = [...by.values()]
    .sort((a, b) => a.s.payToken - b.s.payToken)
    .map(({ s, volume, volume24h }) => ({ ...s, volume: volume.toString(), volume24h: volume24h.toString() }));
  return { asset, protocol: protocolOf(asset), time: m.time, orders, payTokens };
}

/** Counts of orders by `protocol side status` and of trades by `protocol kind trades`, for sanity floors. */
export function marketCensus(m: MarketAt): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (key: string) => (out[key] = (out[key] ?? 0) + 1);
  for (const o of m.orders.values()) add(`${o.protocol} ${o.side} ${o.status}`);
  for (const { trade } of m.trades) add(`${trade.protocol} ${trade.kind} trades`);
  return out;
}

/** Up to `per` orders of each protocol, side and status, spread over the history (by id). */
export function sampleOrders(m: MarketAt, per: number, protocols: readonly Protocol[]): Order[] {
  const groups = new Map<string, Order[]>();
  for (const o of m.orders.values()) {
    if (!protocols.includes(o.protocol)) continue;
    const key = `${o.protocol} ${o.side} ${o.status}`;
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  return [...groups.values()].flatMap((g) => {
    g.sort((a, b) => byteOrder(a.id, b.id));
    const step = Math.max(1, Math.floor(g.length / per));
    return g.filter((_, i) => i % step === 0).slice(0, per);
  });
}

/** The `n` addresses owning the most open orders (of `protocols`), most first, ties by address. */
export function busiestOwners(m: MarketAt, n: number, protocols: readonly Protocol[]): string[] {
  const counts = new Map<string, number>();
  for (const o of m.orders.values())
    if (o.status === 'open' && protocols.includes(o.protocol)) counts.set(o.owner, (counts.get(o.owner) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || byteOrder(a[0], b[0]))
    .slice(0, n)
    .map(([a]) => a);
}

/** The assets of `protocol` with the most trades at the head, most first. */
export function busiestAssets(chain: MarketChain, protocol: Protocol, n: number): string[] {
  const counts = new Map<string, number>();
  for (const { trade } of chain.trades)
    if (trade.protocol === protocol) counts.set(trade.asset, (counts.get(trade.asset) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || byteOrder(a[0], b[0]))
    .slice(0, n)
    .map(([a]) => a);
}

// ---------------------------------------------------------------- checks against the API

export interface Stamped<T> {
  status: number;
  /** X-Indexed-Height: the height the answer is true at (-1 when absent). */
  height: number;
  body: T;
}

export async function getStamped<T>(url: string): Promise<Stamped<T>> {
  const res = await fetch(url).catch((error: unknown) => {
    // A kept-alive socket the server closed as idle (explorer-process.ts getJson): a GET may be resent.
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url);
  });
  const stamp = res.headers.get('x-indexed-height');
  const height = stamp !== null && /^[0-9]+$/.test(stamp) ? Number(stamp) : -1;
  const text = await res.text();
  // A body that is not JSON stays text, so that a comparison shows it rather than a parse error.
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text
  }
  return { status: res.status, height, body: body as T };
}

interface OrderPage {
  total: number;
  page: number;
  limit: number;
  items: Order[];
  next: string | null;
  prev: string | null;
}

interface TradePage extends Omit<OrderPage, 'items'> {
  next: string | null;
  prev: string | null;
  items: Trade[];
}

/** Runs `fn` over `items`, at most `concurrency` at a time. */
export async function inBatches<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/** Page size of the walks: small enough that the longest lists take several pages. */
const LIMIT = 50;

/**
 * Every page of a paged market list at limit LIMIT: each 200, echoing its page and limit, stamped
 * with one height, with one total; the rows across pages number the total.
 */
async function readPages<P extends { total: number; page: number; limit: number; items: unknown[] }>(
  url: string,
): Promise<{ height: number; total: number; items: P['items']; first: P }> {
  const items: P['items'] = [];
  let height = -1;
  let first: P | undefined;
  for (let page = 1; ; page++) {
    const r = await getStamped<P>(`${url}&page=${page}&limit=${LIMIT}`);
    expect(r.status, `${url} page ${page}`).toBe(200);
    expect({ page: r.body.page, limit: r.body.limit }, `${url} page ${page}`).toEqual({ page, limit: LIMIT });
    if (page === 1) {
      expect(r.height, `${url}: X-Indexed-Height`).toBeGreaterThan(0);
      height = r.height;
      first = r.body;
    }
    expect(r.height, `${url} page ${page}: X-Indexed-Height as page 1's`).toBe(height);
    expect(r.body.total, `${url} page ${page}: total as page 1's`).toBe(first!.total);
    items.push(...r.body.items);
    if (r.body.items.length < LIMIT) break;
    if (page > first!.total / LIMIT + 1) throw new Error(`${url}: more pages than its total of ${first!.total}`);
  }
  expect(items.length, `${url}: rows across pages vs total`).toBe(first!.total);
  return { height, total: first!.total, items, first: first! };
}

/** Compares two lists of records by id first (a readable failure), then each record whole. */
function expectRecords<T>(got: readonly T[], want: readonly T[], idOf: (r: T) => string, label: string): void {
  expect(got.map(idOf), `${label}: ids in order`).toEqual(want.map(idOf));
  got.forEach((r, i) => expect(r, `${label}: ${idOf(r)}`).toEqual(want[i]));
}

const queryOf = (q: OrderQuery): string =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/** /market/orders for `q`, every page, equal to the open orders at its height; the rows it listed. */
export async function expectOpenOrders(api: string, chain: MarketChain, q: OrderQuery): Promise<number> {
  const url = `${api}/api/market/orders?${queryOf(q)}`;
  const { height, items } = await readPages<OrderPage>(url);
  expectRecords(items, openOrders(marketAt(chain, height), q), (o) => o.id, `${queryOf(q)} at ${height}`);
  return items.length;
}

/**
 * /market/orders for `q` walked by its cursors, down by `next` from page 1 (`limit` a page) and
 * back up by `prev` (`limit` / 2 + 1 a page): both equal to the open orders at the height page 1
 * names. The walk is held to one height; it runs at the head, where nothing moves.
 */
export async function expectOpenOrdersByCursor(
  api: string,
  chain: MarketChain,
  q: OrderQuery,
  limit = 10,
): Promise<number> {
  const base = `${api}/api/market/orders?${queryOf(q)}`;
  let r = await getStamped<OrderPage>(`${base}&limit=${limit}`);
  const height = r.height;
  const want = openOrders(marketAt(chain, height), q);
  const step = async (query: string) => {
    const got = await getStamped<OrderPage>(`${base}&${query}`);
    expect(got.status, `${base} ${query}`).toBe(200);
    expect(got.height, `${base} ${query}: X-Indexed-Height as page 1's`).toBe(height);
    return got;
  };
  const down: Order[] = [];
  for (let n = 0; ; n++) {
    down.push(...r.body.items);
    if (r.body.next === null || n > want.length) break;
    r = await step(`limit=${limit}&cursor=${encodeURIComponent(r.body.next)}`);
  }
  expectRecords(down, want, (o) => o.id, `${queryOf(q)} by next at ${height}`);
  const up: Order[] = [];
  for (let n = 0; ; n++) {
    up.unshift(...r.body.items);
    if (r.body.prev === null || n > want.length) break;
    r = await step(`limit=${Math.floor(limit / 2) + 1}&cursor=${encodeURIComponent(r.body.prev)}`);
  }
  expectRecords(up, want, (o) => o.id, `${queryOf(q)} by prev at ${height}`);
  return want.length;
}

const tradeId = (t: Trade) => `${t.txId}:${t.orderId}`;

/** /market/trades of an asset (in one pay token if given), every page, equal to its trades at its height. */
export async function expectTrades(api: string, chain: MarketChain, asset: string, payToken?: number): Promise<number> {
  const filter = payToken === undefined ? '' : `&payToken=${payToken}`;
  const url = `${api}/api/market/trades?asset=${asset}${filter}`;
  const { height, items } = await readPages<TradePage>(url);
  const want = tradesOf(marketAt(chain, height), asset, payToken);
  expectRecords(items, want, tradeId, `trades of ${asset}${filter} at ${height}`);
  return items.length;
}

/** /market/trades of an asset walked by its `next` cursors from page 1: every trade once, newest first. */
export async function expectTradesByCursor(api: string, chain: MarketChain, asset: string): Promise<void> {
  const base = `${api}/api/market/trades?asset=${asset}&limit=${LIMIT}`;
  const first = await getStamped<TradePage>(base);
  expect(first.status, base).toBe(200);
  expect(first.height, `${base}: X-Indexed-Height`).toBeGreaterThan(0);
  const items = [...first.body.items];
  let next = first.body.next;
  for (let i = 0; next; i++) {
    if (i > first.body.total / LIMIT + 1) throw new Error(`${base}: more cursor pages than its total`);
    const r = await getStamped<TradePage>(`${base}&cursor=${encodeURIComponent(next)}`);
    expect(r.status, `${base} cursor ${next}`).toBe(200);
    expect(r.height, `${base} cursor ${next}: X-Indexed-Height`).toBe(first.height);
    items.push(...r.body.items);
    next = r.body.next;
  }
  const want = tradesOf(marketAt(chain, first.height), asset);
  expectRecords(items, want, tradeId, `trades of ${asset} by cursor at ${first.height}`);
}

/** /market/stats of an asset: its truth at the stamped height, or 404 where it does not exist. */
export async function expectStats(api: string, chain: MarketChain, asset: string): Promise<Stats | null> {
  const r = await getStamped<Stats>(`${api}/api/market/stats?asset=${asset}`);
  expect(r.height, `stats of ${asset}: X-Indexed-Height`).toBeGreaterThan(0);
  const want = expectedStats(marketAt(chain, r.height), asset);
  expect(r.status, `stats of ${asset} at ${r.height}`).toBe(want ? 200 : 404);
  if (want) expect(r.body, `stats of ${asset} at ${r.height}`).toEqual(want);
  return want;
}

/**
 * Everything the market serves of one asset, at the heights its answers name: stats, the open
 * orders of each side and of all sides (every page; by cursors both ways where they take pages),
 * its trades (every page, by cursor, and in its commonest pay token). The counts it compared.
 */
export async function expectAssetMarket(
  api: string,
  chain: MarketChain,
  asset: string,
): Promise<{ orders: number; trades: number; walked: number }> {
  const stats = await expectStats(api, chain, asset);
  let orders = 0;
  let walked = 0;
  for (const side of [undefined, 'sell', 'buy', 'auction'] as const) {
    const listed = await expectOpenOrders(api, chain, { asset, side });
    orders += listed;
    // Several pages each way: 3 a page for short lists, 10 for long ones.
    if (listed > 3) walked += await expectOpenOrdersByCursor(api, chain, { asset, side }, listed > 30 ? 10 : 3);
  }
  const trades = await expectTrades(api, chain, asset);
  if (trades > 0) {
    await expectTradesByCursor(api, chain, asset);
    const commonest = [...(stats?.payTokens ?? [])].sort((a, b) => b.trades - a.trades)[0];
    if (commonest) await expectTrades(api, chain, asset, commonest.payToken);
  }
  return { orders, trades, walked };
}

/** /market/order/{id}: the order at the stamped height, or 404 where the chain has none (or the item is not offered). */
export async function expectOrder(api: string, chain: MarketChain, id: string): Promise<Order | null> {
  const r = await getStamped<Order>(`${api}/api/market/order/${id}`);
  expect(r.height, `order ${id}: X-Indexed-Height`).toBeGreaterThan(0);
  const want = marketAt(chain, r.height).orders.get(id) ?? null;
  expect(r.status, `order ${id} at ${r.height}`).toBe(want ? 200 : 404);
  if (want) expect(r.body, `order ${id} at ${r.height}`).toEqual(want);
  return want;
}

/**
 * The leaves where `got` and `want` differ (at most `max`), by path, each side's value; both empty
 * when they are equal. Keeps a mismatch's message to the fields that differ.
 */
export function differences(got: unknown, want: unknown, max = 4): { got: object; want: object } {
  const out = { got: {} as Record<string, unknown>, want: {} as Record<string, unknown> };
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (Object.keys(out.got).length >= max) return;
    const objects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
    if (objects && Array.isArray(a) === Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const k of keys) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.got[path] = a ?? null;
      out.want[path] = b ?? null;
    }
  };
  walk(got, want, '');
  return out;
}

/**
 * During the backfill, for each asset: stats, page 1 of its open orders of each side and page 1 of
 * its trades, each held to the truth at the height its answer names (lists only where the asset
 * exists at that height). Records into `during` (its own instance: its world() is not used) the
 * fields that differ. Returns the rows the compared order pages held, by `protocol side`, so that a
 * caller can tell that it compared orders and not only empty lists.
 */
export async function compareMarketDuring(
  during: BackfillComparisons,
  chain: MarketChain,
  url: string,
  assets: readonly string[],
): Promise<Record<string, number>> {
  const limit = 20;
  const rows: Record<string, number> = {};
  const compare = (what: string, height: number, got: unknown, want: unknown) => {
    const d = differences(got, want);
    during.compare(what, height, d.got, d.want);
  };
  for (const asset of assets) {
    const stats = await getStamped<unknown>(`${url}/api/market/stats?asset=${asset}`);
    const want = expectedStats(marketAt(chain, stats.height), asset);
    compare(
      `market stats of ${asset}`,
      stats.height,
      { status: stats.status, body: want ? stats.body : null },
      { status: want ? 200 : 404, body: want },
    );
    for (const side of ['sell', 'buy', 'auction'] as const) {
      const page = await getStamped<OrderPage>(`${url}/api/market/orders?asset=${asset}&side=${side}&limit=${limit}`);
      const at = marketAt(chain, page.height);
      if (!at.assets.has(asset)) continue;
      const open = openOrders(at, { asset, side });
      const key = `${protocolOf(asset)} ${side}`;
      rows[key] = (rows[key] ?? 0) + Math.min(limit, open.length);
      compare(
        `market ${side} orders of ${asset}`,
        page.height,
        { status: page.status, total: page.body.total, items: page.body.items },
        { status: 200, total: open.length, items: open.slice(0, limit) },
      );
    }
    const trades = await getStamped<TradePage>(`${url}/api/market/trades?asset=${asset}&limit=${limit}`);
    const at = marketAt(chain, trades.height);
    if (at.assets.has(asset)) {
      const all = tradesOf(at, asset);
      compare(
        `market trades of ${asset}`,
        trades.height,
        { status: trades.status, total: trades.body.total, items: trades.body.items },
        { status: 200, total: all.length, items: all.slice(0, limit) },
      );
    }
  }
  return rows;
}

/** The answers that must be 400 (malformed or missing parameters) and 404 (unknown ids) on any chain. */
export async function expectMarketRefusals(api: string, m: MarketAt): Promise<void> {
  const bad = [
    '/api/market/orders',
    '/api/market/orders?side=sell',
    '/api/market/orders?page=1&limit=10',
    '/api/market/orders?asset=0&side=bogus',
    '/api/market/orders?asset=abc',
    '/api/market/orders?asset=-1',
    '/api/market/orders?asset=MRC402_xyz',
    '/api/market/orders?asset=0&page=101&limit=100',
    '/api/market/stats?asset=abc',
    '/api/market/stats?asset=MRC400_zz',
    '/api/market/stats',
    '/api/market/trades?asset=abc',
    '/api/market/trades?asset=MRC402_',
    '/api/market/order/garbage',
    '/api/market/order/DEX010_xyz',
  ];
  for (const path of bad) expect((await getStamped(`${api}${path}`)).status, path).toBe(400);
  const maxToken = Math.max(...[...m.assets].filter((a) => /^[0-9]+$/.test(a)).map(Number));
  const missing = [
    `/api/market/stats?asset=${maxToken + 1}`,
    '/api/market/stats?asset=MRC402_0123456789abcdef0123456789abcdef9',
    '/api/market/stats?asset=MRC400_0123456789abcdef0123456789abcdef9',
    '/api/market/order/DEX010_0123456789abcdef0123456789abcdef9',
    '/api/market/order/DEX402_0123456789abcdef0123456789abcdef9',
    `/api/market/order/MRC400_0123456789abcdef0123456789abcdef9_${'A'.repeat(40)}`,
  ];
  for (const path of missing) expect((await getStamped(`${api}${path}`)).status, path).toBe(404);
}
