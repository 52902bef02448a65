import { tokenIdFromDatakey } from '@mtc/domain';
import { isMtAddress } from './address.ts';
import { createIdList } from './id-list.ts';
import type { StateValue, Write } from './state.ts';
import { clientWallet, readToken } from '../families/mrc010/codec.ts';
import type { Dex010Order, Mrc010Token, Wallet } from '../families/mrc010/records.ts';
import { DEX010_PREFIX, tokenKey } from '../families/mrc010/records.ts';
import { createMrc400Index, type Mrc400Index } from '../families/mrc400/records.ts';
import { DEX402_PREFIX, MRC402_PREFIX, type Dex402Order, type Mrc402Token } from '../families/mrc402/records.ts';

/**
 * The committed key-value store plus the planners' indexes. Values are deep-frozen, so history entries
 * share them safely and a job that changes a record in place instead of copying it fails at once.
 */
export interface World {
  get(key: string): StateValue | undefined;
  /** A wallet as a planning client sees it (clientWallet). */
  wallet(address: string): Wallet | undefined;
  /** A token in the current shape (readToken). */
  token(id: number): Mrc010Token | undefined;
  /** Addresses in creation order. */
  readonly wallets: readonly string[];
  /** Registered token ids, ascending. */
  readonly tokens: readonly number[];
  dex010(id: string): Dex010Order | undefined;
  /** Every DEX010 order id, in creation order (so are mrc402Ids and dex402Orders). */
  readonly dex010Orders: readonly string[];
  /** Orders not yet cancelled, sold out or settled (isOpen), by kind; so is openDex402. */
  readonly openDex010: Readonly<Record<Dex010Kind, readonly string[]>>;
  mrc402(id: string): Mrc402Token | undefined;
  readonly mrc402Ids: readonly string[];
  /** Addresses whose holding of MRC-402 `id` has a positive balance (spendable units). */
  mrc402Holders(id: string): readonly string[];
  dex402(id: string): Dex402Order | undefined;
  readonly dex402Orders: readonly string[];
  readonly openDex402: Readonly<Record<Dex402Kind, readonly string[]>>;
  /** MRC-400 collections and MRC-401 items: ids, and items by state (families/mrc400/records.ts). */
  readonly mrc400: Mrc400Index;
  /** Whether a committed record was written with job type `type` (job.ts `wants` reads it). */
  hasWritten(type: string): boolean;
  apply(writes: readonly Write[]): void;
}

export type Dex402Kind = 'sale' | 'auction';

export type Dex010Kind = 'sell' | 'reqsell' | 'auction';

/** The kind of an order, by the fields the chaincode's dex010Status reads. */
export function dex010Kind(order: Dex010Order): Dex010Kind {
  if (order.auction_start_date !== 0) return 'auction';
  return order.sell_price !== '' ? 'sell' : 'reqsell';
}

function isOpen(order: Dex010Order | Dex402Order): boolean {
  return order.cancel_date === 0 && order.sell_date === 0 && order.auction_settle_date === 0;
}

export function createWorld(): World {
  const state = new Map<string, StateValue>();
  const wallets: string[] = [];
  const tokens: number[] = [];
  const dex010Orders: string[] = [];
  const open = { sell: createIdList(), reqsell: createIdList(), auction: createIdList() };
  const mrc400 = createMrc400Index((key) => state.get(key));
  const nft = createMrc402Indexes(state);
  const jobTypes = new Set<string>();

  return {
    get: (key) => state.get(key),
    // The key families below hold only what our chaincode wrote there, so the casts are exact.
    wallet: (address) => clientWallet(address, state.get(address) as object | undefined),
    token: (id) => {
      const raw = state.get(tokenKey(id));
      return raw === undefined ? undefined : readToken(raw as object);
    },
    wallets,
    tokens,
    dex010: (id) => (id.startsWith(DEX010_PREFIX) ? (state.get(id) as Dex010Order | undefined) : undefined),
    dex010Orders,
    openDex010: { sell: open.sell.ids, reqsell: open.reqsell.ids, auction: open.auction.ids },
    mrc400,
    ...nft.members,
    hasWritten: (type) => jobTypes.has(type),
    apply(writes) {
      for (const { key, value } of writes) {
        const jobType = (value as { job_type?: unknown }).job_type;
        if (typeof jobType === 'string') jobTypes.add(jobType);
        nft.observe(key, value);
        const isDex = key.startsWith(DEX010_PREFIX);
        if (!state.has(key)) {
          if (isMtAddress(key)) wallets.push(key);
          const tokenId = tokenIdFromDatakey(key);
          if (tokenId !== null) tokens.push(tokenId);
          if (isDex) dex010Orders.push(key);
        }
        state.set(key, deepFreeze(value));
        mrc400.observe(key, value);
        if (isDex) {
          const order = value as Dex010Order;
          open[dex010Kind(order)].set(key, isOpen(order));
        }
      }
    },
  };
}

/** The MRC-402 indexes; `observe` runs before the write lands, so the previous value is still in `state`. */
function createMrc402Indexes(state: ReadonlyMap<string, StateValue>) {
  const ids: string[] = [];
  const orders: string[] = [];
  const holders = new Map<string, ReturnType<typeof createIdList>>();
  const open = { sale: createIdList(), auction: createIdList() };
  const holdersOf = (id: string) => {
    let list = holders.get(id);
    if (!list) holders.set(id, (list = createIdList()));
    return list;
  };
  const members = {
    mrc402: (id: string) => (id.startsWith(MRC402_PREFIX) ? (state.get(id) as Mrc402Token | undefined) : undefined),
    mrc402Ids: ids as readonly string[],
    mrc402Holders: (id: string): readonly string[] => holders.get(id)?.ids ?? [],
    dex402: (id: string) => (id.startsWith(DEX402_PREFIX) ? (state.get(id) as Dex402Order | undefined) : undefined),
    dex402Orders: orders as readonly string[],
    openDex402: { sale: open.sale.ids, auction: open.auction.ids } as Readonly<Record<Dex402Kind, readonly string[]>>,
  };
  const observe = (key: string, value: StateValue) => {
    if (key.startsWith(MRC402_PREFIX)) {
      if (!state.has(key)) ids.push(key);
    } else if (key.startsWith(DEX402_PREFIX)) {
      if (!state.has(key)) orders.push(key);
      const order = value as Dex402Order;
      (order.auction_start_date !== 0 ? open.auction : open.sale).set(key, isOpen(order));
    } else if (isMtAddress(key)) {
      const before = (state.get(key) as { mrc402?: Wallet['mrc402'] } | undefined)?.mrc402;
      const after = (value as { mrc402?: Wallet['mrc402'] }).mrc402;
      if (!before && !after) return;
      for (const id of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
        const balance = after?.[id]?.balance;
        if (balance !== undefined && balance !== '0' && balance !== '') holdersOf(id).add(key);
        else holders.get(id)?.remove(key);
      }
    }
  };
  return { members, observe };
}

/** Freezes a committed value, skipping parts already frozen (shared with earlier snapshots). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze(value[key]);
  }
  return value;
}
