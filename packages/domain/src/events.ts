import { z } from 'zod';
import { RawEntry } from './node.ts';

/**
 * The events the follower publishes and projectors consume: the topic contract (docs/topics.md).
 * Event-carried state: a state write carries the record as the chain wrote it (normalised), so a
 * projection is last-write-wins by chain position and never recomputes balances.
 * Amounts are integer strings; ids are plain strings here (validated where they enter: the node).
 */
export const SCHEMA_VERSION = 1;
/** `schemaVersion` of `mtc.blocks.v3` messages (state and activity messages stay at 1). */
export const BLOCKS_SCHEMA_VERSION = 3;
/** `schemaVersion` of `mtc.blocks.v2` messages. */
export const BLOCKS_V2_SCHEMA_VERSION = 2;

const amount = z.string().regex(/^(0|[1-9][0-9]*)$/);

/**
 * An escrow amount (`saleamount`, `auctionamount`) as written: an integer that can be negative.
 * The chaincode lowers escrows without a floor, and `mrc010unauction` lowers `saleamount` by an
 * amount it never added there (CC-t `token.go` mrc010SubtractSubBalance; metacoin-chain.md §7.4),
 * leaving `auctionamount` high by the same amount. Kept as written, so that balance + saleamount +
 * auctionamount still adds up to what the wallet holds.
 */
const escrowAmount = z.string().regex(/^(0|-?[1-9][0-9]*)$/);

export const BalanceEntry = z.object({
  token: z.number().int().nonnegative(),
  balance: amount,
  unlockdate: z.number().int().nonnegative(),
  saleamount: escrowAmount,
  auctionamount: escrowAmount,
});
export type BalanceEntry = z.infer<typeof BalanceEntry>;

export const Mrc402Holding = z.object({ balance: amount, saleamount: escrowAmount, auctionamount: escrowAmount });
export type Mrc402Holding = z.infer<typeof Mrc402Holding>;

export const WalletState = z.object({
  address: z.string(),
  regdate: z.number().int(),
  addinfo: z.string(),
  balances: z.array(BalanceEntry),
  mrc402: z.record(z.string(), Mrc402Holding).nullable(),
});
export type WalletState = z.infer<typeof WalletState>;

export const TokenState = z.object({
  token: z.number().int().nonnegative(),
  id: z.string(),
  owner: z.string(),
  name: z.string(),
  symbol: z.string(),
  type: z.string(),
  decimal: z.number().int(),
  createdate: z.number().int(),
  totalsupply: amount,
  reservedamount: amount,
  remainamount: amount,
  burnningamount: amount,
  softcap: z.string(),
  hardcap: z.string(),
  url: z.string(),
  information: z.string(),
  image: z.string(),
  status: z.string(),
});
export type TokenState = z.infer<typeof TokenState>;

/**
 * An MRC-400 collection as written (CC-m and CC-t shapes; fields a CC-m record lacks read as ""
 * or null). Ownership of its items lives in the items.
 */
export const NftCollectionState = z.object({
  id: z.string(),
  owner: z.string(),
  createdate: z.number().int(),
  name: z.string(),
  url: z.string(),
  image_url: z.string(),
  allow_token: z.string(),
  item_url: z.string(),
  item_image_url: z.string(),
  category: z.string(),
  description: z.string(),
  socialmedia: z.string(),
  /** {address: "partner" | "seller" | "creator"}, null when never given. */
  partner: z.record(z.string(), z.string()).nullable(),
  data: z.string(),
});
export type NftCollectionState = z.infer<typeof NftCollectionState>;

/**
 * An MRC-401 item as written: `owner` is an address, or `MELTED`. Prices, fees and reserves stay the
 * decimal strings the chaincode stored; a CC-m record's missing fields read as "" (or null).
 */
export const NftItemState = z.object({
  id: z.string(),
  mrc400: z.string(),
  owner: z.string(),
  creator: z.string(),
  item_url: z.string(),
  item_image_url: z.string(),
  groupid: z.string(),
  createdate: z.number().int(),
  initial_reserve: z.string(),
  initial_token: z.string(),
  melting_fee: z.string(),
  melting_date: z.number().int(),
  transferable: z.string(),
  sell_date: z.number().int(),
  sell_fee: z.string(),
  sell_price: z.string(),
  sell_token: z.string(),
  auction_date: z.number().int(),
  auction_end: z.number().int(),
  auction_token: z.string(),
  auction_bidding_unit: z.string(),
  auction_start_price: z.string(),
  auction_buynow_price: z.string(),
  auction_current_price: z.string(),
  auction_current_bidder: z.string(),
  last_trade_date: z.number().int(),
  last_trade_amount: z.string(),
  last_trade_token: z.string(),
  last_trade_type: z.string(),
  shareholder: z.record(z.string(), z.string()).nullable(),
  platform_name: z.string(),
  platform_url: z.string(),
  platform_address: z.string(),
  platform_commission: z.string(),
});
export type NftItemState = z.infer<typeof NftItemState>;

/**
 * An MRC-402 as written. `totalsupply` and `meltedamount` are integers as the chaincode keeps them
 * (signed: `mrc402burn` recomputes totalsupply as totalsupply − meltedamount − amount, a quirk the
 * index reproduces rather than corrects; metacoin-chain.md §7.3). `shareholder` (address →
 * commission %) and `initialreserve` (MRC-010 token id → amount per unit) are as the client sent them.
 */
export const Mrc402State = z.object({
  id: z.string(),
  creator: z.string(),
  creatorcommission: z.string(),
  totalsupply: escrowAmount,
  meltedamount: escrowAmount,
  decimal: z.number().int(),
  name: z.string(),
  expiredate: z.number().int(),
  image: z.string(),
  url: z.string(),
  data: z.string(),
  info: z.string(),
  socialmedia: z.string(),
  copyright_registration_country: z.string(),
  copyright_registrar: z.string(),
  copyright_registration_number: z.string(),
  shareholder: z.record(z.string(), z.string()).nullable(),
  initialreserve: z.record(z.string(), z.string()).nullable(),
});
export type Mrc402State = z.infer<typeof Mrc402State>;

/** A valid state write, with the written record normalised. */
export const StateWrite = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('wallet'), key: z.string(), pos: z.string(), jobType: z.string(), wallet: WalletState }),
  z.object({ kind: z.literal('token'), key: z.string(), pos: z.string(), jobType: z.string(), token: TokenState }),
  /** An MRC-400 collection (`MRC400_…`). */
  z.object({
    kind: z.literal('nftCollection'),
    key: z.string(),
    pos: z.string(),
    jobType: z.string(),
    collection: NftCollectionState,
  }),
  /** An MRC-401 item (`MRC400_…_…`). */
  z.object({ kind: z.literal('nftItem'), key: z.string(), pos: z.string(), jobType: z.string(), item: NftItemState }),
  /** An MRC-402 (`MRC402_…`). */
  z.object({ kind: z.literal('mrc402'), key: z.string(), pos: z.string(), jobType: z.string(), mrc402: Mrc402State }),
  /** Records of kinds the projections do not model yet (DEX orders, legacy families …), kept as written. */
  z.object({
    kind: z.literal('other'),
    key: z.string(),
    pos: z.string(),
    jobType: z.string(),
    values: z.record(z.string(), z.unknown()),
  }),
]);
export type StateWrite = z.infer<typeof StateWrite>;

/** A splice of a list: `remove` items at `at`, `insert` in their place (see `wallet-change.ts`). */
export interface Splice<T> {
  /** Index in the list as the splices before this one left it. */
  at: number;
  remove: number;
  insert: T[];
}

const splice = <T extends z.ZodType>(item: T) =>
  z.object({
    at: z.number().int().nonnegative(),
    remove: z.number().int().nonnegative(),
    insert: z.array(item),
  });

export const Mrc402Item = z.tuple([z.string(), Mrc402Holding]);
export type Mrc402Item = z.infer<typeof Mrc402Item>;

/**
 * A wallet write as a change to the wallet's previous write (`mtc.blocks.v3`; see
 * `wallet-change.ts` for why and how it is made and applied).
 */
export const WalletChangeWrite = z.object({
  kind: z.literal('walletChange'),
  key: z.string(),
  pos: z.string(),
  jobType: z.string(),
  /** `pos` of this wallet's previous write, the one the change is relative to. */
  base: z.string(),
  regdate: z.number().int(),
  addinfo: z.string(),
  /** MRC-010 tokens whose entries this write changed, ascending. */
  tokens: z.array(z.number().int().nonnegative()),
  /** Every entry of those tokens after the write, in wallet order (none: the wallet has none left). */
  balances: z.array(BalanceEntry),
  /** MRC-402 ids whose holding this write changed, ascending. */
  nfts: z.array(z.string()),
  /** The holdings of those ids after the write (an id not here is no longer held). */
  mrc402: z.record(z.string(), Mrc402Holding),
  /**
   * The written lists from the base's, spliced in order: `balances`, and `mrc402` as `[id, holding]`
   * pairs in the record's order (null: the record's `mrc402` is null after the write).
   */
  edits: z.object({
    balances: z.array(splice(BalanceEntry)),
    mrc402: z.array(splice(Mrc402Item)).nullable(),
  }),
});
export type WalletChangeWrite = z.infer<typeof WalletChangeWrite>;

/**
 * A state write on `mtc.blocks.v3`: as on the state topic, except that a wallet written before
 * (since the follower started) comes as a change to its previous write (`walletChange`).
 */
export const BlockWrite = z.discriminatedUnion('kind', [...StateWrite.options, WalletChangeWrite]);
export type BlockWrite = z.infer<typeof BlockWrite>;

/**
 * What a transaction did, in business terms (valid transactions only): one typed event per kind, so
 * a consumer can follow transfers, mints, burns, creates, sales and auctions without reading raw
 * entries. `jobType` is the node entry type the event was read from. New kinds are additions: a
 * consumer must skip a `kind` it does not know (see `UnknownActivity`).
 */
const tokenId = z.number().int().nonnegative();
const unix = z.number().int();

/**
 * One payout of a DEX settlement (CC-t `mtc.go` TDexPaymentInfo), as the chaincode recorded it.
 * `from`/`to` are addresses or the DEX id (the escrow). A payout of the traded asset itself (e.g.
 * `mrc010_recv_item`) is recorded as a trade quantity; it reads here as `amount` of `token` too.
 */
export const Payment = z.object({
  from: z.string(),
  to: z.string(),
  amount,
  token: tokenId,
  type: z.string(),
});
export type Payment = z.infer<typeof Payment>;

export const ActivityKinds = [
  'transfer',
  'walletCreate',
  'tokenCreate',
  'tokenReserve',
  'tokenMint',
  'tokenBurn',
  'tokenUpdate',
  'sell',
  'sellCancel',
  'buy',
  'buyRequest',
  'buyRequestCancel',
  'buyRequestAccept',
  'auction',
  'auctionCancel',
  'bid',
  'auctionFinish',
  'nftCreate',
  'nftUpdate',
  'nftMint',
  'nftBurn',
  'nftTransfer',
  'nftMelt',
  'nftSell',
  'nftSellCancel',
  'nftBuy',
  'nftAuction',
  'nftAuctionCancel',
  'nftBid',
  'nftAuctionFinish',
  'other',
] as const;
export type ActivityKind = (typeof ActivityKinds)[number];

const dex = { jobType: z.string(), dexId: z.string(), tokenId };

/** The NFT protocols: MRC-400 collections, their MRC-401 items, MRC-402 multi-supply NFTs. */
export const NftProtocol = z.enum(['MRC400', 'MRC401', 'MRC402']);
export type NftProtocol = z.infer<typeof NftProtocol>;

/**
 * What every NFT activity names: the NFT (`MRC400_…` collection, `MRC400_…_…` item or `MRC402_…`)
 * and its protocol. Quantities are integer strings: MRC-402 units (the chain keeps them integral;
 * the API's 10-digit decimals are presentation), "1" for an MRC-401 item.
 */
const nft = { jobType: z.string(), protocol: NftProtocol, nftId: z.string() };
/**
 * An NFT trade's order: a `DEX402_…` order for MRC-402; for an MRC-401 item the item itself (its
 * record holds the sale or auction).
 */
const nftDex = { ...nft, dexId: z.string() };

export const KnownActivity = z.discriminatedUnion('kind', [
  /** A plain transfer, one recipient of a multitransfer, or a receive (jobType says which). */
  z.object({
    kind: z.literal('transfer'),
    jobType: z.string(),
    from: z.string(),
    to: z.string(),
    amount,
    tokenId,
    unlockdate: z.number().int().nonnegative(),
    tag: z.string(),
    memo: z.string(),
  }),
  z.object({ kind: z.literal('walletCreate'), jobType: z.string(), address: z.string() }),
  z.object({
    kind: z.literal('tokenCreate'),
    jobType: z.string(),
    tokenId,
    owner: z.string(),
    totalsupply: amount,
    name: z.string(),
    symbol: z.string(),
    decimal: z.number().int(),
  }),
  z.object({
    kind: z.literal('tokenReserve'),
    jobType: z.string(),
    tokenId,
    from: z.string(),
    to: z.string(),
    amount,
    unlockdate: z.number().int().nonnegative(),
  }),
  z.object({ kind: z.literal('tokenMint'), jobType: z.string(), tokenId, owner: z.string(), amount, memo: z.string() }),
  z.object({ kind: z.literal('tokenBurn'), jobType: z.string(), tokenId, owner: z.string(), amount, memo: z.string() }),
  z.object({
    kind: z.literal('tokenUpdate'),
    jobType: z.string(),
    tokenId,
    owner: z.string(),
    url: z.string(),
    information: z.string(),
    imageChanged: z.boolean(),
  }),
  /** An MRC-010 sell order: `amount` moved from the seller's balance into its saleamount escrow. */
  z.object({
    kind: z.literal('sell'),
    ...dex,
    seller: z.string(),
    amount,
    price: amount,
    payToken: tokenId,
    minTradeUnit: amount,
  }),
  /** A sell order cancelled: the remainder goes back from escrow to the seller. */
  z.object({ kind: z.literal('sellCancel'), ...dex, seller: z.string(), amount }),
  /** A purchase from a sell order, with the payouts (seller, platform fee). */
  z.object({
    kind: z.literal('buy'),
    ...dex,
    seller: z.string(),
    buyer: z.string(),
    amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  /** A request to buy (`mrc010reqsell`): the buyer escrows the price and fee. */
  z.object({
    kind: z.literal('buyRequest'),
    ...dex,
    buyer: z.string(),
    amount,
    price: amount,
    payToken: tokenId,
    escrow: amount,
  }),
  z.object({ kind: z.literal('buyRequestCancel'), ...dex, buyer: z.string(), refund: amount }),
  /** A seller filling (part of) a request to buy. */
  z.object({
    kind: z.literal('buyRequestAccept'),
    ...dex,
    seller: z.string(),
    buyer: z.string(),
    amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  z.object({
    kind: z.literal('auction'),
    ...dex,
    seller: z.string(),
    amount,
    startPrice: amount,
    buyNowPrice: amount,
    payToken: tokenId,
    startDate: unix,
    endDate: unix,
  }),
  z.object({ kind: z.literal('auctionCancel'), ...dex, seller: z.string(), amount }),
  /** A bid; the previous bidder (if any) is refunded in the same transaction. */
  z.object({
    kind: z.literal('bid'),
    ...dex,
    seller: z.string(),
    bidder: z.string(),
    price: amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  /** The end of an auction: `winning` or `buynow` with a winner, or `failure` (tokens back to the seller). */
  z.object({
    kind: z.literal('auctionFinish'),
    ...dex,
    outcome: z.enum(['winning', 'buynow', 'failure']),
    seller: z.string(),
    winner: z.string(),
    amount,
    price: amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  /**
   * An NFT created: an MRC-400 collection (amount "0"), each MRC-401 item of a create call (amount
   * "1", `parent` its collection), an MRC-402 with its initial `totalsupply` as amount. `owner` is
   * who holds it after creation (for MRC-402 the creator), `creator` who called.
   */
  z.object({
    kind: z.literal('nftCreate'),
    ...nft,
    owner: z.string(),
    creator: z.string(),
    amount,
    name: z.string(),
    parent: z.string(),
  }),
  /** Metadata of a collection, item or MRC-402 changed by `owner` (its owner or creator). */
  z.object({ kind: z.literal('nftUpdate'), ...nft, owner: z.string() }),
  /** MRC-402 supply added to the creator's balance (`mrc402mint`). */
  z.object({ kind: z.literal('nftMint'), ...nft, owner: z.string(), amount, memo: z.string() }),
  /** MRC-402 supply burnt from the creator's balance (`mrc402burn`; see the chain's totalsupply quirk). */
  z.object({ kind: z.literal('nftBurn'), ...nft, owner: z.string(), amount, memo: z.string() }),
  /** An MRC-402 quantity or an MRC-401 item (amount "1") moved between addresses, outside the DEX. */
  z.object({ kind: z.literal('nftTransfer'), ...nft, from: z.string(), to: z.string(), amount }),
  /**
   * An MRC-402 quantity or an MRC-401 item (amount "1") melted by `owner`: gone for good, its
   * initial reserve paid out as `payments` (MRC-010 tokens; MRC-401 melting fees included).
   */
  z.object({ kind: z.literal('nftMelt'), ...nft, owner: z.string(), amount, payments: z.array(Payment) }),
  /** Offered for sale: `amount` units at `price` per unit of `payToken`. */
  z.object({
    kind: z.literal('nftSell'),
    ...nftDex,
    seller: z.string(),
    amount,
    price: amount,
    payToken: tokenId,
  }),
  /** A sale withdrawn: `amount` (the unsold remainder) back to the seller. */
  z.object({ kind: z.literal('nftSellCancel'), ...nftDex, seller: z.string(), amount }),
  /** A purchase, with the payouts the chaincode recorded (seller, creator, platform, shareholders). */
  z.object({
    kind: z.literal('nftBuy'),
    ...nftDex,
    seller: z.string(),
    buyer: z.string(),
    amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  z.object({
    kind: z.literal('nftAuction'),
    ...nftDex,
    seller: z.string(),
    amount,
    startPrice: amount,
    buyNowPrice: amount,
    payToken: tokenId,
    startDate: unix,
    endDate: unix,
  }),
  z.object({ kind: z.literal('nftAuctionCancel'), ...nftDex, seller: z.string(), amount }),
  /** A bid; the previous bidder (if any) is refunded in the same transaction. */
  z.object({
    kind: z.literal('nftBid'),
    ...nftDex,
    seller: z.string(),
    bidder: z.string(),
    price: amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  /** The end of an NFT auction: `winning` or `buynow` with a winner, or `failure` (back to the seller). */
  z.object({
    kind: z.literal('nftAuctionFinish'),
    ...nftDex,
    outcome: z.enum(['winning', 'buynow', 'failure']),
    seller: z.string(),
    winner: z.string(),
    amount,
    price: amount,
    payToken: tokenId,
    payments: z.array(Payment),
  }),
  /** A job type no family decodes (legacy or unknown): shown as generic activity, never dropped. */
  z.object({ kind: z.literal('other'), jobType: z.string(), key: z.string() }),
]);
export type KnownActivity = z.infer<typeof KnownActivity>;

/**
 * An activity of a kind this version does not know (a newer follower published it). Consumers,
 * ours included, skip it: the topic contract only ever adds kinds.
 */
export const UnknownActivity = z.looseObject({
  // A pattern rather than a refinement, so that the published JSON Schema says it too: a message
  // of a known kind that does not match that kind's schema is invalid, not "unknown".
  kind: z.string().regex(new RegExp(`^(?!(?:${ActivityKinds.join('|')})$)`), 'a known kind must match its schema'),
  jobType: z.string(),
});
export type UnknownActivity = z.infer<typeof UnknownActivity>;

export const Activity = z.union([KnownActivity, UnknownActivity]);
export type Activity = KnownActivity;

/** Narrows a parsed activity to the kinds this version knows. */
export function isKnownActivity(a: KnownActivity | UnknownActivity): a is KnownActivity {
  return (ActivityKinds as readonly string[]).includes(a.kind);
}

/**
 * The asset an activity is about: the MRC-010 token id in decimal, the MRC-400 collection of an
 * NFT activity (an MRC-401 item's collection: its id up to the second `_`), the `MRC402_…` id; or
 * null (wallet creation, other).
 */
export function activityAsset(a: KnownActivity): string | null {
  if ('nftId' in a) {
    const itemCut = a.protocol === 'MRC401' ? a.nftId.indexOf('_', 7) : -1;
    return itemCut > 0 ? a.nftId.slice(0, itemCut) : a.nftId;
  }
  return 'tokenId' in a ? String(a.tokenId) : null;
}

/**
 * The partitioning key of an activity on `mtc.activity.v1`: the asset (see `activityAsset`), the
 * address for a wallet creation, `other` for generic activity. Messages with one key keep their
 * order, so a consumer follows one token's, one collection's (with its items) or one MRC-402's
 * history in chain order.
 */
export function activityKey(a: KnownActivity | UnknownActivity): string {
  if (!isKnownActivity(a)) return 'other';
  const asset = activityAsset(a);
  if (asset !== null) return asset;
  return a.kind === 'walletCreate' ? a.address : 'other';
}

/** The one-line view of a transaction that lists show. */
export const TxSummary = z.object({
  type: z.string(),
  from: z.string(),
  to: z.string(),
  amount,
  token: z.string(),
});
export type TxSummary = z.infer<typeof TxSummary>;

/**
 * The fields of a written value that a transaction's own view shows (its job type, the peer's
 * `jobdate`, MRC-402 holdings). The rest of a value — a wallet's whole balance list, a token's whole
 * record — is state: it travels once, as the decoded write, and the node serves the raw form
 * (`GET /transaction/{id}`, our `/api/rawtx`).
 */
export const DETAIL_VALUE_FIELDS = ['job_type', 'jobdate', 'mrc402'] as const;

/** A node entry with its written `values` cut to `DETAIL_VALUE_FIELDS` (idempotent). */
export function slimEntry(entry: RawEntry): RawEntry {
  if (!entry.values) return entry;
  const values: Record<string, unknown> = {};
  for (const field of DETAIL_VALUE_FIELDS) if (field in entry.values) values[field] = entry.values[field];
  return { ...entry, values };
}

const txFields = {
  id: z.string(),
  index: z.number().int().nonnegative(),
  /** Position of the transaction among all listed transactions of the chain, from 0. */
  seq: z.number().int().nonnegative(),
  timestamp: z.number().int(),
  valid: z.boolean(),
  summary: TxSummary,
  /**
   * The node's entries in order, each as served except that `values` keeps only
   * `DETAIL_VALUE_FIELDS` (on `mtc.blocks.v1`: the whole written value).
   */
  entries: z.array(RawEntry),
};

/** A transaction on `mtc.blocks.v3`: its wallet writes may be changes (`BlockWrite`). */
export const TxEvent = z.object({ ...txFields, writes: z.array(BlockWrite), activity: z.array(Activity) });
export type TxEvent = z.infer<typeof TxEvent>;

/** A transaction on `mtc.blocks.v1` and `v2`: every write whole. */
export const TxEventV2 = z.object({ ...txFields, writes: z.array(StateWrite), activity: z.array(Activity) });
export type TxEventV2 = z.infer<typeof TxEventV2>;

const blockFields = {
  eventId: z.string(),
  height: z.number().int().positive(),
  hash: z.string(),
  timestamp: z.number().int(),
  /** `seq` of this block's first listed transaction (= number of transactions before it). */
  firstTxSeq: z.number().int().nonnegative(),
};

/**
 * Topic `mtc.blocks.v3`, key = height: one message per block, in chain order. As v2, except that
 * a wallet the follower wrote before comes as a change to its previous write (`walletChange`):
 * a wallet's record grows with its history, and v2 carried it whole on every write.
 */
export const BlockEvent = z.object({
  schemaVersion: z.literal(BLOCKS_SCHEMA_VERSION),
  ...blockFields,
  txs: z.array(TxEvent),
});
export type BlockEvent = z.infer<typeof BlockEvent>;

/**
 * Topic `mtc.blocks.v2` (superseded by v3; published only when a deployment asks for it): every
 * write whole; entries carry only the fields of their written values that the transaction shows.
 */
export const BlockEventV2 = z.object({
  schemaVersion: z.literal(BLOCKS_V2_SCHEMA_VERSION),
  ...blockFields,
  txs: z.array(TxEventV2),
});
export type BlockEventV2 = z.infer<typeof BlockEventV2>;

/**
 * Topic `mtc.blocks.v1` (superseded; published only when a deployment asks for it): as v2, with
 * every entry exactly as the node served it, written values whole.
 */
export const BlockEventV1 = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  ...blockFields,
  txs: z.array(TxEventV2),
});
export type BlockEventV1 = z.infer<typeof BlockEventV1>;

/** The v2 message of a block decoded from the node's entries as served (which is the v1 message). */
export function toBlockEventV2(v1: BlockEventV1 | BlockEventV2): BlockEventV2 {
  return {
    ...v1,
    schemaVersion: BLOCKS_V2_SCHEMA_VERSION,
    txs: v1.txs.map((tx) => ({ ...tx, entries: tx.entries.map(slimEntry) })),
  };
}

/**
 * Topic `mtc.state.v1`, key = the state key (address, TOKEN_DATA_n, …): one message per valid state
 * write, so that per-entity order holds within a partition and projectors scale by partition.
 * Published before the block it belongs to; a replay may repeat messages (apply by `write.pos`).
 */
export const StateEvent = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** `state:<pos>`: unique and deterministic. */
  eventId: z.string(),
  height: z.number().int().positive(),
  txId: z.string(),
  write: StateWrite,
});
export type StateEvent = z.infer<typeof StateEvent>;

/**
 * Topic `mtc.activity.v1`, key = the asset (MRC-010 token id in decimal; an address for wallet
 * creation; `other` for generic activity): one message per activity of a valid transaction, so a
 * consumer can follow one asset's history in order without reading whole blocks. Published before
 * the block it belongs to; a replay may repeat messages (de-duplicate by `eventId`).
 */
export const ActivityEvent = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** `activity:<pos>`: unique and deterministic. */
  eventId: z.string(),
  /** `height:txIndex:activityIndex`, zero-padded: string order is chain order. */
  pos: z.string(),
  height: z.number().int().positive(),
  txId: z.string(),
  /** The transaction's timestamp (the client's clock, unix s). */
  timestamp: z.number().int(),
  activity: Activity,
});
export type ActivityEvent = z.infer<typeof ActivityEvent>;

export interface TopicNames {
  blocks: string;
  state: string;
  activity: string;
  /** `mtc.blocks.v1` and `v2`, published beside v3 only when set (for consumers that have not moved yet). */
  blocksV1?: string;
  blocksV2?: string;
}

export const TOPICS = {
  blocks: 'mtc.blocks.v3',
  state: 'mtc.state.v1',
  activity: 'mtc.activity.v1',
  blocksV1: 'mtc.blocks.v1',
  blocksV2: 'mtc.blocks.v2',
} as const satisfies Required<TopicNames>;

/**
 * The topic names under a deployment prefix (tests and side-by-side deployments); `mtc.blocks.v1`
 * and `v2` among them only when they are to be published.
 */
export function topicNames(prefix = '', options: { blocksV1?: boolean; blocksV2?: boolean } = {}): TopicNames {
  return {
    blocks: `${prefix}${TOPICS.blocks}`,
    state: `${prefix}${TOPICS.state}`,
    activity: `${prefix}${TOPICS.activity}`,
    ...(options.blocksV1 ? { blocksV1: `${prefix}${TOPICS.blocksV1}` } : {}),
    ...(options.blocksV2 ? { blocksV2: `${prefix}${TOPICS.blocksV2}` } : {}),
  };
}

/** Whether a block topic write is whole, as on the state topic (not a wallet change). */
export const isStateWrite = (w: BlockWrite): w is StateWrite => w.kind !== 'walletChange';
