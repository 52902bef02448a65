import { describe, expect, it } from 'vitest';
import { mrc402AuctionFinishJob, mrc402AuctionJob, mrc402BidJob, mrc402UnauctionJob } from './auction.ts';
import { mrc402CreateJob } from './create.ts';
import { mrc402TransferJob } from './transfer.ts';
import { attempt, entry, generatedId, holding, NOW, nftWorld, nonceOf, params, paymentsIn, run } from './testing.ts';

const NOVA = ['Nova Market', 'https://nova-market.devnet.example/'] as const;
const DAY = 86_400;

/**
 * C creates 100 units (creator commission 2.5 %, shareholders S1 1.5 % and S2 0.50 %) and gives H
 * 40; H auctions 20 from 1,000 MTC base units, bidding unit 100, buy-now 5,000, start and end left
 * to the chaincode (now, now + 1 day), on Nova Market whose fee address P takes 2 %.
 */
function auctioned(start = '', end = '') {
  const w = nftWorld();
  const create = [
    w.C,
    'Gold Pass',
    '2.50',
    '100',
    '0',
    'https://nft.example/gold',
    'https://img.example/gold.png',
    JSON.stringify({ [w.S1]: '1.5', [w.S2]: '0.50' }),
    '',
    '0',
    '',
    '',
    '',
    '',
    '',
    '',
    'c2ln',
    nonceOf(w.world, w.C),
  ];
  run(w.world, mrc402CreateJob, create);
  const id = generatedId('MRC402_', create);
  run(w.world, mrc402TransferJob, [w.C, w.H, '40', id, '', '', 's', nonceOf(w.world, w.C)]);
  const args = [
    w.H,
    '20',
    id,
    '1000',
    '0',
    '100',
    '5000',
    start,
    end,
    ...NOVA,
    w.P,
    '2',
    'YXVj',
    nonceOf(w.world, w.H),
  ];
  const fx = run(w.world, mrc402AuctionJob, args);
  return { ...w, id, args, fx, dexid: generatedId('DEX402_', args) };
}

const pi = (
  from: string,
  to: string,
  amount: string,
  token: string,
  tradeAmount: string,
  tradeId: string,
  type: string,
) => ({
  from_addr: from,
  to_addr: to,
  amount,
  token,
  trade_amount: tradeAmount,
  trade_id: tradeId,
  type,
});

describe('mrc402auction', () => {
  it('writes the auction with its settled dates and prices, remain_amount "" and the units in auctionamount', () => {
    const { world, H, P, id, args, fx, dexid } = auctioned();
    const p = JSON.stringify([dexid, ...args.slice(0, 13), args[14]]);
    expect(fx.keys).toEqual([dexid, H].sort());
    expect(fx.order(dexid)).toEqual({
      dexid,
      mrc402: id,
      seller: H,
      buyer: '',
      amount: '20',
      remain_amount: '',
      platform_name: 'Nova Market',
      platform_url: 'https://nova-market.devnet.example/',
      platform_address: P,
      platform_commission: '2',
      regdate: NOW,
      sell_date: 0,
      cancel_date: 0,
      sell_price: '',
      sell_token: '0',
      auction_bid_count: 0,
      auction_start_date: NOW,
      auction_end_date: NOW + DAY,
      auction_settle_date: 0,
      auction_bidding_unit: '100',
      auction_start_price: '1000',
      auction_buynow_price: '5000',
      auction_current_price: '',
      auction_current_bidder: '',
      job_type: 'mrc402_auction',
      job_args: p,
      jobdate: NOW,
    });
    expect(fx.wallet(H)).toMatchObject({
      mrc402: { [id]: holding('20', '0', '20') },
      job_type: 'mrc402auction',
      job_args: p,
    });
    expect(world.openDex402.auction).toEqual([dexid]);
  });

  it('measures the duration from the start on the current chaincode and from now on v2.3 (CC-m)', () => {
    const { world, H, id, P } = nftWorldWith();
    const call = (start: number, end: number) => [
      H,
      '1',
      id,
      '1000',
      '0',
      '',
      '0',
      String(start),
      String(end),
      ...NOVA,
      P,
      '',
      's',
      nonceOf(world, H),
    ];
    // Starts in 2,000 s and lasts 1,700 s: under an hour from the start, over an hour from now.
    const short = call(NOW + 2_000, NOW + 3_700);
    expect(() => attempt(world, mrc402AuctionJob, short)).toThrow('3005,Auction duration is at least 1 hour');
    expect(() => attempt(world, mrc402AuctionJob, short, NOW, 'v2.3')).not.toThrow();
    // Starts in 20 days and lasts 2: within 21 days of the start, not of now.
    const late = call(NOW + 20 * DAY, NOW + 22 * DAY);
    expect(() => attempt(world, mrc402AuctionJob, late)).not.toThrow();
    expect(() => attempt(world, mrc402AuctionJob, late, NOW, 'v2.3')).toThrow(
      '3005,The auction period is up to 7 days',
    );
  });

  it('refuses an empty buy-now price and one not above the start price', () => {
    const { world, H, id, P } = nftWorldWith();
    const call = (buyNow: string) => () =>
      attempt(world, mrc402AuctionJob, [
        H,
        '1',
        id,
        '1000',
        '0',
        '',
        buyNow,
        '',
        '',
        ...NOVA,
        P,
        '',
        's',
        nonceOf(world, H),
      ]);
    expect(call('')).toThrow("can't convert  to decimal");
    expect(call('1000')).toThrow('3005,Auction buynow is too small');
    expect(call('0')).not.toThrow();
  });
});

describe('mrc402bid', () => {
  it('escrows a bid, refunds the one it beats, and writes the auction [dexid, seller, bidder, PaymentInfo, sig, nonce]', () => {
    const { world, H, B, R, id, dexid } = auctioned();
    const bNonce = nonceOf(world, B);
    const first = run(world, mrc402BidJob, [dexid, B, '1000', 'YmlkMQ==', bNonce], NOW + 10);
    expect(first.keys).toEqual([dexid, B].sort());
    expect(first.wallet(B)).toMatchObject({
      balance: [entry(0, '999000')],
      job_type: 'transfer_mrc402bid',
      job_args: JSON.stringify([B, dexid, '1000', '0', 'YmlkMQ==', '0', '', id, bNonce]),
    });
    expect(params(first.order(dexid)!)).toEqual([
      dexid,
      H,
      B,
      JSON.stringify([pi(B, dexid, '1000', '0', '', '', 'mrc402_bid')]),
      'YmlkMQ==',
      bNonce,
    ]);

    // R must beat 1,000 by the bidding unit of 100.
    expect(() => attempt(world, mrc402BidJob, [dexid, R, '1050', 's', nonceOf(world, R)], NOW + 20)).toThrow(
      '3004,The bid amount must be greater than the current bid amount plus the bid unit',
    );
    const rNonce = nonceOf(world, R);
    const second = run(world, mrc402BidJob, [dexid, R, '1100', 'YmlkMg==', rNonce], NOW + 20);
    expect(second.keys).toEqual([dexid, B, R].sort());
    expect(second.wallet(R)!.balance).toEqual([entry(0, '998900')]);
    expect(second.wallet(B)).toMatchObject({
      balance: [entry(0, '1000000')],
      job_type: 'receive_mrc402refund',
      job_args: JSON.stringify([dexid, B, '1000', '0', 'YmlkMg==', '0', '', id, rNonce]),
    });
    expect(second.order(dexid)).toMatchObject({
      auction_current_price: '1100',
      auction_current_bidder: R,
      auction_bid_count: 2,
      job_type: 'mrc402_auctionbid',
    });
    expect(paymentsIn(second.order(dexid)!)).toEqual([
      pi(dexid, B, '1000', '0', '', '', 'mrc402_recv_refund'),
      pi(R, dexid, '1100', '0', '', '', 'mrc402_bid'),
    ]);
    expect(() => attempt(world, mrc402BidJob, [dexid, R, '1300', 's', nonceOf(world, R)], NOW + 30)).toThrow(
      '3004,You are already the highest bidder',
    );
  });

  it('settles a buy-now bid of the current bidder at once: refund and bid summed into one transfer_mrc402bid', () => {
    const { world, C, H, B, P, S1, S2, id, dexid } = auctioned();
    run(world, mrc402BidJob, [dexid, B, '1200', 's', nonceOf(world, B)], NOW + 10);
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc402BidJob, [dexid, B, '5000', 'bm93', nonce], NOW + 20);
    // 5,000: creator 125, platform 100, S1 75, S2 25, seller 4,675; B gets its 1,200 back and pays 5,000.
    expect(fx.keys).toEqual([dexid, B, C, H, P, S1, S2].sort());
    expect(fx.wallet(B)).toMatchObject({
      balance: [entry(0, '995000')],
      mrc402: { [id]: holding('20') },
      job_type: 'transfer_mrc402bid',
      job_args: JSON.stringify([B, dexid, '3800', '0', 'bm93', '0', '20', id, nonce]),
    });
    expect(fx.wallet(H)).toMatchObject({
      balance: [entry(0, '1004675')],
      mrc402: { [id]: holding('20', '0', '0') },
      job_type: 'receive_mrc402auction',
    });
    expect(fx.wallet(C)!.balance).toEqual([entry(0, '1000125'), entry(1, '10000')]);
    const order = fx.order(dexid)!;
    expect(order).toMatchObject({
      job_type: 'mrc402_auctionbuynow',
      buyer: B,
      sell_date: NOW + 20,
      auction_settle_date: NOW + 20,
    });
    expect(paymentsIn(order).map((x) => [x.type, x.to_addr, x.amount || x.trade_amount])).toEqual([
      ['mrc402_recv_refund', B, '1200'],
      ['mrc402_bid', dexid, '5000'],
      ['mrc402_recv_item', B, '20'],
      ['mrc402_recv_fee_creator', C, '125'],
      ['mrc402_recv_fee_platform', P, '100'],
      ['mrc402_recv_fee_shareholder', S1, '75'],
      ['mrc402_recv_fee_shareholder', S2, '25'],
      ['mrc402_recv_auction', H, '4675'],
    ]);
  });
});

describe('mrc402auctionfinish', () => {
  it('pays out the escrowed winning bid after the end: fees floored, the seller the rest, the winner the units', () => {
    const { world, C, H, B, P, S1, S2, id, dexid } = auctioned();
    run(world, mrc402BidJob, [dexid, B, '1100', 's', nonceOf(world, B)], NOW + 10);
    expect(() => attempt(world, mrc402AuctionFinishJob, [dexid], NOW + DAY - 1)).toThrow(
      '3004,It cannot be closed while the auction is pending',
    );
    const fx = run(world, mrc402AuctionFinishJob, [dexid], NOW + DAY);
    // 1,100: creator floor(27.5) = 27, platform 22, S1 floor(16.5) = 16, S2 floor(5.5) = 5; seller 1,030.
    expect(fx.keys).toEqual([dexid, B, C, H, P, S1, S2].sort());
    expect(fx.wallet(B)).toMatchObject({
      balance: [entry(0, '998900')],
      mrc402: { [id]: holding('20') },
      job_type: 'receive_mrc402item',
      job_args: JSON.stringify([dexid, B, '0', '0', '', '0', '20', id, '']),
    });
    expect(fx.wallet(H)).toMatchObject({
      balance: [entry(0, '1001030')],
      mrc402: { [id]: holding('20', '0', '0') },
      job_type: 'receive_mrc402auction',
      job_args: JSON.stringify([dexid, H, '1030', '0', '', '0', '', id, '']),
    });
    expect([C, P, S1, S2].map((a) => fx.wallet(a)!.balance[0]!.balance)).toEqual(['1000027', '22', '16', '5']);
    expect(fx.order(dexid)).toMatchObject({
      job_type: 'mrc402_auctionwinning',
      buyer: B,
      sell_date: NOW + DAY,
      auction_settle_date: NOW + DAY,
    });
    expect(world.openDex402.auction).toEqual([]);
    expect(() => attempt(world, mrc402AuctionFinishJob, [dexid], NOW + DAY)).toThrow(
      '3004,DEX Item is already finished',
    );
  });

  it('returns an unbid auction’s units from auctionamount to the balance (no DEX010-style leftover)', () => {
    const { world, H, id, dexid } = auctioned();
    const fx = run(world, mrc402AuctionFinishJob, [dexid], NOW + DAY);
    const p = JSON.stringify([dexid, H, '20', id]);
    expect(fx.keys).toEqual([dexid, H].sort());
    expect(fx.wallet(H)).toMatchObject({
      mrc402: { [id]: holding('40', '0', '0') },
      job_type: 'mrc402auctionfailure',
      job_args: p,
    });
    expect(fx.order(dexid)).toMatchObject({
      job_type: 'mrc402_auctionfailure',
      job_args: p,
      auction_settle_date: NOW + DAY,
      sell_date: 0,
    });
  });
});

describe('mrc402unauction', () => {
  it('withdraws an auction nobody bid on and refuses one with a bidder', () => {
    const { world, H, id, dexid } = auctioned();
    const nonce = nonceOf(world, H);
    const fx = run(world, mrc402UnauctionJob, [dexid, 'dW4=', nonce], NOW + 5);
    const p = JSON.stringify([dexid, H, '20', id, '', '0', 'dW4=', nonce]);
    expect(fx.wallet(H)).toMatchObject({
      mrc402: { [id]: holding('40', '0', '0') },
      job_type: 'mrc402unauction',
      job_args: p,
    });
    expect(fx.order(dexid)).toMatchObject({ cancel_date: NOW + 5, job_type: 'mrc402_unauction', job_args: p });

    const other = auctioned();
    run(other.world, mrc402BidJob, [other.dexid, other.B, '1000', 's', nonceOf(other.world, other.B)], NOW + 10);
    expect(() =>
      attempt(other.world, mrc402UnauctionJob, [other.dexid, 's', nonceOf(other.world, other.H)], NOW + 20),
    ).toThrow('3004,DEX Item there is a bidder, so the auction cannot be canceled');
  });
});

/** A world where H still holds 20 spendable units (besides the 20 it auctions). */
function nftWorldWith() {
  const { world, H, P, id } = auctioned();
  return { world, H, P, id };
}
