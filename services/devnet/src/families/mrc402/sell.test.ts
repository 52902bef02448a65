import { describe, expect, it } from 'vitest';
import { mrc402CreateJob } from './create.ts';
import { mrc402BuyJob, mrc402SellJob, mrc402UnsellJob } from './sell.ts';
import { mrc402TransferJob } from './transfer.ts';
import { attempt, entry, generatedId, holding, NOW, nftWorld, nonceOf, params, paymentsIn, run } from './testing.ts';

const NOVA = ['Nova Market', 'https://nova-market.devnet.example/'] as const;

const DEX_FIELD_ORDER = [
  'dexid',
  'mrc402',
  'seller',
  'buyer',
  'amount',
  'remain_amount',
  'platform_name',
  'platform_url',
  'platform_address',
  'platform_commission',
  'regdate',
  'sell_date',
  'cancel_date',
  'sell_price',
  'sell_token',
  'auction_bid_count',
  'auction_start_date',
  'auction_end_date',
  'auction_settle_date',
  'auction_bidding_unit',
  'auction_start_price',
  'auction_buynow_price',
  'auction_current_price',
  'auction_current_bidder',
  'job_type',
  'job_args',
  'jobdate',
];

/**
 * C creates 100 units (creator commission 2.5 %, shareholders S1 1.5 % and S2 0.50 %) and gives H
 * 40; H lists 30 at 500 MTC base units each on Nova Market, whose fee address P takes 2 %.
 */
function listed() {
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
  const args = [w.H, '30', id, '500', '0', ...NOVA, w.P, '2', 'c2VsbA==', nonceOf(w.world, w.H)];
  const fx = run(w.world, mrc402SellJob, args);
  return { ...w, id, args, fx, dexid: generatedId('DEX402_', args) };
}

describe('mrc402sell', () => {
  it('writes the order in TMRC402DEX field order and moves the units from balance to saleamount', () => {
    const { world, H, P, id, args, fx, dexid } = listed();
    expect(fx.keys).toEqual([dexid, H].sort());
    const order = fx.order(dexid)!;
    expect(order).toEqual({
      dexid,
      mrc402: id,
      seller: H,
      buyer: '',
      amount: '30',
      remain_amount: '30',
      platform_name: 'Nova Market',
      platform_url: 'https://nova-market.devnet.example/',
      platform_address: P,
      platform_commission: '2',
      regdate: NOW,
      sell_date: 0,
      cancel_date: 0,
      sell_price: '500',
      sell_token: '0',
      auction_bid_count: 0,
      auction_start_date: 0,
      auction_end_date: 0,
      auction_settle_date: 0,
      auction_bidding_unit: '',
      auction_start_price: '',
      auction_buynow_price: '',
      auction_current_price: '',
      auction_current_bidder: '',
      job_type: 'mrc402_sell',
      job_args: JSON.stringify([dexid, ...args]),
      jobdate: NOW,
    });
    expect(Object.keys(order)).toEqual(DEX_FIELD_ORDER);
    expect(fx.wallet(H)).toMatchObject({
      mrc402: { [id]: holding('10', '30') },
      job_type: 'mrc402sell',
      job_args: JSON.stringify([dexid, ...args]),
    });
    expect(world.openDex402.sale).toEqual([dexid]);
  });

  it('refuses more units than the balance holds and an unknown pay token', () => {
    const { world, H, id, P } = listed();
    const sell = (amount: string, token: string) => () =>
      attempt(world, mrc402SellJob, [H, amount, id, '500', token, ...NOVA, P, '2', 's', nonceOf(world, H)]);
    expect(sell('11', '0')).toThrow('5000,Not enough balance');
    expect(sell('1', '9')).toThrow('4001,Token 9 not exists');
  });
});

describe('mrc402buy', () => {
  it('pays creator, platform and each shareholder floor(total × pct / 100), the seller the rest', () => {
    const { world, C, H, B, P, S1, S2, id, dexid } = listed();
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc402BuyJob, [dexid, B, '10', 'YnV5', nonce], NOW + 5);
    // 10 × 500 = 5,000: creator 2.5 % = 125, platform 2 % = 100, S1 1.5 % = 75, S2 0.50 % = 25,
    // seller 5,000 − 325 = 4,675.
    expect(fx.keys).toEqual([dexid, B, C, H, P, S1, S2].sort());
    const pay = (to: string, amount: string) => JSON.stringify([dexid, to, amount, '0', 'YnV5', '0', '', id, nonce]);
    expect(fx.wallet(B)).toMatchObject({
      balance: [entry(0, '995000')],
      mrc402: { [id]: holding('10') },
      job_type: 'transfer_mrc402buy',
      job_args: JSON.stringify([B, dexid, '5000', '0', 'YnV5', '0', '10', id, nonce]),
    });
    expect(fx.wallet(C)).toMatchObject({
      balance: [entry(0, '1000125'), entry(1, '10000')],
      job_type: 'receive_mrc402fee',
      job_args: pay(C, '125'),
    });
    expect(fx.wallet(P)).toMatchObject({
      balance: [entry(0, '100')],
      job_type: 'receive_mrc402fee',
      job_args: pay(P, '100'),
    });
    expect(fx.wallet(S1)).toMatchObject({
      balance: [entry(0, '75')],
      job_type: 'receive_mrc402fee',
      job_args: pay(S1, '75'),
    });
    expect(fx.wallet(S2)).toMatchObject({
      balance: [entry(0, '25')],
      job_type: 'receive_mrc402fee',
      job_args: pay(S2, '25'),
    });
    expect(fx.wallet(H)).toMatchObject({
      balance: [entry(0, '1004675')],
      mrc402: { [id]: holding('10', '20') },
      job_type: 'receive_mrc402sell',
      job_args: pay(H, '4675'),
    });
    const order = fx.order(dexid)!;
    expect(order).toMatchObject({
      buyer: B,
      remain_amount: '20',
      sell_date: 0,
      job_type: 'mrc402_buy',
      jobdate: NOW + 5,
    });
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
    expect(params(order)).toEqual([dexid, H, B, expect.any(String), id]);
    expect(paymentsIn(order)).toEqual([
      pi(B, dexid, '5000', '0', '', '', 'mrc402_buy'),
      pi(dexid, B, '', '', '10', id, 'mrc402_recv_item'),
      pi(dexid, C, '125', '0', '', '', 'mrc402_recv_fee_creator'),
      pi(dexid, P, '100', '0', '', '', 'mrc402_recv_fee_platform'),
      pi(dexid, S1, '75', '0', '', '', 'mrc402_recv_fee_shareholder'),
      pi(dexid, S2, '25', '0', '', '', 'mrc402_recv_fee_shareholder'),
      pi(dexid, H, '4675', '0', '', '', 'mrc402_recv_sell'),
    ]);
  });

  it('sums a seller’s creator and platform fees into one receive_mrc402sell write', () => {
    const { world, C, B, S1, S2, id } = listed();
    // C lists 10 of its own 60 at 100 each, as its own platform taking 10 %.
    const args = [
      C,
      '10',
      id,
      '100',
      '0',
      'Self Listing',
      'https://self.devnet.example/',
      C,
      '10',
      's',
      nonceOf(world, C),
    ];
    run(world, mrc402SellJob, args);
    const dexid = generatedId('DEX402_', args);
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc402BuyJob, [dexid, B, '10', 'YnV5', nonce]);
    // 1,000: creator 25 + platform 100 + seller 1,000 − 25 − 100 − 15 − 5 = 855, all C's: 980.
    expect(fx.keys).toEqual([dexid, B, C, S1, S2].sort());
    expect(fx.wallet(C)).toMatchObject({
      balance: [entry(0, '1000980'), entry(1, '10000')],
      mrc402: { [id]: holding('50', '0') },
      job_type: 'receive_mrc402sell',
      job_args: JSON.stringify([dexid, C, '980', '0', 'YnV5', '0', '', id, nonce]),
    });
    expect(fx.wallet(S1)!.balance).toEqual([entry(0, '15')]);
    expect(fx.wallet(S2)!.balance).toEqual([entry(0, '5')]);
    // Sold out: sell_date set, the order leaves the open list, the seller keeps an all-zero-escrow holding.
    expect(fx.order(dexid)).toMatchObject({ remain_amount: '0', sell_date: NOW });
    expect(world.openDex402.sale).not.toContain(dexid);
  });

  it('refuses the seller, more than remains, and a cancelled order', () => {
    const { world, H, B, dexid } = listed();
    expect(() => attempt(world, mrc402BuyJob, [dexid, H, '1', 's', nonceOf(world, H)])).toThrow(
      "3004,Seller is don't buy",
    );
    expect(() => attempt(world, mrc402BuyJob, [dexid, B, '31', 's', nonceOf(world, B)])).toThrow(
      '3004,The quantity available for purchase is 30 pieces.',
    );
    run(world, mrc402UnsellJob, [dexid, 's', nonceOf(world, H)]);
    expect(() => attempt(world, mrc402BuyJob, [dexid, B, '1', 's', nonceOf(world, B)])).toThrow(
      '3004,DEX Item is already canceled',
    );
  });
});

describe('mrc402unsell', () => {
  it('returns the unsold remainder from saleamount to balance and cancels the order', () => {
    const { world, H, B, id, dexid } = listed();
    run(world, mrc402BuyJob, [dexid, B, '10', 's', nonceOf(world, B)]);
    const nonce = nonceOf(world, H);
    const fx = run(world, mrc402UnsellJob, [dexid, 'dW5z', nonce], NOW + 9);
    const p = JSON.stringify([dexid, H, '20', id, '500', '0', 'dW5z', nonce]);
    expect(fx.keys).toEqual([dexid, H].sort());
    expect(fx.order(dexid)).toMatchObject({
      cancel_date: NOW + 9,
      remain_amount: '20',
      job_type: 'mrc402_unsell',
      job_args: p,
    });
    expect(fx.wallet(H)).toMatchObject({ mrc402: { [id]: holding('30', '0') }, job_type: 'mrc402unsell', job_args: p });
    expect(() => attempt(world, mrc402UnsellJob, [dexid, 's', nonceOf(world, H)])).toThrow(
      '3004,DEX Item is already canceled',
    );
  });
});
