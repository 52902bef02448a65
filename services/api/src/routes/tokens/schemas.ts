import { z } from 'zod';
import { CursorFields, LaterCursorFields, RankedCursorFields } from '../../cursor.ts';

/** Response bodies of the MRC-010 token routes; each export is an OpenAPI component of the same name. */

const amount = (what = 'Integer string in the smallest unit (see the token’s decimal).') =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/)
    .describe(what);

export const TokenLock = z
  .object({
    amount: amount(),
    unlockdate: z.int().describe('Unix seconds; the amount is spendable from then on.'),
  })
  .describe('A balance entry whose unlock date is still ahead.');
export type TokenLock = z.infer<typeof TokenLock>;

export const TokenListEntry = z.object({
  id: z.string().describe('The token id in decimal.'),
  token: z.int().describe('The token id; 0 is the native coin.'),
  name: z.string(),
  symbol: z.string(),
  owner: z.string(),
  totalsupply: amount(),
  type: z.string().describe("The record's type: '010' for MRC-010 tokens."),
  decimal: z.int(),
  createdate: z.int(),
  has_image: z.boolean().describe('Whether the image endpoint serves an image for this token.'),
  image_url: z.string().describe('Path of the image endpoint, /api/v1/token/{id}/image (404 when has_image is false).'),
  burnningamount: amount('Burnt so far (field name as on chain).'),
});
export type TokenListEntry = z.infer<typeof TokenListEntry>;

export const TokensPage = z.object({
  total: z.int().describe('Tokens indexed, the native coin included.'),
  page: z.int(),
  limit: z.int(),
  items: z.array(TokenListEntry).describe('Ascending token id.'),
  next: CursorFields.next.describe('Cursor of the page of higher ids; null on the last page.'),
  prev: CursorFields.prev.describe('Cursor of the page of lower ids; null on the first page.'),
});
export type TokensPage = z.infer<typeof TokensPage>;

const supply = {
  totalsupply: amount(),
  circulation_supply: amount(
    "totalsupply minus the owner's balance of the token (locked entries included, sale and auction escrow not), never below 0.",
  ),
  remainamount: amount(),
  burnningamount: amount('Burnt so far (field name as on chain).'),
};

export const TokenDetail = z.object({
  id: z.string().describe('The token id in decimal.'),
  token: z.int(),
  name: z.string(),
  symbol: z.string(),
  type: z.string(),
  owner: z.string(),
  decimal: z.int(),
  ...supply,
  hardcap: z.string(),
  softcap: z.string(),
  url: z.string(),
  information: z.string(),
  image: z.string().describe('The on-chain image as a data URI, "" when the token has none.'),
  status: z.string(),
  job_type: z.string().describe("The job type of the token record's last write, e.g. tokenRegister, tokenIncrease."),
  createdate: z.int(),
});
export type TokenDetail = z.infer<typeof TokenDetail>;

export const MtcStats = z
  .object({
    token: z.int(),
    name: z.string(),
    symbol: z.string(),
    decimal: z.int(),
    ...supply,
    softcap: z.string(),
    hardcap: z.string(),
    status: z.string(),
    createdate: z.int(),
  })
  .describe('The native coin (token 0).');
export type MtcStats = z.infer<typeof MtcStats>;

export const TokenHolder = z.object({
  address: z.string(),
  balance: amount('Sum of the balance entries of the token, locked ones included (sale and auction escrow apart).'),
  token: z.int(),
  lock_balance: amount('Sum of the entries whose unlock date is still ahead.'),
  unlockdate: z.int().describe('The latest unlock date among those entries, 0 when nothing is locked.'),
  locks: z.array(TokenLock).describe('The entries still locked, in wallet order.'),
});
export type TokenHolder = z.infer<typeof TokenHolder>;

export const TokenHoldersPage = z.object({
  token_id: z.int(),
  total: z.int().describe('Addresses holding the token (a non-zero balance, sale or auction amount).'),
  total_balance: amount('Sum of every holder’s balance.'),
  page: z.int(),
  limit: z.int(),
  holders: z.array(TokenHolder).describe('Largest balance first (compared as integers), ties by address.'),
  ...RankedCursorFields,
});
export type TokenHoldersPage = z.infer<typeof TokenHoldersPage>;

export const TokenTransfer = z.object({
  type: z.string().describe('The job type, e.g. transfer, multi_transfer, tokenIncrease, mrc010sell.'),
  from: z.string(),
  to: z.string(),
  amount: amount('Moved amount; for a multi_transfer the sum over its recipients.'),
  token: z.string().describe('The token id in decimal.'),
  timestamp: z.int(),
  tx_id: z.string(),
  block_sn: z.int().describe('Block height.'),
  recipients: z
    .array(z.object({ to: z.string(), amount: amount() }))
    .describe('Each recipient of a multi_transfer; empty for other entries.'),
  memo: z.string(),
  kind: z
    .string()
    .describe('The activity kind (mtc.activity.v1), e.g. transfer, tokenMint, sell. What the kind filter matches.'),
});
export type TokenTransfer = z.infer<typeof TokenTransfer>;

export const TokenTxsPage = z.object({
  owner: z.string().describe("The token's owner."),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  data: z.array(TokenTransfer).describe('Newest first.'),
  ...CursorFields,
});
export type TokenTxsPage = z.infer<typeof TokenTxsPage>;

export const TOKEN_EVENT_LABELS = {
  create: 'Token create',
  reserve: 'Token reserve',
  mint: 'Token mint',
  burn: 'Token burn',
} as const;

export const TokenLifecycleEvent = z.object({
  tx_id: z.string(),
  tx_type: z
    .enum(Object.values(TOKEN_EVENT_LABELS) as [string, ...string[]])
    .describe(
      "'Token create' (tokenRegister: from the owner, the total supply), 'Token reserve' (token_reserve: owner to the reserve address), 'Token mint' (tokenIncrease, to the owner), 'Token burn' (tokenBurning, from the owner).",
    ),
  from_addr: z.string(),
  to_addr: z.string().describe("'-' when there is no recipient."),
  amount: amount(),
  block_sn: z.int(),
  timestamp: z.int(),
  memo: z.string(),
});
export type TokenLifecycleEvent = z.infer<typeof TokenLifecycleEvent>;

/** The most events /token/{id}/history returns (it has no paging in the spec): the first ones. */
export const TOKEN_HISTORY_MAX = 1_000;

export const TokenHistory = z.object({
  token_id: z.int(),
  total: z.int(),
  events: z
    .array(TokenLifecycleEvent)
    .describe(
      `Oldest first: the first ${TOKEN_HISTORY_MAX} events (total counts them all), or the page a cursor names.`,
    ),
  ...LaterCursorFields,
});
export type TokenHistory = z.infer<typeof TokenHistory>;

export const TokenLockGroup = z.object({
  address: z.string(),
  lock_balance: amount('Sum of the entries whose unlock date is still ahead.'),
  unlockdate: z.int().describe('The latest unlock date among them.'),
  locks: z.array(TokenLock),
});
export type TokenLockGroup = z.infer<typeof TokenLockGroup>;

export const TokenLocks = z.object({
  token_id: z.int(),
  scanned: z.int().describe('Holders examined: those with a lock still ahead, at most max.'),
  max: z.int().describe('The most holders one request examines (TOKEN_LOCKS_MAX).'),
  locked_addresses: z.int().describe('Groups returned: one per address with a lock still ahead.'),
  locks: z.array(TokenLockGroup).describe('Soonest latest-unlock first, ties by address.'),
  ...RankedCursorFields,
});
export type TokenLocks = z.infer<typeof TokenLocks>;
