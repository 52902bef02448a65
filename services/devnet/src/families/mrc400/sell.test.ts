import { describe, expect, it } from 'vitest';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc401BuyJob, mrc401SellJob, mrc401UnsellJob } from './sell.ts';
import { mrc401TransferJob } from './transfer.ts';
import {
  address,
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

/**
 * An item of O's collection (melting fee 10 %, sell fee 2 %, CC-t shareholder S at 3 %), moved to
 * `holder` unless that is O, created and moved under `version`.
 */
function held(version: ChaincodeVersion, holder: 'O' | 'A', fields: Record<string, unknown> = {}, partner = {}) {
  const w = nftWorld();
  const c = collection(w, version, partner);
  const share = version === 'current' ? { shareholder: { [w.S]: '3' } } : {};
  createItems(w, c, version, [job(itemId('a'), { melting_fee: '10', sell_fee: '2', ...share, ...fields })]);
  const id = `${c}_${itemId('a')}`;
  if (holder === 'A') run(w.world, mrc401TransferJob, [id, w.O, w.A, 's', nonceOf(w.world, w.O)], { version });
  return { w, c, id };
}

function sell(version: ChaincodeVersion, w: ReturnType<typeof nftWorld>, c: string, seller: string, list: object[]) {
  const data = JSON.stringify(list);
  const nonce = nonceOf(w.world, seller);
  return version === 'v2.3' ? [seller, c, data, 's', nonce] : [seller, data, 's', nonce];
}

describe('mrc401sell', () => {
  it('CC-m: lists the item at its normalised price, job_args keeping the price as sent', () => {
    const { w, c, id } = held('v2.3', 'A');
    const args = sell('v2.3', w, c, w.A, [{ id, amount: '01000', token: '0' }]);
    const fx = run(w.world, mrc401SellJob, args, { version: 'v2.3' });
    expect(fx.record(id)).toMatchObject({
      sell_date: NOW,
      sell_price: '1000',
      sell_token: '0',
      job_type: 'mrc401_sell',
    });
    expect(params(fx.record(id)!)).toEqual([id, w.A, '01000', '0', 's', args[4]]);
    expect(params(fx.wallet(w.A)!)).toEqual([JSON.stringify([{ id, amount: '01000', token: '0' }]), w.A, 's', args[4]]);
    expect(w.world.mrc400.onSale).toEqual([id]);
    expect(w.world.mrc400.idle).toEqual([]);
  });

  it('refuses a Bound item its MRC-400 owner no longer holds, and (CC-m) an item of another collection', () => {
    const { w, c, id } = held('v2.3', 'A', { transferable: 'Bound' });
    expect(() =>
      attempt(w.world, mrc401SellJob, sell('v2.3', w, c, w.A, [{ id, amount: '5', token: '0' }]), { version: 'v2.3' }),
    ).toThrow(`5002,MRC401 [${id}] is cannot be sold`);
    const other = collection(w, 'v2.3');
    expect(() =>
      attempt(w.world, mrc401SellJob, sell('v2.3', w, other, w.A, [{ id, amount: '5', token: '0' }]), {
        version: 'v2.3',
      }),
    ).toThrow(`3004,MRC401 [${id}] is not MRC400 ${other} item`);
  });

  it("CC-t: lets a partner with role seller list the MRC-400 owner's item, and only that partner withdraw it", () => {
    const { w, id } = held('current', 'O', {}, { [address('partner')]: 'seller', [address('alice')]: 'seller' });
    const platform = {
      platform_name: 'Nova',
      platform_url: 'https://nova.devnet.example/',
      platform_address: w.P,
      platform_commission: '1.50',
    };
    const fx = run(
      w.world,
      mrc401SellJob,
      sell('current', w, '', w.R, [{ id, amount: '70', token: '0', ...platform }]),
    );
    expect(fx.record(id)).toMatchObject({
      owner: w.O,
      last_worker: w.R,
      platform_address: w.P,
      platform_commission: '1.5',
    });
    expect(fx.keys).toEqual([id, w.R].sort());
    const unsell = (by: string) => [by, JSON.stringify([id]), 's', nonceOf(w.world, by)];
    expect(() => attempt(w.world, mrc401UnsellJob, unsell(w.A))).toThrow(
      `3007,MRC401 [${id}] unsell or unauction is only available to last worker`,
    );
    const back = run(w.world, mrc401UnsellJob, unsell(w.R)).record(id)!;
    expect(back).toMatchObject({
      sell_date: 0,
      sell_price: '0',
      sell_token: '0',
      platform_address: '',
      last_worker: w.R,
    });
    expect(params(back)).toEqual([id, w.R, 's', expect.any(String)]);
  });
});

describe('mrc401buy', () => {
  it("CC-m: pays the MRC-400 owner the item's melting-fee rate (not its sell fee) and the seller the rest", () => {
    const { w, c, id } = held('v2.3', 'A');
    run(w.world, mrc401SellJob, sell('v2.3', w, c, w.A, [{ id, amount: '1000', token: '0' }]), { version: 'v2.3' });
    const args = [w.B, id, 's', nonceOf(w.world, w.B)];
    const fx = run(w.world, mrc401BuyJob, args, { version: 'v2.3' });
    // floor(1,000 × 10 / 100) = 100 to O; A gets 900 (the 2 % sell fee plays no part).
    expect(params(fx.wallet(w.B)!)).toEqual([w.B, id, '1000', '0', 's', '0', '', id, args[3]]);
    expect(params(fx.wallet(w.O)!)).toEqual([w.A, w.O, '100', '0', 's', '0', '', id, args[3]]);
    expect(params(fx.wallet(w.A)!)).toEqual([w.B, w.A, '900', '0', 's', '0', '', id, args[3]]);
    expect([fx.wallet(w.O)!.job_type, fx.wallet(w.A)!.job_type]).toEqual(['receive_mrc401fee', 'receive_mrc401sell']);
    const item = fx.record(id)!;
    expect(item).toMatchObject({ owner: w.B, sell_date: 0, last_trade_amount: '1000', last_trade_type: 'Sell' });
    expect(params(item)).toEqual([id, w.A, w.B, expect.any(String), 's', args[3]]);
    expect(paymentsIn(item)!.map((p) => [p.type, p.to_addr, p.amount])).toEqual([
      ['mrc401_buy', id, '1000'],
      ['mrc401_recv_fee', w.O, '100'],
      ['mrc401_recv_sell', w.A, '900'],
    ]);
    expect([balanceOf(w.world, w.B, 0), balanceOf(w.world, w.A, 0)]).toEqual(['999000', '1000900']);
  });

  it('CC-m: a buyer who is the MRC-400 owner keeps its fee in its one write', () => {
    const { w, c, id } = held('v2.3', 'A');
    run(w.world, mrc401SellJob, sell('v2.3', w, c, w.A, [{ id, amount: '1000', token: '0' }]), { version: 'v2.3' });
    const fx = run(w.world, mrc401BuyJob, [w.O, id, 's', nonceOf(w.world, w.O)], { version: 'v2.3' });
    expect(fx.keys).toEqual([id, w.A, w.O].sort());
    expect(fx.wallet(w.O)!.job_type).toBe('transfer_mrc401buy');
    // O pays 1,000 and keeps its 100 fee: 1,000,000 − 900.
    expect(balanceOf(w.world, w.O, 0)).toBe('999100');
  });

  it('CC-t: pays the sell fee to the MRC-400 owner, the platform and the shareholders their commission, the seller the rest', () => {
    const { w, id } = held('current', 'A');
    const platform = { platform_name: 'Nova', platform_url: '', platform_address: w.P, platform_commission: '1.5' };
    run(w.world, mrc401SellJob, sell('current', w, '', w.A, [{ id, amount: '1000', token: '0', ...platform }]));
    const args = [w.B, id, 's', nonceOf(w.world, w.B)];
    const fx = run(w.world, mrc401BuyJob, args);
    // 1,000: sell fee 2 % → 20 to O, platform 1.5 % → 15, shareholder 3 % → 30, A gets 935.
    expect(paymentsIn(fx.record(id)!)!.map((p) => [p.type, p.to_addr, p.amount])).toEqual([
      ['mrc401_buy', id, '1000'],
      ['mrc401_recv_fee_owner', w.O, '20'],
      ['mrc401_recv_fee_platform', w.P, '15'],
      ['mrc401_recv_fee_shareholder', w.S, '30'],
      ['mrc401_recv_sell', w.A, '935'],
    ]);
    expect(params(fx.record(id)!)).toHaveLength(4);
    expect(params(fx.wallet(w.A)!)).toEqual([id, w.A, '935', '0', 's', '0', '', id, args[3]]);
    expect(params(fx.wallet(w.O)!)).toEqual([id, w.O, '20', '0', 's', '0', '', id, args[3]]);
    expect([w.B, w.O, w.P, w.S, w.A].map((k) => balanceOf(w.world, k, 0))).toEqual([
      '999000',
      '1000020',
      '15',
      '30',
      '1000935',
    ]);
    // The platform stays on the item after the sale.
    expect(fx.record(id)).toMatchObject({ owner: w.B, platform_address: w.P, last_worker: w.A });
  });

  it('CC-t: a first-hand sale pays the MRC-400 owner its fee and the price in one receive_mrc401sell write', () => {
    const { w, id } = held('current', 'O', { shareholder: {} });
    run(w.world, mrc401SellJob, sell('current', w, '', w.O, [{ id, amount: '1000', token: '0' }]));
    const fx = run(w.world, mrc401BuyJob, [w.B, id, 's', nonceOf(w.world, w.B)]);
    expect(fx.wallet(w.O)!.job_type).toBe('receive_mrc401sell');
    expect(params(fx.wallet(w.O)!)[2]).toBe('1000');
    expect(() => attempt(w.world, mrc401BuyJob, [w.A, id, 's', nonceOf(w.world, w.A)])).toThrow(
      `3004,MRC401 [${id}] is not for sale`,
    );
  });
});
