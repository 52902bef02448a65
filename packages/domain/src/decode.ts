import { formatAmount, parseAmount } from './amount.ts';
import { decoderFor, IGNORED, isKnownJobType } from './decode/registry.ts';
import {
  int,
  otherActivity,
  record,
  str,
  summaryFromView,
  txEntries,
  type EntryView,
  type TxEntries,
} from './decode/family.ts';
import type {
  BalanceEntry,
  KnownActivity,
  Mrc402State,
  NftCollectionState,
  NftItemState,
  StateWrite,
  TokenState,
  TxEventV2,
  TxSummary,
  WalletState,
} from './events.ts';
import { isAddress, parseNftId, tokenIdFromDatakey } from './ids.ts';
import { isValidEntry, type RawEntry } from './node.ts';
import { chainPos } from './position.ts';

export type { EntryView } from './decode/family.ts';
export { decodedJobTypes, FAMILIES, IGNORED, isKnownJobType } from './decode/registry.ts';

/**
 * Decodes one listed transaction (its node entries) into the parts of a TxEventV2. Pure.
 *
 * The core does what holds for every job type: state from the written `values` (last write wins
 * per key), validity, and putting together what the job families (decode/, one module each,
 * composed in decode/registry.ts) say about activity, summary and entry views. Meaning comes from
 * the whole entry set, never from entry order: the node returns entries in reverse key order.
 *
 * Failure policy: client input (parameters) and unknown job types never stop the pipeline; an
 * unknown type becomes generic `other` activity (see `unknownJobTypes` to count them). Only a broken
 * state invariant throws a DecodeError — a written wallet or token amount that is not an integer,
 * or a spendable balance or supply below zero, which the chaincode never writes (escrows can be
 * negative, see `BalanceEntry`) — so the follower halts loudly rather than publish a wrong balance.
 */
export class DecodeError extends Error {
  override name = 'DecodeError';
}

export interface TxPosition {
  height: number;
  index: number;
  seq: number;
  id: string;
  timestamp: number;
}

export function decodeTransaction(pos: TxPosition, entries: readonly RawEntry[]): TxEventV2 {
  const valid = entries.every(isValidEntry);
  return {
    id: pos.id,
    index: pos.index,
    seq: pos.seq,
    timestamp: pos.timestamp,
    valid,
    summary: summarize(entries),
    entries: [...entries],
    writes: valid ? decodeWrites(pos, entries) : [],
    activity: valid ? decodeActivity(entries) : [],
  };
}

/**
 * The job types of a transaction's entries that no family decodes and that are not ignored on
 * purpose, once per entry (the follower counts them). Valid or not: either way the decoder could
 * not say what they are.
 */
export function unknownJobTypes(entries: readonly RawEntry[]): string[] {
  return entries.filter((e) => !isKnownJobType(e.type)).map((e) => e.type);
}

// ---------------------------------------------------------------- state writes

/**
 * One write per written key: the entry with the last position wins. A Fabric write set holds one
 * write per key, but the bridge adds a second entry under the same key for a wallet that plays two
 * roles of a legacy exchange. Positions are entry indexes, so they stay unique.
 */
function decodeWrites(pos: TxPosition, entries: readonly RawEntry[]): StateWrite[] {
  const last = new Map<string, number>();
  entries.forEach((e, i) => {
    if (e.datakey && e.values) last.set(e.datakey, i);
  });
  return entries.flatMap((e, i) =>
    e.datakey && last.get(e.datakey) === i ? [decodeWrite(e, chainPos(pos.height, pos.index, i))] : [],
  );
}

function decodeWrite(entry: RawEntry, pos: string): StateWrite {
  const key = entry.datakey ?? '';
  const values = entry.values ?? {};
  const jobType = entry.type;
  if (decoderFor(jobType)?.record !== 'other') {
    if (isAddress(key)) return { kind: 'wallet', key, pos, jobType, wallet: decodeWallet(key, values) };
    const tokenId = tokenIdFromDatakey(key);
    if (tokenId !== null) return { kind: 'token', key, pos, jobType, token: decodeToken(tokenId, values) };
    const nft = parseNftId(key);
    if (nft?.protocol === 'MRC400')
      return { kind: 'nftCollection', key, pos, jobType, collection: decodeCollection(key, values) };
    if (nft?.protocol === 'MRC401') return { kind: 'nftItem', key, pos, jobType, item: decodeItem(key, values) };
    if (nft?.protocol === 'MRC402')
      return { kind: 'mrc402', key, pos, jobType, mrc402: decodeMrc402Record(key, values) };
  }
  return { kind: 'other', key, pos, jobType, values };
}

/** A map of strings as written (partner roles, shareholder commissions, reserves); null stays null. */
function stringMap(raw: unknown): Record<string, string> | null {
  if (raw === null || raw === undefined) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(raw))) out[k] = str(v);
  return out;
}

/** An MRC-400 collection as written (metacoin-chain.md §3.3): CC-m records lack socialmedia and partner. */
export function decodeCollection(key: string, v: Record<string, unknown>): NftCollectionState {
  return {
    id: str(v['id']) || key,
    owner: str(v['owner']),
    createdate: int(v['createdate']),
    name: str(v['name']),
    url: str(v['url']),
    image_url: str(v['image_url']),
    allow_token: str(v['allow_token']),
    item_url: str(v['item_url']),
    item_image_url: str(v['item_image_url']),
    category: str(v['category']),
    description: str(v['description']),
    socialmedia: str(v['socialmedia']),
    partner: stringMap(v['partner']),
    data: str(v['data']),
  };
}

/** An MRC-401 item as written (metacoin-chain.md §3.4): CC-m records lack creator, shareholder, platform_*. */
export function decodeItem(key: string, v: Record<string, unknown>): NftItemState {
  return {
    id: str(v['id']) || key,
    mrc400: str(v['mrc400']) || key.slice(0, 40),
    owner: str(v['owner']),
    creator: str(v['creator']),
    item_url: str(v['item_url']),
    item_image_url: str(v['item_image_url']),
    groupid: str(v['groupid']),
    createdate: int(v['createdate']),
    initial_reserve: str(v['initial_reserve']),
    initial_token: str(v['initial_token']),
    melting_fee: str(v['melting_fee']),
    melting_date: int(v['melting_date']),
    transferable: str(v['transferable']),
    sell_date: int(v['sell_date']),
    sell_fee: str(v['sell_fee']),
    sell_price: str(v['sell_price']),
    sell_token: str(v['sell_token']),
    auction_date: int(v['auction_date']),
    auction_end: int(v['auction_end']),
    auction_token: str(v['auction_token']),
    auction_bidding_unit: str(v['auction_bidding_unit']),
    auction_start_price: str(v['auction_start_price']),
    auction_buynow_price: str(v['auction_buynow_price']),
    auction_current_price: str(v['auction_current_price']),
    auction_current_bidder: str(v['auction_current_bidder']),
    last_trade_date: int(v['last_trade_date']),
    last_trade_amount: str(v['last_trade_amount']),
    last_trade_token: str(v['last_trade_token']),
    last_trade_type: str(v['last_trade_type']),
    shareholder: stringMap(v['shareholder']),
    platform_name: str(v['platform_name']),
    platform_url: str(v['platform_url']),
    platform_address: str(v['platform_address']),
    platform_commission: str(v['platform_commission']),
  };
}

/** An MRC-402 as written (metacoin-chain.md §3.5); its supply figures are integers, possibly negative (§7.3). */
export function decodeMrc402Record(key: string, v: Record<string, unknown>): Mrc402State {
  return {
    id: str(v['id']) || key,
    creator: str(v['creator']),
    creatorcommission: str(v['creatorcommission']),
    totalsupply: escrowAmount(v['totalsupply'], `${key} totalsupply`),
    meltedamount: escrowAmount(v['meltedamount'], `${key} meltedamount`),
    decimal: int(v['decimal']),
    name: str(v['name']),
    expiredate: int(v['expiredate']),
    image: str(v['image']),
    url: str(v['url']),
    data: str(v['data']),
    info: str(v['info']),
    socialmedia: str(v['socialmedia']),
    copyright_registration_country: str(v['copyright_registration_country']),
    copyright_registrar: str(v['copyright_registrar']),
    copyright_registration_number: str(v['copyright_registration_number']),
    shareholder: stringMap(v['shareholder']),
    initialreserve: stringMap(v['initialreserve']),
  };
}

/**
 * A wallet as written, across its historical shapes (metacoin-chain.md §3.1, §7.2): `id` absent
 * before 2022-08 (the key is the address anyway), `nonce` "", balance entries with only
 * `{balance, token, unlockdate}` (sale/auction read as 0), the balance list under `balance` (the
 * bridge renames a legacy `token` list; a `token` list is taken too), `mrc402` null, `{}` or absent.
 */
export function decodeWallet(address: string, v: Record<string, unknown>): WalletState {
  const raw = Array.isArray(v['balance']) ? v['balance'] : Array.isArray(v['token']) ? v['token'] : [];
  return {
    address,
    regdate: int(v['regdate']),
    addinfo: str(v['addinfo']),
    balances: (raw as unknown[]).map((b, i) => decodeBalance(address, b, i)),
    mrc402: decodeMrc402(address, v['mrc402']),
  };
}

function decodeBalance(address: string, raw: unknown, index: number): BalanceEntry {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new DecodeError(`${address} balance[${index}]: written entry ${JSON.stringify(raw)} is not an object`);
  const b = raw as Record<string, unknown>;
  return {
    token: int(b['token']),
    balance: stateAmount(b['balance'], `${address} balance`),
    unlockdate: Math.max(0, int(b['unlockdate'])),
    saleamount: escrowAmount(b['saleamount'], `${address} saleamount`),
    auctionamount: escrowAmount(b['auctionamount'], `${address} auctionamount`),
  };
}

function decodeMrc402(address: string, raw: unknown): WalletState['mrc402'] {
  if (raw === null || raw === undefined) return null;
  const out: NonNullable<WalletState['mrc402']> = {};
  for (const [id, h] of Object.entries(record(raw))) {
    const r = record(h);
    out[id] = {
      balance: stateAmount(r['balance'], `${address} ${id}`),
      saleamount: escrowAmount(r['saleamount'], `${address} ${id}`),
      auctionamount: escrowAmount(r['auctionamount'], `${address} ${id}`),
    };
  }
  return out;
}

/** The bridge renames a token record's `token` to `balance`, so the id comes from the key. */
export function decodeToken(tokenId: number, v: Record<string, unknown>): TokenState {
  const what = `TOKEN_DATA_${tokenId}`;
  return {
    token: tokenId,
    id: str(v['id']) || String(tokenId),
    owner: str(v['owner']),
    name: str(v['name']),
    symbol: str(v['symbol']),
    type: str(v['type']) || '010',
    decimal: int(v['decimal']),
    createdate: int(v['createdate']),
    totalsupply: stateAmount(v['totalsupply'], `${what} totalsupply`),
    reservedamount: stateAmount(v['reservedamount'], `${what} reservedamount`),
    remainamount: stateAmount(v['remainamount'], `${what} remainamount`),
    burnningamount: stateAmount(v['burnningamount'], `${what} burnningamount`),
    softcap: str(v['softcap']),
    hardcap: str(v['hardcap']),
    url: str(v['url']),
    information: str(v['information']),
    image: str(v['image']),
    status: str(v['status']),
  };
}

/** Amounts already in their normal form, which most written ones are: kept as they are. */
const NORMAL_AMOUNT = /^(0|[1-9][0-9]*)$/;
const NORMAL_ESCROW = /^(0|-?[1-9][0-9]*)$/;

/** A written amount that cannot be negative (the chaincode checks funds before it lowers one). */
function stateAmount(value: unknown, what: string): string {
  if (typeof value === 'string' && NORMAL_AMOUNT.test(value)) return value;
  try {
    return formatAmount(parseAmount(value as string | number | null | undefined));
  } catch {
    throw new DecodeError(`${what}: written amount ${JSON.stringify(value)} is not a non-negative integer`);
  }
}

/** A written escrow amount: an integer, possibly negative (see `BalanceEntry`); "" reads as 0. */
function escrowAmount(value: unknown, what: string): string {
  if (typeof value === 'string' && NORMAL_ESCROW.test(value)) return value;
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (text === undefined || text === null || text === '') return '0';
  const m = typeof text === 'string' ? /^\s*(-?)([0-9]+)\s*$/.exec(text) : null;
  if (!m) throw new DecodeError(`${what}: written amount ${JSON.stringify(value)} is not an integer`);
  const magnitude = BigInt(m[2]!);
  return magnitude === 0n ? '0' : `${m[1]}${magnitude}`;
}

// ---------------------------------------------------------------- activity

/**
 * Every entry contributes through its family; an entry of an unknown type becomes one `other`
 * activity. The activities are ordered by their entry's priority (the main action first), then by
 * entry position, so their order does not depend on how the node sorted the entries.
 */
function decodeActivity(entries: readonly RawEntry[]): KnownActivity[] {
  const tx = txEntries(entries);
  return entries
    .map((e, position) => ({ position, priority: priorityOf(e), activity: activityOf(e, tx) }))
    .sort((a, b) => b.priority - a.priority || a.position - b.position)
    .flatMap((x) => x.activity);
}

function activityOf(entry: RawEntry, tx: TxEntries): KnownActivity[] {
  const decoder = decoderFor(entry.type);
  if (decoder) return decoder.activity?.(entry, tx) ?? [];
  return IGNORED.has(entry.type) ? [] : [otherActivity(entry)];
}

/** Unknown types rank below every decoded one. */
function priorityOf(entry: RawEntry): number {
  return decoderFor(entry.type)?.priority ?? -1;
}

// ---------------------------------------------------------------- summary and entry views

/**
 * The one-line view of a transaction, from its entries alone (also for raw, unindexed forms): the
 * summary of the entry with the highest priority, whatever its position.
 */
export function summarize(entries: readonly RawEntry[]): TxSummary {
  const tx = txEntries(entries);
  let main: RawEntry | undefined;
  for (const e of entries) if (!main || priorityOf(e) > priorityOf(main)) main = e;
  if (!main) return { type: '', from: '', to: '', amount: '0', token: '' };
  const decoder = decoderFor(main.type);
  if (!decoder) return { type: main.type, from: main.address ?? '', to: '', amount: '0', token: tokenKeyOf(main) };
  return decoder.summary?.(main, tx) ?? summaryFromView(main, decoder.view(main));
}

/**
 * How one entry reads in an address's activity list: a label, the parties, the amount and the
 * token, from the entry's parameters in the payment layout or its job's own layout. Never throws:
 * an entry of an unknown type is labelled with its type.
 */
export function describeEntry(entry: RawEntry): EntryView {
  const decoder = decoderFor(entry.type);
  if (decoder) return decoder.view(entry);
  const token = tokenIdFromDatakey(entry.datakey ?? '');
  return { summary: entry.type, from: entry.address ?? '', to: '', amount: '0', tokenId: token };
}

function tokenKeyOf(entry: RawEntry): string {
  return String(tokenIdFromDatakey(entry.datakey ?? '') ?? '');
}
