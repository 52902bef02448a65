import { chainPos } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import type { Appended } from '../series/series.ts';
import { dexOrderDoc, orderRank } from './orders.ts';
import { projectMarketStats, type MarketStatsDoc, type MarketTradeDoc } from './trades.ts';

/** A DEX010 record as the chaincode writes it (Go zero values), with `fields` set. */
const dex010 = (fields: Record<string, unknown>): Record<string, unknown> => ({
  dexid: `DEX010_${'a'.repeat(32)}0`,
  mrc010: '7',
  seller: 'S',
  buyer: '',
  amount: '1000',
  remain_amount: '1000',
  min_trade_unit: '10',
  regdate: 100,
  sell_date: 0,
  cancel_date: 0,
  sell_price: '50',
  sell_token: '0',
  buy_price: '',
  buy_token: '',
  buy_price_total: '',
  auction_bid_count: 0,
  auction_start_date: 0,
  auction_end_date: 0,
  auction_settle_date: 0,
  auction_bidding_unit: '',
  auction_start_price: '',
  auction_buynow_price: '',
  auction_current_price: '',
  auction_current_bidder: '',
  platform_name: '',
  platform_url: '',
  platform_address: '',
  platform_commission: '',
  ...fields,
});
const KEY = `DEX010_${'a'.repeat(32)}0`;
const order = (fields: Record<string, unknown>) => dexOrderDoc(KEY, chainPos(9, 1, 0), 'mrc010_sell', dex010(fields));

describe('market orders from the written DEX records', () => {
  it('tells side and status from the written fields alone', () => {
    expect(order({})).toMatchObject({ side: 'sell', status: 'open', open: true, owner: 'S', asset: '7', unit: '10' });
    expect(order({ remain_amount: '400', buyer: 'B' })).toMatchObject({ status: 'open', remaining: '400' });
    expect(order({ remain_amount: '0', sell_date: 120 })).toMatchObject({ status: 'filled', open: false });
    expect(order({ cancel_date: 130, remain_amount: '400' })).toMatchObject({ status: 'cancelled', open: false });
    const request = { buyer: 'B', seller: '', buy_price: '70', buy_token: '3', sell_price: '', sell_token: '' };
    expect(order(request)).toMatchObject({ side: 'buy', owner: 'B', price: '70', payToken: 3, status: 'open' });
    // An auction keeps remain_amount "" (a chaincode quirk): its amount is what is left while open.
    const auction = { auction_start_date: 100, auction_end_date: 500, auction_start_price: '900', remain_amount: '' };
    expect(order(auction)).toMatchObject({ side: 'auction', status: 'open', price: '900', remaining: '1000' });
    expect(order(auction)).toMatchObject({ unit: '1', expiry: 500 });
    const bid = { ...auction, auction_bid_count: 2, auction_current_price: '950', auction_current_bidder: 'B' };
    expect(order(bid)).toMatchObject({ price: '950', auction: { currentBidder: 'B', startPrice: '900' } });
    expect(order({ ...bid, auction_settle_date: 600, sell_date: 600 })).toMatchObject({
      status: 'sold',
      remaining: '0',
    });
    expect(order({ ...auction, auction_settle_date: 600 })).toMatchObject({ status: 'failed', open: false });
  });

  it('ranks sales by price per single unit ascending, requests descending, auctions by end', () => {
    // 50 per 10 units (5 each) beats 600 per 100 (6 each) and loses to 4 per 1.
    const sales = [
      orderRank('sell', '600', '100', 0),
      orderRank('sell', '50', '10', 0),
      orderRank('sell', '4', '1', 0),
    ];
    expect([...sales].sort()).toEqual([sales[2], sales[1], sales[0]]);
    // A sub-unit price still orders: 1 per 10^8 units is below 2 per 10^8.
    expect(orderRank('sell', '1', '100000000', 0) < orderRank('sell', '2', '100000000', 0)).toBe(true);
    const requests = [orderRank('buy', '4', '1', 0), orderRank('buy', '600', '100', 0)];
    expect([...requests].sort()).toEqual([requests[1], requests[0]]);
    expect(orderRank('auction', '1', '1', 90) < orderRank('auction', '1', '1', 100)).toBe(true);
  });
});

const trade = (n: number, value: string, payToken = 0): Appended<MarketTradeDoc> => ({
  key: '7',
  pos: chainPos(10 + n, 0, 0),
  row: {
    txId: `t${n}`,
    height: 10 + n,
    timestamp: 1000 + n,
    protocol: 'MRC010',
    asset: '7',
    nftId: '',
    orderId: KEY,
    kind: 'sale',
    seller: 'S',
    buyer: 'B',
    amount: '1',
    price: value,
    unit: '1',
    payToken,
    value,
  },
});

const docsOf = (writes: ReturnType<typeof projectMarketStats>): MarketStatsDoc[] =>
  writes.flatMap((w) => (w.op === 'putIfNewer' ? [w.doc as unknown as MarketStatsDoc] : []));

/** Block times: a minute per height, not the transactions' own times. */
const time = (height: number): number => 60 * height;

describe('market stats', () => {
  const trades = [trade(1, '5'), trade(2, '7', 3), trade(3, '11'), trade(4, '13')];

  it('sums each pay token’s trades and keeps its last price', () => {
    expect(docsOf(projectMarketStats(trades, [], time))).toEqual([
      {
        _id: '7|0',
        asset: '7',
        payToken: 0,
        trades: 3,
        volume: '29',
        lastPrice: '13',
        lastUnit: '1',
        lastTime: 840,
        pos: trades[3]!.pos,
      },
      {
        _id: '7|3',
        asset: '7',
        payToken: 3,
        trades: 1,
        volume: '7',
        lastPrice: '7',
        lastUnit: '1',
        lastTime: 720,
        pos: trades[1]!.pos,
      },
    ]);
  });

  it('counts no trade twice when a batch is replayed over stats it already wrote, in part or whole', () => {
    const once = docsOf(projectMarketStats(trades, [], time));
    for (let k = 0; k <= trades.length; k++) {
      const stored = docsOf(projectMarketStats(trades.slice(0, k), [], time));
      const replayed = new Map(stored.map((d) => [d._id, d]));
      for (const d of docsOf(projectMarketStats(trades, stored, time))) replayed.set(d._id, d);
      expect(
        [...replayed.values()].sort((a, b) => (a._id < b._id ? -1 : 1)),
        `after ${k} trades`,
      ).toEqual(once);
    }
  });
});
