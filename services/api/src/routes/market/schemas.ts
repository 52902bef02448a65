import { z } from 'zod';
import { CursorFields, RankedCursorFields } from '../../cursor.ts';

/** Response bodies of the DEX market routes; each export is an OpenAPI component of the same name. */

const units = (what: string) =>
  z
    .string()
    .regex(/^(0|-?[1-9][0-9]*)$/)
    .describe(`${what} An integer in the smallest unit, as the chain writes it.`);

const protocol = z.enum(['MRC010', 'MRC402', 'MRC401']).describe('MRC010 (a token), MRC402, or MRC401 (an item).');
const asset = z
  .string()
  .describe('The MRC-010 token id in decimal, the MRC402_… id, or the MRC400_… collection of an MRC-401 item.');

export const MarketAuction = z.object({
  startDate: z.int(),
  endDate: z.int(),
  startPrice: units('Opening price for the whole amount.'),
  buyNowPrice: units('Buy-now price for the whole amount (0: none).'),
  biddingUnit: units('Smallest raise.'),
  currentPrice: units('The highest bid (0: none).'),
  currentBidder: z.string().describe('Who bid it ("" before the first bid).'),
});

export const MarketOrder = z.object({
  id: z.string().describe('The DEX010_…/DEX402_… order, or the MRC-401 item offered.'),
  protocol,
  asset,
  nftId: z.string().describe('The MRC402_… id or the item; "" for MRC-010.'),
  side: z
    .enum(['sell', 'buy', 'auction'])
    .describe('sell: a sale; buy: a request to buy (MRC-010 mrc010reqsell); auction: an auction.'),
  status: z
    .enum(['open', 'filled', 'cancelled', 'sold', 'failed'])
    .describe(
      'From the written record alone: cancelled; a sale or request filled; an auction sold or failed once settled; open until then (an auction past its end that nobody finished is still open: compare expiry with the block time).',
    ),
  owner: z.string().describe('The seller of a sale or auction, the buyer of a request to buy.'),
  amount: units('Quantity ordered.'),
  remaining: units('Quantity left (an auction: its amount while open).'),
  price: units(
    'A sale: per `unit` units (sell_price); a request: per `unit` units (buy_price); an auction: the highest bid, else the opening price, for the whole amount.',
  ),
  unit: units('What the price is per: min_trade_unit of an MRC-010 sale or request, else 1.'),
  payToken: z.int().describe('The MRC-010 token the price is in.'),
  createdAt: z.int().describe('When the order was placed (unix seconds).'),
  expiry: z.int().describe("An auction's end (unix seconds); 0 for sales and requests, which do not expire."),
  auction: MarketAuction.nullable(),
  platform: z.object({ name: z.string(), url: z.string(), address: z.string(), commission: z.string() }),
  height: z.int().describe("The height of the order's last write."),
});

export type MarketOrder = z.infer<typeof MarketOrder>;

export const MarketOrdersPage = z.object({
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  items: z.array(MarketOrder),
  ...RankedCursorFields,
});

export const MarketTrade = z.object({
  txId: z.string(),
  height: z.int(),
  timestamp: z.int(),
  protocol,
  asset,
  nftId: z.string(),
  orderId: z.string().describe('The order settled (for an MRC-401 item: the item).'),
  kind: z
    .enum(['sale', 'request', 'auction'])
    .describe('sale: bought from a sale; request: a request to buy filled; auction: won or bought out.'),
  seller: z.string(),
  buyer: z.string(),
  amount: units('Quantity traded.'),
  price: units('Per `unit` units (an auction: for the whole amount).'),
  unit: units('What the price is per.'),
  payToken: z.int(),
  value: units('amount × price / unit in the pay token (an auction: the winning bid).'),
});

export type MarketTrade = z.infer<typeof MarketTrade>;

export const MarketTradesPage = z.object({
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  ...CursorFields,
  items: z.array(MarketTrade),
});

export const MarketPayTokenStats = z.object({
  payToken: z.int(),
  trades: z.int(),
  volume: units('Σ value of every trade.'),
  trades24h: z.int().describe('Trades in the blocks of the 24 hours up to `time`.'),
  volume24h: units('Σ value of those trades.'),
  lastPrice: units('The newest trade’s price.'),
  lastUnit: units('What that price is per.'),
  lastTime: z.int().describe('The newest trade’s block time.'),
});

export const MarketStats = z.object({
  asset,
  protocol,
  time: z.int().describe('The time of the block at X-Indexed-Height: what the 24 hours end at.'),
  orders: z.object({ sell: z.int(), buy: z.int(), auction: z.int() }).describe('Open orders by side.'),
  payTokens: z.array(MarketPayTokenStats).describe('One per pay token the asset ever traded in, ascending.'),
});
