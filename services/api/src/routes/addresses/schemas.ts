import { z } from 'zod';
import { CursorFields } from '../../cursor.ts';
import { TokenLock } from '../tokens/schemas.ts';

/** Response bodies of the address routes; each export is an OpenAPI component of the same name. */

const amount = (what: string) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/)
    .describe(what);

/** Escrow as the chain wrote it: its `mrc010unauction` takes the returned amount from saleamount (metacoin-chain.md §7.4). */
const escrow = (what: string) =>
  z
    .string()
    .regex(/^(0|-?[1-9][0-9]*)$/)
    .describe(
      `${what} Summed as written, so it can be negative: the chaincode cancels an auction by lowering saleamount (auctionamount stays).`,
    );

export const AddressBalance = z.object({
  tokenId: z.int(),
  tokenName: z.string().describe("'' when the token is not indexed."),
  tokenSymbol: z.string().describe("'' when the token is not indexed."),
  decimal: z.int().describe('0 when the token is not indexed.'),
  image: z.string().describe("Path of the token's image endpoint when it has an image, else ''."),
  balance: amount("Sum of the wallet's entries of the token, locked ones included (sale and auction escrow apart)."),
  saleamount: escrow('Held in MRC-010 sell orders.'),
  auctionamount: escrow('Held in MRC-010 auctions.'),
  lockBalance: amount('The part of balance whose unlock date is still ahead.'),
  locks: z.array(TokenLock).describe('The entries still locked, in wallet order.'),
});
export type AddressBalance = z.infer<typeof AddressBalance>;

/** MRC-401 items listed per address at most (an explorer pages a collection's items with /nft-items). */
export const MAX_ITEM_HOLDINGS = 1000;
/** MRC-402 holdings listed per address at most, so one answer stays bounded however many a wallet holds. */
export const MAX_MRC402_HOLDINGS = 1000;

export const NftHolding = z.object({
  id: z.string().describe('An MRC-402 id or an MRC-401 item id.'),
  name: z.string().describe("The MRC-402's name; an item's collection name."),
  image: z.string().describe('The image URL as written on chain (an item: its own, else its collection’s item image).'),
  balance: z.string().describe("MRC-402: the wallet's balance in whole units; an item: '1' when held and not offered."),
  saleamount: z.string().describe("MRC-402: the wallet's sale escrow; an item: '1' while it is on sale."),
  auctionamount: z.string().describe("MRC-402: the wallet's auction escrow; an item: '1' while it is in auction."),
  parent: z.string().describe("An item's collection id; '' for an MRC-402."),
  parentName: z.string().describe("An item's collection name; '' for an MRC-402."),
});
export type NftHolding = z.infer<typeof NftHolding>;

export const Address = z.object({
  address: z.string(),
  regdate: z.int().describe('Wallet creation, unix seconds.'),
  addinfo: z.string().describe('The wallet’s free memo.'),
  balances: z
    .array(AddressBalance)
    .describe('One entry per token the wallet has balance entries of, ascending token id; token 0 included at zero.'),
  nfts: z
    .array(NftHolding)
    .describe(
      `MRC-402 holdings (ascending id, at most ${MAX_MRC402_HOLDINGS}), then owned MRC-401 items (by collection and id, at most ${MAX_ITEM_HOLDINGS}).`,
    ),
});
export type Address = z.infer<typeof Address>;

export const AddressActivity = z.object({
  job_type: z.string().describe('The entry type that wrote the wallet, e.g. transfer, receive, tokenRegister.'),
  jobdate: z.int().describe("The written record's jobdate (the peer's clock), unix seconds."),
  tx_id: z.string(),
  db_sn: z.string().describe('Block height, as a decimal string.'),
  summary: z.string().describe('A short label of the entry, e.g. Transfer, Receive, Token reserve.'),
  from: z.string(),
  to: z.string(),
  amount: amount("In the smallest unit of the entry's token; '0' when it moves nothing."),
  nftId: z.string().optional().describe('Present for NFT activity only.'),
  tokenName: z.string().describe("'' when the entry names no indexed token."),
  tokenSymbol: z.string().describe("'' when the entry names no indexed token."),
  parentName: z.string().describe("The NFT's collection name; '' for fungible activity."),
  tokenId: z
    .int()
    .nullable()
    .describe(
      'The MRC-010 token the entry names (0: the native coin); null when it names none. What the token filter matches.',
    ),
  kind: z
    .string()
    .describe(
      "The activity kind of the transaction's main action (mtc.activity.v1), e.g. transfer, buy, nftSell. What the kind filter matches.",
    ),
});
export type AddressActivity = z.infer<typeof AddressActivity>;

export const AddressTxsPage = z.object({
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  data: z.array(AddressActivity).describe('Newest first.'),
  ...CursorFields,
});
export type AddressTxsPage = z.infer<typeof AddressTxsPage>;
