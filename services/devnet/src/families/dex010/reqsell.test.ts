import { describe, expect, it } from 'vitest';
import { mrc010AcceptReqSellJob, mrc010ReqSellJob, mrc010UnreqSellJob } from './reqsell.ts';
import { attempt, dexWorld, entry, NOW, nonceOf, params, paymentsIn, run } from './testing.ts';

/** B asks for 500 GLD at 3 MTC base units each, on platform P at 1.5 % (or without a fee address). */
function requested(platform: 'P' | 'none' = 'P') {
  const w = dexWorld();
  const [address, commission] = platform === 'P' ? [w.P, '1.5'] : ['', '2'];
  const args = [w.B, '500', '1', '3', '0', 'Nova Market', '', address, commission, '1', 'cmVx', nonceOf(w.world, w.B)];
  const fx = run(w.world, mrc010ReqSellJob, args);
  const id = w.world.openDex010.reqsell[0]!;
  return { ...w, args, fx, id };
}

describe('mrc010reqsell', () => {
  it('escrows price total plus platform fee in the buyer’s pay-token saleamount', () => {
    const { B, P, args, fx, id } = requested();
    // 500 × 3 = 1500; fee floor(1500 × 1.5 / 100) = 22; escrow 1522.
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '998478', '1522')]);
    expect(fx.wallet(B)).toMatchObject({ job_type: 'mrc010reqsell', job_args: JSON.stringify([id, ...args]) });
    expect(fx.order(id)).toMatchObject({
      mrc010: '1',
      seller: '',
      buyer: B,
      amount: '500',
      remain_amount: '500',
      min_trade_unit: '1',
      platform_address: P,
      platform_commission: '1.5',
      sell_price: '',
      sell_token: '',
      buy_price: '3',
      buy_token: '0',
      buy_price_total: '1522',
      job_type: 'mrc010_reqsell',
    });
  });

  it('escrows the fee even when no platform address is given', () => {
    const { B, fx, id } = requested('none');
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '998470', '1530')]);
    expect(fx.order(id)).toMatchObject({ platform_address: '', platform_commission: '2', buy_price_total: '1530' });
  });
});

describe('mrc010acceptreqsell', () => {
  it('pays the seller from the escrow, the platform its fee, and hands the tokens to the buyer', () => {
    const { world, A, B, P, id } = requested();
    const nonce = nonceOf(world, A);
    const fx = run(world, mrc010AcceptReqSellJob, [id, A, '200', 'YWNj', nonce], NOW + 3);
    // 200 × 3 = 600 to A; fee floor(600 × 1.5 / 100) = 9 to P; escrow 1522 − 609 = 913.
    expect(fx.keys).toEqual([id, A, B, P].sort());
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '600'), entry(1, '800')]);
    expect(fx.wallet(A)).toMatchObject({
      job_type: 'transfer_mrc010sell',
      job_args: JSON.stringify([A, id, '600', '0', 'YWNj', '0', '200', '1', nonce]),
    });
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '998478', '913'), entry(1, '200')]);
    expect(fx.wallet(B)).toMatchObject({
      job_type: 'receive_mrc010buy',
      job_args: JSON.stringify([id, B, '0', '0', 'YWNj', '0', '200', '1', nonce]),
    });
    expect(fx.wallet(P)!.balance).toEqual([entry(0, '9')]);
    expect(fx.wallet(P)).toMatchObject({
      job_type: 'receive_mrc010fee',
      job_args: JSON.stringify([id, P, '9', '0', 'YWNj', '0', '0', '1', nonce]),
    });
    const order = fx.order(id)!;
    expect(order).toMatchObject({
      seller: A,
      remain_amount: '300',
      buy_price_total: '913',
      sell_date: 0,
      job_type: 'mrc010_acceptreqsell',
    });
    expect(params(order)).toEqual([
      id,
      B,
      A,
      JSON.stringify([
        { from_addr: A, to_addr: id, amount: '', token: '', trade_amount: '200', trade_id: '1', type: 'mrc010_sell' },
        {
          from_addr: id,
          to_addr: A,
          amount: '600',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_send_item',
        },
        {
          from_addr: id,
          to_addr: P,
          amount: '9',
          token: '0',
          trade_amount: '',
          trade_id: '',
          type: 'mrc010_recv_fee_platform',
        },
        {
          from_addr: id,
          to_addr: B,
          amount: '',
          token: '',
          trade_amount: '200',
          trade_id: '1',
          type: 'mrc010_recv_buy',
        },
      ]),
      '1',
    ]);
  });

  it('refunds the unspent fee to the buyer as mrc010_recv_fee_remain when the request fills', () => {
    const { world, A, B, id } = requested('none');
    const fx = run(world, mrc010AcceptReqSellJob, [id, A, '500', 's', nonceOf(world, A)], NOW + 3);
    // 1500 to A; no fee address, so the escrowed 30 goes back to B's balance.
    expect(fx.keys).toEqual([id, A, B].sort());
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '998500', '0'), entry(1, '500')]);
    expect(fx.wallet(B)!.job_type).toBe('receive_mrc010buy');
    expect(fx.wallet(A)!.balance).toEqual([entry(0, '1500'), entry(1, '500')]);
    const order = fx.order(id)!;
    expect(order).toMatchObject({ remain_amount: '0', buy_price_total: '0', sell_date: NOW + 3 });
    expect(paymentsIn(order).at(-1)).toEqual({
      from_addr: id,
      to_addr: B,
      amount: '30',
      token: '0',
      trade_amount: '',
      trade_id: '',
      type: 'mrc010_recv_fee_remain',
    });
    expect(world.openDex010.reqsell).toEqual([]);
  });

  it('rejects the buyer filling its own request and a seller short of the token', () => {
    const { world, B, C, id } = requested();
    expect(() => attempt(world, mrc010AcceptReqSellJob, [id, B, '1', 's', nonceOf(world, B)])).toThrow(/Buyer is/);
    expect(() => attempt(world, mrc010AcceptReqSellJob, [id, C, '1', 's', nonceOf(world, C)])).toThrow(/^5000,/);
  });
});

describe('mrc010unreqsell', () => {
  it('refunds what is left of buy_price_total from saleamount and cancels, leaving buy_price_total as it was', () => {
    const { world, A, B, id } = requested();
    run(world, mrc010AcceptReqSellJob, [id, A, '200', 's', nonceOf(world, A)], NOW + 3);
    const nonce = nonceOf(world, B);
    const fx = run(world, mrc010UnreqSellJob, [id, 'dW4=', nonce], NOW + 4);
    expect(fx.wallet(B)!.balance).toEqual([entry(0, '999391', '0'), entry(1, '200')]);
    const expected = JSON.stringify([id, B, '300', '1', '913', '0', 'dW4=', nonce]);
    expect(fx.wallet(B)).toMatchObject({ job_type: 'mrc010unreqsell', job_args: expected });
    expect(fx.order(id)).toMatchObject({
      job_type: 'mrc010_unreqsell',
      job_args: expected,
      cancel_date: NOW + 4,
      buy_price_total: '913',
    });
    expect(world.openDex010.reqsell).toEqual([]);
  });
});
