import { z } from 'zod';
import { CursorFields, LaterCursorFields, RankedCursorFields } from '../../cursor.ts';

/** Response bodies of the NFT routes; each export is an OpenAPI component of the same name. */

const integer = (what: string) =>
  z
    .string()
    .regex(/^(0|-?[1-9][0-9]*)$/)
    .describe(what);

export const NftCollection = z.object({
  id: z.string().describe('The MRC-400 id.'),
  protocol: z.literal('MRC400'),
  owner: z.string(),
  creator: z.string().describe('Who created the collection (its owner at creation).'),
  name: z.string(),
  category: z.string(),
  description: z.string(),
  url: z.string(),
  image_url: z.string().describe('The collection image URL as written on chain.'),
  image: z.string().describe('The collection image URL (the image endpoint serves its bytes).'),
  item_url: z.string(),
  item_image_url: z.string().describe("The items' default image URL ({id} stands for an item's id)."),
  allow_token: z.string().describe('MRC-010 token ids its items may be traded in; "0" or "" for any.'),
  job_type: z.string().describe("The job type of the record's last write."),
  createdate: z.int(),
});

export const NftItem = z.object({
  id: z.string().describe('The MRC-401 id: <MRC-400 id>_<item id>.'),
  protocol: z.literal('MRC401'),
  mrc400: z.string(),
  owner: z.string().describe('An address, or MELTED once melted.'),
  creator: z.string(),
  name: z.string().describe("The collection's name (items carry none of their own)."),
  image: z.string().describe("The item's image URL, else its collection's item image URL with {id} filled in."),
  item_image_url: z.string(),
  parent: z.string().describe('The collection id.'),
  parentName: z.string(),
  parentImage: z.string(),
  groupid: z.string(),
  createdate: z.int(),
  transferable: z.string().describe('Permanent, Bound or Temporary (as written).'),
  status: z.enum(['held', 'sale', 'auction', 'melted']),
  sell_price: z.string(),
  sell_token: z.string(),
  auction_start_price: z.string(),
  job_type: z.string(),
});

export const Mrc402Nft = z.object({
  id: z.string().describe('The MRC-402 id.'),
  protocol: z.literal('MRC402'),
  creator: z.string(),
  owner: z.string().describe('The creator: an MRC-402 has no owner of its own.'),
  name: z.string(),
  totalsupply: integer('As the chain keeps it: mrc402burn lowers it by the melted amount again (a chain quirk).'),
  meltedamount: integer('Units melted so far.'),
  circulation_supply: integer("What its holders hold: Σ balance + sale + auction over the holders' wallets."),
  decimal: z.int(),
  creatorcommission: z.string().describe('Per cent of each trade to the creator.'),
  image: z.string(),
  url: z.string(),
  info: z.string(),
  expiredate: z.int().describe('Unix seconds; melting is refused while it is ahead (0: never).'),
  initialreserve: z.record(z.string(), z.string()).describe('MRC-010 token id → amount reserved per unit.'),
  shareholder: z.record(z.string(), z.string()).nullable().describe('Address → per cent of each trade.'),
  job_type: z.string(),
});

export const NftDetail = z.discriminatedUnion('protocol', [NftCollection, NftItem, Mrc402Nft]);
export type NftDetail = z.infer<typeof NftDetail>;

export const NftHolder = z.object({
  address: z.string(),
  amount: z.string().describe('MRC-400: items held and not offered; MRC-402: the balance (10 fractional digits).'),
  sellAmount: z.string().describe('MRC-400: items on sale; MRC-402: units in sale escrow.'),
  auctionAmount: z.string().describe('MRC-400: items in auction; MRC-402: units in auction escrow.'),
  total: z.string().describe('amount + sellAmount + auctionAmount.'),
  ratio: z
    .string()
    .regex(/^[0-9]+\.[0-9]{4}$/)
    .describe('total as a percentage of what all holders hold, 4 decimals, rounded down (integer arithmetic).'),
});

export type NftHolder = z.infer<typeof NftHolder>;

export const CollectionHoldersPage = z.object({
  nftId: z.string(),
  total: z.int().describe('Addresses owning at least one item (maintained at projection time).'),
  total_balance: z.string().describe('Items held: created and not melted.'),
  page: z.int(),
  limit: z.int(),
  holders: z.array(NftHolder).describe('Most items first, then address.'),
  ...RankedCursorFields,
});

export const Mrc402HoldersPage = z.object({
  total: z.int().describe('Holders (maintained at projection time).'),
  total_balance: z.string().describe('Σ total over all holders, 10 fractional digits.'),
  holders: z.array(NftHolder).describe('Largest total first, then address.'),
  ...RankedCursorFields,
});

export const NftHoldersPage = z.union([CollectionHoldersPage, Mrc402HoldersPage]);

export const NftTxEntry = z.object({
  txid: z.string(),
  type: z.string().describe('e.g. "MRC-401 Transfer", "MRC-402 Create".'),
  from: z.string(),
  to: z.string(),
  amount: z.string().describe('Units moved: MRC-402 units, "1" for an item, "0" when nothing moved.'),
  timestamp: z.int(),
  block: z.int(),
  raw: z.object({
    type: z.string().describe('The job type, e.g. mrc401_transfer.'),
    ukey: z.string().describe('The NFT the entry is about (for a collection: the item, or itself).'),
  }),
});

export const NftTxPage = z.object({
  total: z.int().describe('Entries of this NFT (maintained at projection time).'),
  items: z.array(NftTxEntry).describe('Newest first.'),
  ...CursorFields,
});

export const NftHistoryEntry = z.object({
  txid: z.string(),
  type: z.string().describe('e.g. "Transfer", "Mint", "MRC-402 Create".'),
  from: z.string(),
  to: z.string(),
  price: z.string().optional().describe('Present where the activity has a price (an offer, a bid, a settlement).'),
  timestamp: z.int(),
  amount: z.string(),
  itemId: z.string().optional().describe('MRC-400 history: the item.'),
  itemName: z.string().optional().describe('MRC-400 history: the item’s name (its collection’s).'),
  block: z.int().optional().describe('MRC-402 history: the block.'),
});

export const NftHistory = z.object({
  total: z.int(),
  history: z.array(NftHistoryEntry).describe('Oldest first, from creation.'),
  ...LaterCursorFields,
});

export const NftListEntry = z.object({
  protocol: z
    .enum(['MRC401', 'MRC402'])
    .describe('MRC402, or MRC401 for an MRC-400 collection (the family of its MRC-401 items).'),
  id: z.string(),
  name: z.string(),
  image: z.string(),
  item_image_url: z.string().describe('A collection’s items’ image URL; "" for an MRC-402.'),
  creator: z.string(),
  owner: z.string().describe('The collection’s owner; an MRC-402’s creator.'),
  totalsupply: z
    .string()
    .describe('10 fractional digits: an MRC-402’s supply as the chain keeps it; a collection’s items held.'),
  createdate: z.int(),
  category: z.string(),
  url: z.string(),
});

export const NftsPage = z.object({
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  items: z.array(NftListEntry).describe('Newest first.'),
  ...CursorFields,
});

export const NftItemListEntry = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  owner: z.string(),
  createdate: z.int(),
  job_type: z.string(),
  transferable: z.string(),
  sellPrice: z.number().describe('0 when not on sale.'),
  sellToken: z.string(),
  auctionStartPrice: z.number(),
  auctionCurrentPrice: z.number(),
});

export const NftItemsPage = z.object({
  items: z.array(NftItemListEntry).describe('Newest first.'),
  total: z.int().describe('Items created in the collection, melted ones included.'),
  page: z.int(),
  limit: z.int(),
  ...CursorFields,
});
