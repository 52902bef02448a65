import { describe, expect, it } from 'vitest';
import { mrc010AuctionFinishJob, mrc010AuctionJob, mrc010BidJob, mrc010UnauctionJob } from './auction.ts';
import { mrc010SellJob } from './sell.ts';
import { attempt, dexWorld, entry, NOW, nonceOf, params, paymentsIn, run } from './testing.ts';

const DAY = 86_400;

/** A auctions 400 GLD for MTC: start 1000, bidding unit 100, buy-now 5000, platform P at 3 %. */
function auctioned(times: { start?: string; end?: string } = {}) {
  const w = dexWorld();
  const nonce = nonceOf(w.world, w.A);
  const args = [
    w.A,
    '400',
    '1',
    '1000',
    '0',
    '100',
    '5000',
    times.start ?? '',
    times.end ?? '',
    'Nova Market',
    'https://nova-market.devnet.example/',
    w.P,
    '3',
    'YXVj',
    nonce,
  ];
  const fx = run(w.world, mrc010AuctionJob, args);
  const id = w.world.openDex010.auction[0]!;
  return { ...w, args, fx, id, nonce };
}

const bid = (w: ReturnType<typeof auctioned>, who: string, price: string, now: number) =>
  run(w.world, mrc010BidJob, [w.id, who, price, 'Ymlk', nonceOf(w.world, who)], now);

describe('mrc010auction', () => {
  it('moves the amount to auctionamount and writes the auction with its default 1-day window', () => {
    const { A, P, args, fx, id, nonce } = auctioned();
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '0'), entry(1, '600', '', '400')]);
    const expected = JSON.stringify([id, ...args.slice(0, 13), nonce]);
    expect(fx.wallet(A)).toMatchObject({ job_type: 'mrc010auction', job_args: expected });
    expect(fx.order(id)).toEqual({
      dexid: id,
      mrc010: '1',
      seller: A,
      buyer: '',
      amount: '400',
      remain_amount: '',
      min_trade_unit: '',
      platform_name: 'Nova Market',
      platform_url: 'https://nova-market.devnet.example/',
      platform_address: P,
      platform_commission: '3',
      regdate: NOW,
      sell_date: 0,
      cancel_date: 0,
      sell_price: '',
      sell_token: '0',
      buy_price: '',
      buy_token: '',
      buy_price_total: '',
      auction_bid_count: 0,
      auction_start_date: NOW,
      auction_end_date: NOW + DAY,
      auction_settle_date: 0,
      auction_bidding_unit: '100',
      auction_start_price: '1000',
      auction_buynow_price: '5000',
      auction_current_price: '',
      auction_current_bidder: '',
      job_type: 'mrc010_auction',
      job_args: expected,
      jobdate: NOW,
    });
  });

  it('ends a day after a later start by default', () => {
    const { fx, id } = auctioned({ start: String(NOW + 7_200) });
    expect(fx.order(id)).toMatchObject({ auction_start_date: NOW + 7_200, auction_end_date: NOW + 7_200 + DAY });
  });

  it('enforces the time rules: start not past and within 21 days, end 1 h to 21 days from now', () => {
    const { world, A, P } = dexWorld();
    const call = (start: string, end: string, buyNow = '0') => [
      A,
      '10',
      '1',
      '1000',
      '0',
      '',
      buyNow,
      start,
      end,
      '',
      '',
      P,
      '1',
      's',
      nonceOf(world, A),
    ];
    expect(() => attempt(world, mrc010AuctionJob, call(String(NOW - 1), ''))).toThrow(/start time is in the past/);
    expect(() => attempt(world, mrc010AuctionJob, call(String(NOW + 1_814_401), ''))).toThrow(/within 7 days/);
    expect(() => attempt(world, mrc010AuctionJob, call('', String(NOW + 3_599)))).toThrow(/at least 1 hour/);
    expect(() => attempt(world, mrc010AuctionJob, call('', String(NOW + 1_814_401)))).toThrow(/up to 7 days/);
    expect(() => attempt(world, mrc010AuctionJob, call('', String(NOW + 3_600)))).not.toThrow();
    expect(() => attempt(world, mrc010AuctionJob, call('', String(NOW + 1_814_400)))).not.toThrow();
    expect(() => attempt(world, mrc010AuctionJob, call('', '', '1000'))).toThrow(/buynow is too small/);
    expect(() => attempt(world, mrc010AuctionJob, call('', '', ''))).toThrow(/convert/);
  });
});

describe('mrc010bid', () => {
  it('escrows the bid in the DEX, leaving the bidder’s balance', () => {
    const w = auctioned();
    const nonce = nonceOf(w.world, w.B);
    const fx = bid(w, w.B, '1000', NOW + 100);
    expect(fx.keys).toEqual([w.id, w.B].sort());
    expect(fx.wallet(w.B)!.balance).toEqual([entry(0, '999000')]);
    expect(fx.wallet(w.B)).toMatchObject({
      job_type: 'transfer_mrc010bid',
      job_args: JSON.stringify([w.B, w.id, '1000', '0', 'Ymlk', '0', '', '1', nonce]),
    });
    const order = fx.order(w.id)!;
    expect(order).toMatchObject({
      auction_current_price: '1000',
      auction_current_bidder: w.B,
      auction_bid_count: 1,
      buyer: '',
      min_trade_unit: '1',
      job_type: 'mrc010_auctionbid',
    });
    expect(params(order)).toEqual([
      w.id,
      w.A,
      w.B,
      JSON.stringify([
        {
          from_addr: w.B,
          to_addr: w.id,
          amount: '1000',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_bid',
        },
      ]),
      'Ymlk',
      nonce,
    ]);
  });

  it('refunds the previous bidder when outbid by at least the bidding unit', () => {
    const w = auctioned();
    bid(w, w.B, '1000', NOW + 100);
    expect(() => attempt(w.world, mrc010BidJob, [w.id, w.C, '1099', 's', nonceOf(w.world, w.C)], NOW + 101)).toThrow(
      /current bid amount plus the bid unit/,
    );
    const nonce = nonceOf(w.world, w.C);
    const fx = bid(w, w.C, '1100', NOW + 102);
    expect(fx.keys).toEqual([w.id, w.B, w.C].sort());
    expect(fx.wallet(w.B)!.balance).toEqual([entry(0, '1000000')]);
    expect(fx.wallet(w.B)).toMatchObject({
      job_type: 'receive_mrc010refund',
      job_args: JSON.stringify([w.id, w.B, '1000', '0', 'Ymlk', '0', '', '1', nonce]),
    });
    expect(fx.wallet(w.C)!.balance).toEqual([entry(0, '998900')]);
    expect(paymentsIn(fx.order(w.id)!)).toEqual([
      {
        from_addr: w.id,
        to_addr: w.B,
        amount: '1000',
        token: '0',
        trade_amount: '',
        trade_id: '',
        type: 'mrc010_recv_refund',
      },
      { from_addr: w.C, to_addr: w.id, amount: '1100', token: '0', trade_amount: '', trade_id: '', type: 'mrc010_bid' },
    ]);
  });

  it('settles at once when a bid equals the buy-now price', () => {
    const w = auctioned();
    bid(w, w.B, '1000', NOW + 100);
    const nonce = nonceOf(w.world, w.C);
    const fx = bid(w, w.C, '5000', NOW + 200);
    // fee floor(5000 × 3 / 100) = 150; seller 4850; B's 1000 refunded; C gets the 400 GLD.
    expect(fx.keys).toEqual([w.id, w.A, w.B, w.C, w.P].sort());
    expect(fx.wallet(w.C)!.balance).toEqual([entry(0, '995000'), entry(1, '400')]);
    expect(fx.wallet(w.C)).toMatchObject({
      job_type: 'transfer_mrc010bid',
      job_args: JSON.stringify([w.C, w.id, '5000', '0', 'Ymlk', '0', '400', '1', nonce]),
    });
    expect(fx.wallet(w.B)!.balance).toEqual([entry(0, '1000000')]);
    expect(fx.wallet(w.B)!.job_type).toBe('receive_mrc010refund');
    expect(fx.wallet(w.A)!.balance).toEqual([entry(0, '4850'), entry(1, '600', '', '0')]);
    expect(fx.wallet(w.A)!.job_type).toBe('receive_mrc010auction');
    expect(fx.wallet(w.P)!.balance).toEqual([entry(0, '150')]);
    expect(fx.order(w.id)).toMatchObject({
      job_type: 'mrc010_auctionbuynow',
      buyer: w.C,
      auction_current_price: '5000',
      auction_bid_count: 2,
      sell_date: NOW + 200,
      auction_settle_date: NOW + 200,
    });
    expect(w.world.openDex010.auction).toEqual([]);
  });

  it('lets the highest bidder buy now, paying only the difference in one write', () => {
    const w = auctioned();
    bid(w, w.B, '1000', NOW + 100);
    const fx = bid(w, w.B, '5000', NOW + 200);
    expect(fx.wallet(w.B)!.balance).toEqual([entry(0, '995000'), entry(1, '400')]);
    expect(fx.wallet(w.B)!.job_type).toBe('transfer_mrc010bid');
    expect(params(fx.wallet(w.B)!)[2]).toBe('4000');
  });

  it('rejects the seller, a bid below the start and one above buy-now', () => {
    const w = auctioned();
    const at = (who: string, price: string) => () =>
      attempt(w.world, mrc010BidJob, [w.id, who, price, 's', nonceOf(w.world, who)], NOW + 1);
    expect(at(w.A, '2000')).toThrow(/Seller is/);
    expect(at(w.B, '999')).toThrow(/starting price/);
    expect(at(w.B, '5001')).toThrow(/buynow price/);
  });
});

describe('mrc010auctionfinish', () => {
  it('pays the winner the tokens, the platform its fee and the seller the rest after the end', () => {
    const w = auctioned();
    bid(w, w.B, '1000', NOW + 100);
    bid(w, w.C, '1100', NOW + 102);
    expect(() => attempt(w.world, mrc010AuctionFinishJob, [w.id], NOW + DAY - 1)).toThrow(/pending/);
    const fx = run(w.world, mrc010AuctionFinishJob, [w.id], NOW + DAY);
    // fee floor(1100 × 3 / 100) = 33; seller 1067; C's bid was escrowed when it was placed.
    expect(fx.keys).toEqual([w.id, w.A, w.C, w.P].sort());
    expect(fx.wallet(w.C)!.balance).toEqual([entry(0, '998900'), entry(1, '400')]);
    expect(fx.wallet(w.C)).toMatchObject({
      job_type: 'receive_mrc010item',
      job_args: JSON.stringify([w.id, w.C, '0', '0', '', '0', '400', '1', '']),
    });
    expect(fx.wallet(w.A)!.balance).toEqual([entry(0, '1067'), entry(1, '600', '', '0')]);
    expect(fx.wallet(w.A)).toMatchObject({
      job_type: 'receive_mrc010auction',
      job_args: JSON.stringify([w.id, w.A, '1067', '0', '', '0', '', '1', '']),
    });
    expect(fx.wallet(w.P)).toMatchObject({
      job_type: 'receive_mrc010fee',
      job_args: JSON.stringify([w.id, w.P, '33', '0', '', '0', '', '1', '']),
    });
    const order = fx.order(w.id)!;
    expect(order).toMatchObject({
      job_type: 'mrc010_auctionwinning',
      buyer: w.C,
      sell_date: NOW + DAY,
      auction_settle_date: NOW + DAY,
    });
    expect(params(order)).toEqual([
      w.id,
      w.A,
      w.C,
      JSON.stringify([
        {
          from_addr: w.id,
          to_addr: w.C,
          amount: '',
          token: '',
          trade_amount: '400',
          trade_id: '1',
          type: 'mrc010_recv_item',
        },
        {
          from_addr: w.id,
          to_addr: w.P,
          amount: '33',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_recv_fee_platform',
        },
        {
          from_addr: w.id,
          to_addr: w.A,
          amount: '1067',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_recv_auction',
        },
      ]),
      '1',
    ]);
    expect(() => attempt(w.world, mrc010AuctionFinishJob, [w.id], NOW + DAY + 1)).toThrow(/already finished/);
  });

  it('returns the tokens without lowering auctionamount when nobody bid (chain quirk)', () => {
    const w = auctioned();
    const fx = run(w.world, mrc010AuctionFinishJob, [w.id], NOW + DAY + 5);
    expect(fx.keys).toEqual([w.id, w.A].sort());
    expect(fx.wallet(w.A)!.balance).toEqual([entry(0, '0'), entry(1, '1000', '', '400')]);
    const expected = JSON.stringify([w.id, w.A, '400', '1']);
    expect(fx.wallet(w.A)).toMatchObject({ job_type: 'mrc010auctionfailure', job_args: expected });
    expect(fx.order(w.id)).toMatchObject({
      job_type: 'mrc010_auctionfailure',
      job_args: expected,
      sell_date: 0,
      auction_settle_date: NOW + DAY + 5,
    });
  });
});

describe('mrc010unauction', () => {
  it('returns the tokens but lowers saleamount instead of auctionamount (chain quirk)', () => {
    const w = auctioned();
    const nonce = nonceOf(w.world, w.A);
    const fx = run(w.world, mrc010UnauctionJob, [w.id, 'dW5h', nonce], NOW + 50);
    expect(fx.wallet(w.A)!.balance).toEqual([entry(0, '0'), entry(1, '1000', '-400', '400')]);
    const expected = JSON.stringify([w.id, w.A, '400', '1', '', '0', 'dW5h', nonce]);
    expect(fx.wallet(w.A)).toMatchObject({ job_type: 'mrc010unauction', job_args: expected });
    expect(fx.order(w.id)).toMatchObject({ job_type: 'mrc010_unauction', job_args: expected, cancel_date: NOW + 50 });
    expect(w.world.openDex010.auction).toEqual([]);
  });

  it('leaves a negative saleamount that a later sale adds to', () => {
    const w = auctioned();
    run(w.world, mrc010UnauctionJob, [w.id, 's', nonceOf(w.world, w.A)], NOW + 50);
    const args = [w.A, '100', '1', '7', '0', '', '', '', '', '1', 's', nonceOf(w.world, w.A)];
    const fx = run(w.world, mrc010SellJob, args, NOW + 60);
    expect(fx.wallet(w.A)!.balance).toEqual([entry(0, '0'), entry(1, '900', '-300', '400')]);
  });

  it('is refused once somebody has bid', () => {
    const w = auctioned();
    bid(w, w.B, '1000', NOW + 10);
    expect(() => attempt(w.world, mrc010UnauctionJob, [w.id, 's', nonceOf(w.world, w.A)], NOW + 20)).toThrow(
      /there is a bidder/,
    );
  });
});
