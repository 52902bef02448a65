import { describe, expect, it } from 'vitest';
import type { Mrc401Item } from './records.ts';
import { mrc401AuctionFinishJob, mrc401AuctionJob, mrc401BidJob, mrc401UnauctionJob } from './auction.ts';
import { mrc401TransferJob } from './transfer.ts';
import {
  attempt,
  balanceOf,
  collection,
  createItems,
  itemId,
  job,
  nftWorld,
  nonceOf,
  NOW,
  params,
  paymentsIn,
  run,
} from './testing.ts';

const HOUR = 3_600;

/** An item of O's collection (sell fee 1.25 %) held by A, under `version`. */
function heldByA(version: 'v2.3' | 'current') {
  const w = nftWorld();
  const c = collection(w, version);
  createItems(w, c, version, [job(itemId('a'))]);
  const id = `${c}_${itemId('a')}`;
  run(w.world, mrc401TransferJob, [id, w.O, w.A, 's', nonceOf(w.world, w.O)], { version });
  return { w, c, id };
}

/** A CC-t auction of A's item: start 100, unit 10, buy-now 500, from now for 2 hours. */
function auctioned(fields: Record<string, unknown> = {}) {
  const { w, c, id } = heldByA('current');
  const data = JSON.stringify([
    {
      id,
      token: '0',
      auction_bidding_unit: '10',
      auction_start_price: '100',
      auction_buynow_price: '500',
      auction_start_date: 0,
      auction_end_date: NOW + 2 * HOUR,
      platform_name: 'Nova',
      platform_url: 'https://nova.devnet.example/',
      platform_address: w.P,
      platform_commission: '5',
      ...fields,
    },
  ]);
  const args = [w.A, data, 's', nonceOf(w.world, w.A)];
  return { w, c, id, args, fx: run(w.world, mrc401AuctionJob, args) };
}

const bid = (w: ReturnType<typeof nftWorld>, id: string, bidder: string, price: string) => [
  bidder,
  id,
  price,
  's',
  nonceOf(w.world, bidder),
];

describe('mrc401auction', () => {
  it('CC-m: rejects every call (it unmarshals an empty buffer into the collection)', () => {
    const { w, c, id } = heldByA('v2.3');
    const data = JSON.stringify([{ id, end: NOW + 2 * HOUR, token: '0', bidding: '10', start: '100', buynow: '0' }]);
    expect(() =>
      attempt(w.world, mrc401AuctionJob, [w.A, c, data, 's', nonceOf(w.world, w.A)], { version: 'v2.3' }),
    ).toThrow(`3004,MRC400 [${c}] is in the wrong data`);
  });

  it('CC-t: starts now by default, checks the platform and then clears it, and writes [id, seller, start, token, buyNow, unit, sig, nonce]', () => {
    const { w, id, args, fx } = auctioned({ auction_buynow_price: '' });
    const item = fx.record(id)!;
    expect(item).toMatchObject({
      auction_date: NOW,
      auction_end: NOW + 2 * HOUR,
      auction_token: '0',
      auction_start_price: '100',
      auction_buynow_price: '0',
      auction_bidding_unit: '10',
      auction_current_price: '0',
      auction_current_bidder: '',
      platform_address: '',
      platform_commission: '',
      last_worker: w.A,
    });
    expect(params(item)).toEqual([id, w.A, '100', '0', '0', '10', 's', args[3]]);
    expect(params(fx.wallet(w.A)!)).toEqual([args[1], w.A, 's', args[3]]);
    expect(w.world.mrc400.inAuction).toEqual([id]);
  });

  it('CC-t: ends a day after the start when no end is given, and refuses periods under an hour or starts in the past', () => {
    const { fx, id } = auctioned({ auction_end_date: 0, auction_start_date: NOW + 60 });
    expect(fx.record(id)).toMatchObject({ auction_date: NOW + 60, auction_end: NOW + 60 + 86_400 });
    expect(() => auctioned({ auction_end_date: NOW + HOUR - 1 })).toThrow('3005,Auction duration is at least 1 hour');
    expect(() => auctioned({ auction_start_date: NOW - 1 })).toThrow('3005,The auction start time is in the past');
    expect(() => auctioned({ auction_buynow_price: '99' })).toThrow(
      '3005,0th item buynow price is must be greater then auction start price',
    );
  });
});

describe('mrc401bid (CC-t)', () => {
  it('escrows a bid, refunds the previous one, and wants the current price plus the bidding unit', () => {
    const { w, id } = auctioned();
    const first = run(w.world, mrc401BidJob, bid(w, id, w.B, '100'));
    expect(paymentsIn(first.record(id)!, 2)!.map((p) => [p.type, p.from_addr, p.amount])).toEqual([
      ['mrc401_bid', w.B, '100'],
    ]);
    expect(() => attempt(w.world, mrc401BidJob, bid(w, id, w.O, '109'))).toThrow(
      '3004,The bid amount must be greater than the current bid amount plus the bid unit',
    );
    expect(() => attempt(w.world, mrc401BidJob, bid(w, id, w.A, '200'))).toThrow('3004,Owners cannot bid on auctions');
    const args = bid(w, id, w.O, '110');
    const second = run(w.world, mrc401BidJob, args);
    expect(params(second.wallet(w.B)!)).toEqual([id, w.B, '100', '0', 's', '0', '', id, args[4]]);
    expect(second.wallet(w.B)!.job_type).toBe('receive_mrc401refund');
    expect(params(second.wallet(w.O)!)).toEqual([w.O, id, '110', '0', 's', '0', '', id, args[4]]);
    const item = second.record(id)!;
    expect(item).toMatchObject({
      auction_current_price: '110',
      auction_current_bidder: w.O,
      job_type: 'mrc401_auctionbid',
    });
    expect(paymentsIn(item, 2)!.map((p) => p.type)).toEqual(['mrc401_recv_refund', 'mrc401_bid']);
    expect([balanceOf(w.world, w.B, 0), balanceOf(w.world, w.O, 0)]).toEqual(['1000000', '999890']);
  });

  it('settles at once at the buy-now price, the highest bidder paying only the difference in one write', () => {
    const { w, id } = auctioned();
    run(w.world, mrc401BidJob, bid(w, id, w.B, '100'));
    const fx = run(w.world, mrc401BidJob, bid(w, id, w.B, '500'));
    // The platform was cleared: of 500, O's 1.25 % fee is 6, A gets 494.
    expect(fx.wallet(w.B)).toMatchObject({ job_type: 'transfer_mrc401bid' });
    expect(params(fx.wallet(w.B)!)[2]).toBe('400');
    const item = fx.record(id)!;
    expect(item).toMatchObject({ owner: w.B, auction_date: 0, last_trade_amount: '500', last_trade_type: 'Auction' });
    expect(item['job_type']).toBe('mrc401_auctionbuynow');
    expect(paymentsIn(item)!.map((p) => [p.type, p.to_addr, p.amount])).toEqual([
      ['mrc401_recv_refund', w.B, '100'],
      ['mrc401_bid', id, '500'],
      ['mrc401_recv_fee_owner', w.O, '6'],
      ['mrc401_recv_auction', w.A, '494'],
    ]);
    expect([balanceOf(w.world, w.B, 0), balanceOf(w.world, w.A, 0)]).toEqual(['999500', '1000494']);
  });
});

describe('mrc401auctionfinish / mrc401unauction (CC-t)', () => {
  it('settles the winning bid once the end is reached, unsigned, and fails an auction without bids', () => {
    const { w, id } = auctioned();
    run(w.world, mrc401BidJob, bid(w, id, w.B, '200'));
    expect(() => attempt(w.world, mrc401AuctionFinishJob, [id], { now: NOW + 2 * HOUR - 1 })).toThrow(
      '3004,It cannot be closed while the auction is pending',
    );
    const fx = run(w.world, mrc401AuctionFinishJob, [id], { now: NOW + 2 * HOUR });
    // Of the escrowed 200: O's 1.25 % fee is floor(2.5) = 2, A gets 198; B is not written.
    expect(fx.keys).toEqual([id, w.A, w.O].sort());
    expect(params(fx.wallet(w.A)!)).toEqual([id, w.A, '198', '0', '', '0', '', id, '']);
    expect(fx.wallet(w.A)!.job_type).toBe('receive_mrc401auction');
    expect(fx.record(id)).toMatchObject({ owner: w.B, job_type: 'mrc401_auctionwinning', auction_current_bidder: '' });
    expect(params(fx.record(id)!).slice(0, 3)).toEqual([id, w.A, w.B]);

    const unsold = auctioned();
    const failed = run(unsold.w.world, mrc401AuctionFinishJob, [unsold.id], { now: NOW + 3 * HOUR });
    expect(failed.keys).toEqual([unsold.id]);
    expect(params(failed.record(unsold.id)!)).toEqual([unsold.id, unsold.w.A, '']);
    expect(failed.record(unsold.id)).toMatchObject({ owner: unsold.w.A, auction_date: 0, auction_token: '0' });
  });

  it('withdraws an auction nobody bid on, even after its end, but not once someone has bid', () => {
    const { w, id } = auctioned();
    const args = [w.A, JSON.stringify([id]), 's', nonceOf(w.world, w.A)];
    const fx = run(w.world, mrc401UnauctionJob, args, { now: NOW + 3 * HOUR });
    expect(fx.record(id)).toMatchObject({ auction_date: 0, job_type: 'mrc401_unauction', last_worker: w.A });
    expect(params(fx.wallet(w.A)!)).toEqual([JSON.stringify([id]), w.A, 's', args[3]]);

    const other = auctioned();
    run(other.w.world, mrc401BidJob, bid(other.w, other.id, other.w.B, '100'));
    expect(() =>
      attempt(other.w.world, mrc401UnauctionJob, [
        other.w.A,
        JSON.stringify([other.id]),
        's',
        nonceOf(other.w.world, other.w.A),
      ]),
    ).toThrow(`3004,MRC401 [${other.id}] there is a bidder, so the auction cannot be canceled`);
  });
});

describe('CC-m bids and finish (on an auction no CC-m call can open, set in the world by hand)', () => {
  /** A's item in auction in GLD (token 1): start 100, unit 10, buy-now 500, ending in an hour. */
  function oldAuction() {
    const { w, c, id } = heldByA('v2.3');
    const stored = w.world.get(id) as Mrc401Item;
    w.world.apply([
      {
        key: id,
        value: {
          ...stored,
          auction_date: NOW - 60,
          auction_end: NOW + HOUR,
          auction_token: '1',
          auction_bidding_unit: '10',
          auction_start_price: '100',
          auction_buynow_price: '500',
          auction_current_price: '0',
          auction_current_bidder: '',
        },
      },
    ]);
    return { w, c, id };
  }
  const oldBid = (w: ReturnType<typeof nftWorld>, id: string, bidder: string, price: string, token = '1') => [
    bidder,
    id,
    price,
    token,
    's',
    nonceOf(w.world, bidder),
  ];

  it('keeps the price as sent, wants whole bidding units above the previous price, and lists the bid before the refund', () => {
    const { w, id } = oldAuction();
    expect(() => attempt(w.world, mrc401BidJob, oldBid(w, id, w.B, '105'), { version: 'v2.3' })).toThrow(
      '3004,The bid amount must be greater than the current amount plus the bid units',
    );
    expect(() => attempt(w.world, mrc401BidJob, oldBid(w, id, w.B, '100', '0'), { version: 'v2.3' })).toThrow(
      '3004,Only 1 tokens can be bid',
    );
    run(w.world, mrc401BidJob, oldBid(w, id, w.O, '0110'), { version: 'v2.3' });
    expect(w.world.mrc400.item(id)!.auction_current_price).toBe('0110');
    const fx = run(w.world, mrc401BidJob, oldBid(w, id, w.B, '130'), { version: 'v2.3' });
    expect(paymentsIn(fx.record(id)!, 2)!.map((p) => [p.type, p.amount])).toEqual([
      ['mrc401_bid', '130'],
      ['mrc401_recv_refund', '0110'],
    ]);
    expect(params(fx.wallet(w.O)!)[2]).toBe('0110');
    expect(balanceOf(w.world, w.O, 1)).toBe('1000');
  });

  it('always fails a bid at the buy-now price', () => {
    const { w, id } = oldAuction();
    expect(() => attempt(w.world, mrc401BidJob, oldBid(w, id, w.B, '500'), { version: 'v2.3' })).toThrow(
      `6205,MRC400 [${id}] is in the wrong data`,
    );
  });

  it('settles with [id, winner, PaymentInfo, "", ""] and names the item\'s sell token ("0") in the payouts\' job_args', () => {
    const { w, id } = oldAuction();
    run(w.world, mrc401BidJob, oldBid(w, id, w.B, '200'), { version: 'v2.3' });
    const fx = run(w.world, mrc401AuctionFinishJob, [id], { version: 'v2.3', now: NOW + HOUR });
    // floor(200 × 1.25 / 100) = 2 GLD to O, 198 GLD to A; their job_args say token "0".
    expect(params(fx.wallet(w.O)!)).toEqual([w.B, w.O, '2', '0', '', '0', '', id, '']);
    expect(params(fx.wallet(w.A)!)).toEqual([w.B, w.A, '198', '0', '', '0', '', id, '']);
    expect([balanceOf(w.world, w.O, 1), balanceOf(w.world, w.A, 1)]).toEqual(['1002', '198']);
    const item = fx.record(id)!;
    expect(params(item)).toEqual([id, w.B, expect.any(String), '', '']);
    expect(paymentsIn(item, 2)!.map((p) => [p.type, p.token, p.amount])).toEqual([
      ['mrc401_recv_fee', '1', '2'],
      ['mrc401_recv_auction', '1', '198'],
    ]);
  });

  it('fails an auction without bids with [id, seller, "", "[]", "", ""]', () => {
    const { w, id } = oldAuction();
    const fx = run(w.world, mrc401AuctionFinishJob, [id], { version: 'v2.3', now: NOW + HOUR });
    expect(params(fx.record(id)!)).toEqual([id, w.A, '', '[]', '', '']);
  });
});
