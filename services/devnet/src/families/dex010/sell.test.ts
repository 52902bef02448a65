import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mrc010BuyJob, mrc010SellJob, mrc010UnsellJob } from './sell.ts';
import { attempt, dexWorld, entry, NOW, nonceOf, params, paymentsIn, run } from './testing.ts';

const NOVA = ['Nova Market', 'https://nova-market.devnet.example/'] as const;

/** A lists 300 GLD (token 1) at 7 MTC base units per 10 GLD units, platform P taking 2.5 %. */
function listed() {
  const w = dexWorld();
  const args = [w.A, '300', '1', '7', '0', ...NOVA, w.P, '2.50', '10', 'c2ln', nonceOf(w.world, w.A)];
  const fx = run(w.world, mrc010SellJob, args);
  const id = `DEX010_${createHash('md5').update(args.join('|')).digest('hex')}0`;
  return { ...w, args, fx, id };
}

describe('mrc010sell', () => {
  it('writes the order in TMRC010DEX field order and moves the amount from balance to saleamount', () => {
    const { world, A, P, args, fx, id } = listed();
    expect(fx.keys).toEqual([id, A].sort());
    const order = fx.order(id)!;
    expect(order).toEqual({
      dexid: id,
      mrc010: '1',
      seller: A,
      buyer: '',
      amount: '300',
      remain_amount: '300',
      min_trade_unit: '10',
      platform_name: 'Nova Market',
      platform_url: 'https://nova-market.devnet.example/',
      platform_address: P,
      platform_commission: '2.5',
      regdate: NOW,
      sell_date: 0,
      cancel_date: 0,
      sell_price: '7',
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
      job_type: 'mrc010_sell',
      job_args: JSON.stringify([id, ...args]),
      jobdate: NOW,
    });
    expect(Object.keys(order)).toEqual(FIELD_ORDER);
    const seller = fx.wallet(A)!;
    expect(seller.balance).toEqual([entry(0, '0'), entry(1, '700', '300')]);
    expect(seller).toMatchObject({ job_type: 'mrc010sell', job_args: JSON.stringify([id, ...args]) });
    expect(seller.nonce).not.toBe(args[11]);
    expect(world.openDex010.sell).toEqual([id]);
  });

  it('rejects a pay token equal to the token sold, an amount off the trade unit and a short balance', () => {
    const { world, A, P } = dexWorld();
    const sell = (amount: string, payToken: string, unit: string) => [
      A,
      amount,
      '1',
      '7',
      payToken,
      ...NOVA,
      P,
      '1',
      unit,
      'c2ln',
      nonceOf(world, A),
    ];
    expect(() => attempt(world, mrc010SellJob, sell('300', '1', '10'))).toThrow(/^3005,The sale token/);
    expect(() => attempt(world, mrc010SellJob, sell('305', '0', '10'))).toThrow(/^3005,The amount quantity/);
    expect(() => attempt(world, mrc010SellJob, sell('1001', '0', '1'))).toThrow(/^5000,/);
    expect(() => attempt(world, mrc010SellJob, sell('300', '0', '3'))).toThrow(/^3005,MinTradeUnit/);
  });
});

describe('mrc010buy', () => {
  it('pays price × amount / unit, the platform floor(2.5 %), the seller the rest, and lowers saleamount', () => {
    const { world, A, B, P, id } = listed();
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc010BuyJob, [id, B, '120', 'YnV5', nonce], NOW + 5);
    // 12 units of 10 at 7 = 84; fee floor(84 × 2.5 / 100) = 2; seller 82.
    expect(fx.keys).toEqual([id, A, B, P].sort());
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '999916'), entry(1, '120')]);
    expect(fx.wallet(B)).toMatchObject({
      job_type: 'transfer_mrc010buy',
      job_args: JSON.stringify([B, id, '84', '0', 'YnV5', '0', '120', '1', nonce]),
    });
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '82'), entry(1, '700', '180')]);
    expect(fx.wallet(A)).toMatchObject({
      job_type: 'receive_mrc010sell',
      job_args: JSON.stringify([id, A, '82', '0', 'YnV5', '0', '', '1', nonce]),
    });
    expect(fx.wallet(P)!.balance).toEqual([entry(0, '2')]);
    expect(fx.wallet(P)).toMatchObject({
      job_type: 'receive_mrc010fee',
      job_args: JSON.stringify([id, P, '2', '0', 'YnV5', '0', '', '1', nonce]),
    });
    const order = fx.order(id)!;
    expect(order).toMatchObject({
      remain_amount: '180',
      buyer: B,
      sell_date: 0,
      job_type: 'mrc010_buy',
      jobdate: NOW + 5,
    });
    expect(params(order)).toEqual([
      id,
      A,
      B,
      JSON.stringify([
        { from_addr: B, to_addr: id, amount: '84', token: '0', trade_amount: '', trade_id: '', type: 'mrc010_buy' },
        {
          from_addr: id,
          to_addr: B,
          amount: '',
          token: '',
          trade_amount: '120',
          trade_id: '1',
          type: 'mrc010_recv_item',
        },
        {
          from_addr: id,
          to_addr: P,
          amount: '2',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_recv_fee_platform',
        },
        {
          from_addr: id,
          to_addr: A,
          amount: '82',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_recv_sell',
        },
      ]),
      '1',
    ]);
  });

  it('sets sell_date and closes the order when the last units are bought', () => {
    const { world, A, B, C, P, id } = listed();
    run(world, mrc010BuyJob, [id, B, '120', 's', nonceOf(world, B)], NOW + 5);
    const fx = run(world, mrc010BuyJob, [id, C, '180', 's', nonceOf(world, C)], NOW + 9);
    // 18 units at 7 = 126; fee floor(3.15) = 3; seller 123.
    expect(fx.order(id)).toMatchObject({ remain_amount: '0', buyer: C, sell_date: NOW + 9 });
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '205'), entry(1, '700', '0')]);
    expect(fx.wallet(C)!.balance).toEqual([entry(0, '999874'), entry(1, '180')]);
    expect(fx.wallet(P)!.balance).toEqual([entry(0, '5')]);
    expect(world.openDex010.sell).toEqual([]);
    expect(() => attempt(world, mrc010UnsellJob, [id, 's', nonceOf(world, A)], NOW + 10)).toThrow(/already traded/);
  });

  it('sums seller and platform payouts into one receive_mrc010sell write when the seller is the platform', () => {
    const { world, A, B } = dexWorld();
    const args = [A, '50', '1', '3', '0', 'Self', 'https://self.example/', A, '10', '', 's', nonceOf(world, A)];
    run(world, mrc010SellJob, args);
    const id = world.openDex010.sell[0]!;
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc010BuyJob, [id, B, '50', 's', nonce], NOW + 1);
    // 50 at 3 = 150; fee 15 and the rest 135 both go to A: one write of 150.
    expect(fx.keys).toEqual([id, A, B].sort());
    expect(fx.wallet(A)).toMatchObject({
      job_type: 'receive_mrc010sell',
      job_args: JSON.stringify([id, A, '150', '0', 's', '0', '', '1', nonce]),
    });
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '150'), entry(1, '950', '0')]);
    expect(paymentsIn(fx.order(id)!).map((p) => p.type)).toEqual([
      'mrc010_buy',
      'mrc010_recv_item',
      'mrc010_recv_fee_platform',
      'mrc010_recv_sell',
    ]);
  });

  it('rejects the seller buying and an amount above what remains', () => {
    const { world, A, B, id } = listed();
    expect(() => attempt(world, mrc010BuyJob, [id, A, '10', 's', nonceOf(world, A)])).toThrow(/Cross-trading/);
    expect(() => attempt(world, mrc010BuyJob, [id, B, '310', 's', nonceOf(world, B)])).toThrow(/is 300 pieces/);
    expect(() => attempt(world, mrc010BuyJob, [id, B, '15', 's', nonceOf(world, B)])).toThrow(/multiple of 10/);
  });
});

describe('mrc010unsell', () => {
  it('returns the unsold remainder from saleamount to the balance and cancels the order', () => {
    const { world, A, B, id } = listed();
    run(world, mrc010BuyJob, [id, B, '120', 's', nonceOf(world, B)], NOW + 5);
    const nonce = nonceOf(world, A);
    const fx = run(world, mrc010UnsellJob, [id, 'dW5z', nonce], NOW + 7);
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '82'), entry(1, '880', '0')]);
    const expected = JSON.stringify([id, A, '180', '1', '7', '0', 'dW5z', nonce]);
    expect(fx.wallet(A)).toMatchObject({ job_type: 'mrc010unsell', job_args: expected });
    expect(fx.order(id)).toMatchObject({ job_type: 'mrc010_unsell', job_args: expected, cancel_date: NOW + 7 });
    expect(world.openDex010.sell).toEqual([]);
  });
});

const FIELD_ORDER = [
  'dexid',
  'mrc010',
  'seller',
  'buyer',
  'amount',
  'remain_amount',
  'min_trade_unit',
  'platform_name',
  'platform_url',
  'platform_address',
  'platform_commission',
  'regdate',
  'sell_date',
  'cancel_date',
  'sell_price',
  'sell_token',
  'buy_price',
  'buy_token',
  'buy_price_total',
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
