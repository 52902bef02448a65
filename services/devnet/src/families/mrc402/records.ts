import { sortedEntries } from '../../chaincode/util.ts';
import type { NftBalance } from '../mrc010/records.ts';
import type { DexOrder } from '../dex/order-fields.ts';

/**
 * MRC-402 record shapes in Go's encoding/json field order (CC-t `mrc402.go` TMRC402, TMRC402DEX; see
 * mrc010/records.ts for why it matters). The maps (`shareholder`, `initialreserve`) hold what the client
 * sent, unnormalised, null for "" (Go's nil map), built in sorted key order as Go writes them.
 */

/** TMRC402, stored under `MRC402_<32 hex><digit>`. */
export interface Mrc402Token {
  id: string;
  creator: string;
  /** 0–10 with up to two decimals, normalised ("2.50" → "2.5"). */
  creatorcommission: string;
  totalsupply: string;
  meltedamount: string;
  decimal: number;
  name: string;
  /** Unix seconds; melting is refused while it is non-zero and in the future. */
  expiredate: number;
  image: string;
  url: string;
  data: string;
  info: string;
  socialmedia: string;
  copyright_registration_country: string;
  copyright_registrar: string;
  copyright_registration_number: string;
  /** Address → commission % (as sent: "2.50" stays "2.50"). */
  shareholder: Record<string, string> | null;
  /** MRC-010 token id → amount per NFT unit (as sent). */
  initialreserve: Record<string, string> | null;
  job_type: string;
  job_args: string;
  jobdate: number;
}

/** TMRC402DEX under `DEX402_<32 hex><digit>`: `sell_price` per NFT unit, auction prices for the whole `amount`. */
export interface Dex402Order extends DexOrder {
  mrc402: string;
}

export const MRC402_PREFIX = 'MRC402_';
export const DEX402_PREFIX = 'DEX402_';

/** A zero TMRC402 (every field at its Go zero value, in struct order) with `fields` filled in. */
export function newMrc402(fields: Partial<Mrc402Token>): Mrc402Token {
  return {
    id: '',
    creator: '',
    creatorcommission: '',
    totalsupply: '',
    meltedamount: '',
    decimal: 0,
    name: '',
    expiredate: 0,
    image: '',
    url: '',
    data: '',
    info: '',
    socialmedia: '',
    copyright_registration_country: '',
    copyright_registrar: '',
    copyright_registration_number: '',
    shareholder: null,
    initialreserve: null,
    job_type: '',
    job_args: '',
    jobdate: 0,
    ...fields,
  };
}

/**
 * Whether a JS object with these keys serialises them in Go's order: JS lists integer-like keys first
 * in numeric order, so reserve tokens "3" and "12" would be written {"3",…,"12"} where Go writes
 * {"12",…,"3"}. Clients only send reserve maps whose keys pass this check.
 */
export function keepsGoOrder(keys: readonly string[]): boolean {
  const go = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const js = Object.keys(Object.fromEntries(go.map((k) => [k, 0])));
  return go.every((k, i) => js[i] === k);
}

/** A new `map` (committed ones are frozen and shared) with `id` set to `holding`, keys sorted as Go writes them. */
export function withHolding(
  map: Readonly<Record<string, NftBalance>> | null,
  id: string,
  holding: NftBalance,
): Record<string, NftBalance> {
  if (map && id in map) return { ...map, [id]: holding };
  return Object.fromEntries(sortedEntries({ ...map, [id]: holding }));
}

/** `map` without `id` (Go's delete keeps a non-nil, possibly empty map: `{}`). */
export function withoutHolding(map: Readonly<Record<string, NftBalance>>, id: string): Record<string, NftBalance> {
  const { [id]: _gone, ...rest } = map;
  return rest;
}
