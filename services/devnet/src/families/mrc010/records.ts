import type { DexOrder } from '../dex/order-fields.ts';

/**
 * On-chain records in Go's encoding/json field order (CC-t `mtc/mtc.go` TWallet, TMRC010Balance, TMRC010),
 * which every constructor and clone must keep. Go writes nil maps and slices as `null` and sorts map keys,
 * so a map filler (mrc402, logger) inserts keys in sorted order.
 */

export interface BalanceEntry {
  balance: string;
  token: number;
  unlockdate: number;
  saleamount: string;
  auctionamount: string;
}

/** A balance entry as a credit makes it: Go's literal sets only the first three fields, so sale and auction are "". */
export function creditEntry(balance: string, token: number, unlockdate: number): BalanceEntry {
  return { balance, token, unlockdate, saleamount: '', auctionamount: '' };
}

export interface NftBalance {
  balance: string;
  saleamount: string;
  auctionamount: string;
}

export interface Wallet {
  id: string;
  regdate: number;
  password: string;
  addinfo: string;
  job_type: string;
  job_args: string;
  jobdate: number;
  balance: BalanceEntry[];
  mrc010: null;
  mrc402: Record<string, NftBalance> | null;
  mrc800: Record<string, string> | null;
  pending: Record<string, string> | null;
  nonce: string;
}

export interface TokenReserve {
  address: string;
  value: string;
  unlockdate: number;
}

export interface TokenTier {
  startdate: number;
  enddate: number;
  supply: string;
  rate: number;
  tiersn: number;
  name: string;
  investormin: string;
  remainamount: string;
  unlockdate: number;
  expirepolicy: string;
}

/** TMRC010, stored under `TOKEN_DATA_<id>`. */
export interface Mrc010Token {
  id: string;
  owner: string;
  symbol: string;
  createdate: number;
  totalsupply: string;
  reservedamount: string;
  remainamount: string;
  burnningamount: string;
  softcap: string;
  hardcap: string;
  token: number;
  name: string;
  information: string;
  url: string;
  image: string;
  decimal: number;
  reserve: TokenReserve[] | null;
  tier: TokenTier[] | null;
  status: string;
  targettoken: Record<string, number> | null;
  basetoken: number;
  type: string;
  logger: Record<string, number> | null;
  job_type: string;
  job_args: string;
  jobdate: number;
}

/**
 * TMRC010DEX under `DEX010_<32 hex><digit>` (CC-t `token.go`); sell_price/buy_price are per `min_trade_unit`
 * units. Fields shared with TMRC402DEX: DexOrder; Go's field order: zeroOrder (dex/order-record.ts).
 */
export interface Dex010Order extends DexOrder {
  mrc010: string;
  min_trade_unit: string;
  buy_price: string;
  buy_token: string;
  buy_price_total: string;
}

export const DEX010_PREFIX = 'DEX010_';

export const TOKEN_MAX_NO = 'TOKEN_MAX_NO';

export function tokenKey(id: number | string): string {
  return `TOKEN_DATA_${id}`;
}

/**
 * json.Unmarshal's private copy. Committed records are frozen and share nested objects, so the copy is
 * shallow: code that changes a balance entry or map value replaces it (`balance[i] = { ...entry, balance }`).
 */
export function cloneWallet(w: Wallet): Wallet {
  return {
    ...w,
    balance: [...w.balance],
    mrc402: w.mrc402 && { ...w.mrc402 },
    mrc800: w.mrc800 && { ...w.mrc800 },
    pending: w.pending && { ...w.pending },
  };
}

export function cloneToken(t: Mrc010Token): Mrc010Token {
  return {
    ...t,
    reserve: t.reserve && [...t.reserve],
    tier: t.tier && [...t.tier],
    targettoken: t.targettoken && { ...t.targettoken },
    logger: t.logger && { ...t.logger },
  };
}
