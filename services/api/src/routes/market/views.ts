import type { MarketOrderDoc, MarketTradeDoc, SeriesRow } from '@mtc/read-models';
import { z } from 'zod';
import type { MarketOrder, MarketTrade } from './schemas.ts';

/** What the market routes and the live stream share: the asset parameter and the answers' shapes. */
export const COLLECTION = 'MRC400_[0-9a-f]{32}[0-9]';
export const MRC402 = 'MRC402_[0-9a-f]{32}[0-9]';

export const AssetParam = z
  .string()
  .regex(
    new RegExp(`^(?:0|[1-9][0-9]{0,15}|${MRC402}|${COLLECTION})$`),
    'must be an asset: an MRC-010 token id (digits), an MRC402_… id or an MRC400_… collection id',
  )
  .describe('An MRC-010 token id (0: the native coin), an MRC402_… id, or an MRC400_… collection (its items).');

export const toOrder = (d: MarketOrderDoc): MarketOrder => ({
  id: d._id,
  protocol: d.protocol,
  asset: d.asset,
  nftId: d.nftId,
  side: d.side,
  status: d.status,
  owner: d.owner,
  amount: d.amount,
  remaining: d.remaining,
  price: d.price,
  unit: d.unit,
  payToken: d.payToken,
  createdAt: d.createdAt,
  expiry: d.expiry,
  auction: d.auction,
  platform: d.platform,
  height: Number(d.pos.slice(0, 12)),
});

/** A trade as the API shows it: its series row without the numbering. */
export function toTrade(row: Omit<MarketTradeDoc, keyof SeriesRow> & Partial<SeriesRow>): MarketTrade {
  const { _id, key: _key, n: _n, pos: _pos, ...trade } = row;
  return trade;
}
