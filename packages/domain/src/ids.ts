import { crc32 } from 'node:zlib';
import { z } from 'zod';

/**
 * Chain identifiers as branded strings. Every id that crosses a boundary (HTTP params, node bodies,
 * log messages) is parsed by one of these schemas, so code past the boundary can trust its shape.
 */

const ADDRESS_BODY = /^MT([A-Za-z0-9]{30})([0-9a-f]{8})$/;

/** `MT` + 30 alphanumerics + CRC-32 (IEEE, lower-case hex) of those 30 characters. */
export function isAddress(value: string): boolean {
  const m = ADDRESS_BODY.exec(value);
  if (!m) return false;
  return addressChecksum(m[1]!) === m[2];
}

export function addressChecksum(body30: string): string {
  return (crc32(body30) >>> 0).toString(16).padStart(8, '0');
}

export const Address = z
  .string()
  .refine(isAddress, { message: 'must be a Metacoin address (MT + 30 characters + CRC-32)' })
  .brand<'Address'>();
export type Address = z.infer<typeof Address>;

const HEX64 = /^[0-9a-f]{64}$/;
export const TxHash = z
  .string()
  .regex(HEX64, 'must be a 64-character lower-case hex transaction hash')
  .brand<'TxHash'>();
export type TxHash = z.infer<typeof TxHash>;

export const BlockHash = z
  .string()
  .regex(HEX64, 'must be a 64-character lower-case hex block hash')
  .brand<'BlockHash'>();
export type BlockHash = z.infer<typeof BlockHash>;

/** Safe-integer ids only: token ids and heights never approach 2^53. */
const decimalId = (what: string) =>
  z
    .union([z.number(), z.string().regex(/^(0|[1-9][0-9]{0,15})$/, `must be a ${what}`)])
    .transform((v) => Number(v))
    .pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));

export const TokenId = decimalId('token id (non-negative integer)').brand<'TokenId'>();
export type TokenId = z.infer<typeof TokenId>;

export const BlockHeight = decimalId('block height (positive integer)').pipe(z.number().min(1)).brand<'BlockHeight'>();
export type BlockHeight = z.infer<typeof BlockHeight>;

/** `<prefix>_` + 32 hex (md5) + 1 retry digit = 40 characters. */
const GENERATED = (prefix: string) => new RegExp(`^${prefix}_[0-9a-f]{32}[0-9]$`);
/** CC-t `mrc400.go` DataAssign(itemID, "id", 40, 40): exactly 40 letters or digits. */
const ITEM_ID = /^[A-Za-z0-9]{40}$/;

export const Mrc400Id = z
  .string()
  .regex(GENERATED('MRC400'), 'must be an MRC-400 id (MRC400_ + 32 hex + 1 digit)')
  .brand<'Mrc400Id'>();
export type Mrc400Id = z.infer<typeof Mrc400Id>;

export const Mrc401Id = z
  .string()
  .refine(
    (v) => {
      const cut = v.indexOf('_', 7);
      return cut === 40 && GENERATED('MRC400').test(v.slice(0, 40)) && ITEM_ID.test(v.slice(41));
    },
    { message: 'must be an MRC-401 id (MRC-400 id + _ + item id)' },
  )
  .brand<'Mrc401Id'>();
export type Mrc401Id = z.infer<typeof Mrc401Id>;

export const Mrc402Id = z
  .string()
  .regex(GENERATED('MRC402'), 'must be an MRC-402 id (MRC402_ + 32 hex + 1 digit)')
  .brand<'Mrc402Id'>();
export type Mrc402Id = z.infer<typeof Mrc402Id>;

export type NftId =
  { protocol: 'MRC400'; id: Mrc400Id } | { protocol: 'MRC401'; id: Mrc401Id } | { protocol: 'MRC402'; id: Mrc402Id };

/** Classifies an NFT id by its form; null when it is none of the three. */
export function parseNftId(value: string): NftId | null {
  const a = Mrc400Id.safeParse(value);
  if (a.success) return { protocol: 'MRC400', id: a.data };
  const b = Mrc401Id.safeParse(value);
  if (b.success) return { protocol: 'MRC401', id: b.data };
  const c = Mrc402Id.safeParse(value);
  if (c.success) return { protocol: 'MRC402', id: c.data };
  return null;
}

/** The collection an NFT id belongs to: the id of a collection, an item's collection; null for others. */
export function collectionOfNft(value: string): Mrc400Id | null {
  const nft = parseNftId(value);
  if (nft?.protocol === 'MRC400') return nft.id;
  if (nft?.protocol === 'MRC401') return nft.id.slice(0, 40) as Mrc400Id;
  return null;
}

/** State keys of MRC-010 token records: `TOKEN_DATA_<id>`. */
export function tokenIdFromDatakey(datakey: string): number | null {
  const m = /^TOKEN_DATA_(0|[1-9][0-9]{0,15})$/.exec(datakey);
  return m ? Number(m[1]) : null;
}
