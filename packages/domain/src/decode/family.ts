import { tryParseAmount } from '../amount.ts';
import type { KnownActivity, Payment, TxSummary } from '../events.ts';
import { tokenIdFromDatakey } from '../ids.ts';
import type { RawEntry } from '../node.ts';

/**
 * The decoder is a table: each job family (one module in this folder) maps the job types it knows
 * to a JobDecoder, and `registry.ts` composes the families. A job type the table does not name is
 * either deliberately ignored (`IGNORED`) or unknown: unknown types become generic `other` activity
 * and are counted, never dropped and never fatal.
 *
 * Everything here reads client input (parameters) or records the chaincode wrote for other
 * families, so readers are lenient: a malformed field reads as "" / 0, never throws. Only broken
 * state invariants of modelled records (wallets, tokens) throw, and that happens in the core.
 */

/** How an entry reads in an address's activity list. */
export interface EntryView {
  /** A short human label, e.g. "Transfer", "Receive", "Token reserve", "MRC-010 sell". */
  summary: string;
  from: string;
  to: string;
  /** Integer string in the token's smallest unit ("0" when the entry moves nothing). */
  amount: string;
  /** The MRC-010 token `amount` is in, or null when the entry is not about a token. */
  tokenId: number | null;
  /**
   * The NFT the entry is about (`MRC400_…`, `MRC400_…_…`, `MRC402_…`), when it is: then `amount` is
   * in that NFT's units (an MRC-401 item: "1") and `tokenId` is null, unless the row is an MRC-010
   * payment of an NFT trade (a fee, a price), which names the NFT and keeps its token.
   */
  nftId?: string;
}

/** A transaction's whole entry set: meaning comes from the set, never from entry order. */
export interface TxEntries {
  readonly entries: readonly RawEntry[];
  has(type: string): boolean;
  /** The first entry of one of `types`, by position. */
  find(...types: string[]): RawEntry | undefined;
}

export function txEntries(entries: readonly RawEntry[]): TxEntries {
  const types = new Set(entries.map((e) => e.type));
  return {
    entries,
    has: (type) => types.has(type),
    find: (...wanted) => entries.find((e) => wanted.includes(e.type)),
  };
}

export interface JobDecoder {
  /**
   * How strongly this entry stands for its transaction's main action: the summary is taken from
   * the entry with the highest priority (ties: the first by position), so the order in which the
   * node lists entries (reverse key order) does not matter.
   */
  priority: number;
  view(entry: RawEntry): EntryView;
  /** The one-line summary when this entry is the main action; default: derived from `view`. */
  summary?(entry: RawEntry, tx: TxEntries): TxSummary;
  /** The activities this entry contributes, read with the whole entry set at hand; default: none. */
  activity?(entry: RawEntry, tx: TxEntries): KnownActivity[];
  /**
   * The written record is kept as `other` even when its key looks like a wallet or token key
   * (an MRC-100 log's key is chosen by the client and may be anything).
   */
  record?: 'other';
}

export interface Family {
  /** For messages and tests. */
  name: string;
  jobs: Readonly<Record<string, JobDecoder>>;
}

/** Priorities: the action a client called > its record writes > payouts to other wallets. */
export const PRIORITY = { main: 100, secondary: 60, payout: 20, minor: 10 } as const;

/** The default summary: the view's parties and amount under the entry's job type. */
export function summaryFromView(entry: RawEntry, view: EntryView): TxSummary {
  return {
    type: entry.type,
    from: view.from,
    to: view.to,
    amount: view.amount,
    token: view.tokenId === null ? '' : String(view.tokenId),
  };
}

// ---------------------------------------------------------------- lenient readers for client input

/** The entry's parameters as strings ([] when the node sent an object or nothing). */
export function params(entry: RawEntry): string[] {
  const p = entry.parameters;
  return Array.isArray(p)
    ? p.map((x) => (typeof x === 'string' ? x : x === null || x === undefined ? '' : JSON.stringify(x)))
    : [];
}

/** An integer amount string, "0" for anything that is not a non-negative integer. */
export function lenientAmount(value: unknown): string {
  return (tryParseAmount(value) ?? 0n).toString();
}

/** A safe non-negative integer, or null. */
export function optionalInt(value: unknown): number | null {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export function int(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : 0;
  return Number.isSafeInteger(n) ? n : 0;
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A JSON array held in a string parameter (transferlist, userlist, PaymentInfo …); [] if it is not one. */
export function jsonArray(text: string | undefined): unknown[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** The sum of the `amount` fields of a JSON list (multitransfer, MRC-100 user lists). */
export function sumAmounts(list: readonly unknown[]): string {
  return list.reduce<bigint>((sum, r) => sum + (tryParseAmount(record(r)['amount']) ?? 0n), 0n).toString();
}

/** The token id of a `TOKEN_DATA_<id>` entry, else the id in `fallback` (a parameter). */
export function tokenOf(entry: RawEntry, fallback?: unknown): number | null {
  return tokenIdFromDatakey(entry.datakey ?? '') ?? optionalInt(fallback);
}

/**
 * The standard payment layout of wallet writes (metacoin-chain.md §4):
 * `[from, to, amount, tokenId, sig, unlockdate|"0", tradeAmount|tag, itemId|memo, nonce]`.
 * In DEX payouts `from` is the DEX id (the escrow), not an address.
 */
export function paymentView(summary: string): (entry: RawEntry) => EntryView {
  return (entry) => {
    const p = params(entry);
    return { summary, from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[2]), tokenId: optionalInt(p[3]) };
  };
}

/** The generic activity of an entry no family models in business terms. */
export function otherActivity(entry: RawEntry): KnownActivity {
  return { kind: 'other', jobType: entry.type, key: entry.datakey ?? '' };
}

/**
 * The payouts of a DEX settlement, from the PaymentInfo JSON the chaincode stored in the DEX
 * record's job_args (CC-t `mtc.go` TDexPaymentInfo: `{from_addr, to_addr, amount, token,
 * trade_amount, trade_id, type}`). A payout of the traded asset (e.g. `mrc010_recv_item`) carries
 * its quantity in `trade_amount` and the asset in `trade_id`, with `amount`/`token` empty; it is
 * read as `amount` = trade_amount of token `trade_id`. A payout without a readable token gets
 * `fallbackToken`.
 */
export function decodePayments(json: string | undefined, fallbackToken: number): Payment[] {
  return jsonArray(json).map((raw) => {
    const r = record(raw);
    const money = str(r['amount']) !== '';
    return {
      from: str(r['from_addr']),
      to: str(r['to_addr']),
      amount: lenientAmount(unsigned(money ? r['amount'] : r['trade_amount'])),
      token: optionalInt(money ? r['token'] : r['trade_id']) ?? fallbackToken,
      type: str(r['type']),
    };
  });
}

/** Some chaincode paths negate amounts while grouping; the stored quantity is the magnitude. */
function unsigned(value: unknown): unknown {
  return typeof value === 'string' && value.startsWith('-') ? value.slice(1) : value;
}
