import { describe, expect, it } from 'vitest';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc401CreateJob, mrc401CreateTradeJob, mrc401UpdateJob } from './create.ts';
import { mrc401SellJob } from './sell.ts';
import { mrc401MeltJob } from './transfer.ts';
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
  SITE,
} from './testing.ts';

const CCM_ITEM_FIELDS = [
  'id', 'mrc400', 'owner', 'item_url', 'item_image_url', 'groupid', 'createdate', 'initial_reserve', 'initial_token',
  'melting_fee', 'melting_date', 'transferable', 'sell_date', 'sell_fee', 'sell_price', 'sell_token', 'job_type',
  'job_args', 'jobdate', 'auction_date', 'auction_end', 'auction_token', 'auction_bidding_unit', 'auction_start_price',
  'auction_buynow_price', 'auction_current_price', 'auction_current_bidder', 'last_trade_date', 'last_trade_amount',
  'last_trade_token', 'last_trade_type',
]; // prettier-ignore
const CCT_ITEM_FIELDS = [
  ...CCM_ITEM_FIELDS.slice(0, 3), 'creator', ...CCM_ITEM_FIELDS.slice(3), 'last_worker', 'shareholder',
  'platform_name', 'platform_url', 'platform_address', 'platform_commission',
]; // prettier-ignore

type World = ReturnType<typeof nftWorld>;

describe('mrc401create', () => {
  it('CC-m: writes each item in 0e78fc1 field order with an empty id, owned by the MRC-400 owner, and takes the reserves from it', () => {
    const w = nftWorld();
    const c = collection(w, 'v2.3');
    const [a, b] = [itemId('a'), itemId('b')];
    const { args, fx } = createItems(w, c, 'v2.3', [
      job(a, { initial_reserve: '100', melting_fee: '2.50' }),
      job(b, { initial_reserve: '50', transferable: 'Temprary' }),
    ]);
    expect(fx.keys).toEqual([`${c}_${a}`, `${c}_${b}`, w.O].sort());
    const item = fx.record(`${c}_${a}`)!;
    expect(Object.keys(item)).toEqual(CCM_ITEM_FIELDS);
    expect(item).toMatchObject({
      id: '',
      mrc400: c,
      owner: w.O,
      initial_reserve: '100',
      melting_fee: '2.5',
      transferable: 'Permanent',
      auction_current_bidder: '0',
      job_type: 'mrc401_create',
      createdate: NOW,
    });
    expect(params(item)).toEqual([`${c}_${a}`, w.O, '100', '0', 'c2ln', args[3]]);
    expect(fx.record(`${c}_${b}`)).toMatchObject({ transferable: 'Temprary', initial_reserve: '50' });
    const owner = fx.wallet(w.O)!;
    expect(owner.job_type).toBe('mrc401create');
    expect(params(owner)).toEqual([c, w.O, JSON.stringify([
      { id: a, amount: '100', token: '0' },
      { id: b, amount: '50', token: '0' },
    ]), 'c2ln', args[3]]); // prettier-ignore
    // 1,000,000 − (100 + 50) locked in the items.
    expect(balanceOf(w.world, w.O, 0)).toBe('999850');
    expect(w.world.mrc400.itemsOf(c)).toEqual([`${c}_${a}`, `${c}_${b}`]);
    expect(w.world.mrc400.item(`${c}_${a}`)!.id).toBe(`${c}_${a}`);
  });

  it('CC-m: refuses "Temporary" (it spells "Temprary") and a token other than allow_token or MTC, counting items from 0th', () => {
    const w = nftWorld();
    const c = collection(w, 'v2.3');
    const create = (jobs: object[]) => () =>
      attempt(w.world, mrc401CreateJob, [c, JSON.stringify(jobs), 'c2ln', nonceOf(w.world, w.O)], { version: 'v2.3' });
    expect(create([job(itemId('a'), { transferable: 'Temporary' })])).toThrow(
      '3005,0th item Transferable value is Permanent, Bound, Temprary ',
    );
    expect(create([job(itemId('a')), job(itemId('b'), { initial_token: '1' })])).toThrow(
      '3005,1st item Token is must 0',
    );
    expect(create([job(itemId('a')), job(itemId('a'))])).toThrow(`3004,MRC401 [${itemId('a')}] is duplicate`);
    expect(create([job('short')])).toThrow('3005,0th item ItemID error : not valid data - short');
    expect(create([])).toThrow('3002,There is no item information');
  });

  it('CC-t: lets a partner with role creator create items it is recorded as creator of, paying their reserve', () => {
    const w = nftWorld();
    const c = collection(w, 'current', { [w.R]: 'creator', [w.A]: 'seller' });
    const a = itemId('a');
    const { fx } = createItems(w, c, 'current', [job(a, { initial_reserve: '200', transferable: 'Temporary' })], w.R);
    const item = fx.record(`${c}_${a}`)!;
    expect(Object.keys(item)).toEqual(CCT_ITEM_FIELDS);
    expect(item).toMatchObject({ id: `${c}_${a}`, owner: w.O, creator: w.R, shareholder: null, last_worker: '' });
    expect(params(item)).toEqual([`${c}_${a}`, w.R, '200', '0', 'c2ln', expect.any(String)]);
    expect(JSON.parse(params(fx.wallet(w.R)!)[2]!)).toEqual([
      {
        id: a,
        amount: '200',
        token: '0',
        platform_name: '',
        platform_url: '',
        platform_address: '',
        platform_commission: '',
      },
    ]);
    expect(balanceOf(w.world, w.R, 0)).toBe('300');
    const data = JSON.stringify([job(itemId('b'))]);
    expect(() => attempt(w.world, mrc401CreateJob, [c, w.A, data, 'c2ln', nonceOf(w.world, w.A)])).toThrow(
      '3007,MRC401 creation is only available to MRC400 partner or creator',
    );
    expect(() => attempt(w.world, mrc401CreateJob, [c, w.B, data, 'c2ln', nonceOf(w.world, w.B)])).toThrow(
      '3007,MRC401 operation is only available to MRC400 partner',
    );
  });

  it("CC-t: gives an item with shareholders the first item's shareholders (a shadowed loop index), naming it 0th", () => {
    const w = nftWorld();
    const c = collection(w, 'current');
    const [a, b, d, e] = [itemId('a'), itemId('b'), itemId('d'), itemId('e')];
    const { fx } = createItems(w, c, 'current', [job(a), job(b, { shareholder: { [w.S]: '5' } })]);
    expect(fx.record(`${c}_${b}`)!['shareholder']).toBeNull();
    const second = createItems(w, c, 'current', [
      job(d, { shareholder: { [w.S]: '5' } }),
      job(e, { shareholder: { [w.A]: '2' } }),
    ]);
    expect(second.fx.record(`${c}_${e}`)!['shareholder']).toEqual({ [w.S]: '5' });
    const bad = JSON.stringify([job(itemId('f'), { shareholder: { [w.O]: '1' } })]);
    expect(() => attempt(w.world, mrc401CreateJob, [c, w.O, bad, 'c2ln', nonceOf(w.world, w.O)])).toThrow(
      "3005,0th item shareholder The owner's address and the copyright holder's address are the same",
    );
  });
});

describe('mrc401createtrade', () => {
  /**
   * Partner R (role seller) creates an item with a 100 MTC reserve, sell fee 2.5 %, shareholder S
   * at 3 %, and sells it at once to A for 1,000 MTC on platform P at 1.5 %.
   */
  function createTrade(reserve = '100') {
    const w = nftWorld();
    const c = collection(w, 'current', { [w.R]: 'seller' });
    const id = `${c}_${itemId('t')}`;
    const item = job(itemId('t'), { initial_reserve: reserve, sell_fee: '2.5', shareholder: { [w.S]: '3' } });
    const args = [
      c, w.R, JSON.stringify(item), w.A, '1000', '0', 'Nova Market', 'https://nova.devnet.example/', w.P, '1.50',
      'c2lnUg==', nonceOf(w.world, w.R), 'c2lnQQ==', nonceOf(w.world, w.A),
    ]; // prettier-ignore
    return { w, c, id, args, fx: run(w.world, mrc401CreateTradeJob, args) };
  }

  it('settles fees of floor(price × rate / 100) each and gives the seller (the MRC-400 owner) the rest, in one write per wallet', () => {
    const { w, id, args, fx } = createTrade();
    // Fees of 1,000: owner 2.5 % → 25, platform 1.5 % → 15, shareholder 3 % → 30; the seller O
    // gets 1,000 − 70 = 930, summed with its own fee into one write of 955.
    const sig = args[10];
    const nonce = args[11];
    expect(fx.keys).toEqual([id, w.A, w.O, w.P, w.R, w.S].sort());
    expect(fx.wallet(w.A)).toMatchObject({ job_type: 'transfer_mrc401createtrade' });
    expect(params(fx.wallet(w.A)!)).toEqual([w.A, id, '1000', '0', sig, '0', '', id, nonce]);
    expect(params(fx.wallet(w.O)!)).toEqual([id, w.O, '955', '0', sig, '0', '', id, nonce]);
    expect(fx.wallet(w.O)!.job_type).toBe('receive_mrc401sell');
    expect(params(fx.wallet(w.P)!)).toEqual([id, w.P, '15', '0', sig, '0', '', id, nonce]);
    expect(params(fx.wallet(w.S)!)).toEqual([id, w.S, '30', '0', sig, '0', '', id, nonce]);
    expect(fx.wallet(w.S)!.job_type).toBe('receive_mrc401fee');
    // The creator paid the reserve: its write is named mrc401createtrade, [item, creator, "0", …].
    expect(fx.wallet(w.R)!.job_type).toBe('mrc401createtrade');
    expect(params(fx.wallet(w.R)!)).toEqual([id, w.R, '0', '0', sig, '0', '', id, nonce]);
    expect([w.A, w.O, w.P, w.R, w.S].map((k) => balanceOf(w.world, k, 0))).toEqual([
      '999000',
      '1000955',
      '15',
      '400',
      '30',
    ]);
    const item = fx.record(id)!;
    expect(item).toMatchObject({
      owner: w.A,
      creator: w.R,
      last_worker: w.R,
      sell_date: 0,
      sell_price: '0',
      sell_token: '0',
      initial_reserve: '100',
      last_trade_date: NOW,
      last_trade_amount: '1000',
      last_trade_token: '0',
      last_trade_type: 'Sell',
      platform_address: w.P,
      platform_commission: '1.5',
      job_type: 'mrc401_createtrade',
    });
    expect(params(item).slice(0, 3)).toEqual([id, w.O, w.A]);
    expect(paymentsIn(item)!.map((p) => [p.type, p.from_addr, p.to_addr, p.amount])).toEqual([
      ['mrc401_createtrade', w.R, id, '100'],
      ['mrc401_createtrade_buy', w.A, id, '1000'],
      ['mrc401_recv_fee_owner', id, w.O, '25'],
      ['mrc401_recv_fee_platform', id, w.P, '15'],
      ['mrc401_recv_fee_shareholder', id, w.S, '30'],
      ['mrc401_recv_sell', id, w.O, '930'],
    ]);
  });

  it('leaves a partner creator who locks no reserve unwritten, so its nonce rotation is lost', () => {
    const { w, fx, args } = createTrade('0');
    expect(fx.keys).not.toContain(w.R);
    expect(nonceOf(w.world, w.R)).toBe(args[11]);
    expect(paymentsIn(fx.record(fx.keys.find((k) => k.startsWith('MRC400_'))!)!)![0]!.type).toBe(
      'mrc401_createtrade_buy',
    );
  });

  it('does not exist under CC-m, and refuses the MRC-400 owner or the creator as buyer', () => {
    const w = nftWorld();
    const c = collection(w, 'current', { [w.R]: 'seller' });
    const item = JSON.stringify(job(itemId('t')));
    const call = (buyer: string) => [
      c, w.R, item, buyer, '10', '0', '', '', '', '', 's', nonceOf(w.world, w.R), 's', nonceOf(w.world, buyer),
    ]; // prettier-ignore
    expect(() => attempt(w.world, mrc401CreateTradeJob, call(w.A), { version: 'v2.3' })).toThrow(
      'Unsupported operation [mrc401createtrade]',
    );
    expect(() => attempt(w.world, mrc401CreateTradeJob, call(w.O))).toThrow(
      '3004,MRC400 owner cannot purchase items sold by yourself',
    );
    expect(() => attempt(w.world, mrc401CreateTradeJob, call(w.R))).toThrow(
      '3004,MRC401 creator cannot purchase items sold by yourself',
    );
  });
});

describe('mrc401update', () => {
  function items(version: ChaincodeVersion, fields: Record<string, unknown> = {}) {
    const w = nftWorld();
    const c = collection(w, version);
    const a = itemId('a');
    createItems(w, c, version, [job(a, { initial_reserve: '10', ...fields })]);
    return { w, c, a, id: `${c}_${a}` };
  }
  const update = (version: ChaincodeVersion, w: World, c: string, jobs: object[]) => {
    const data = JSON.stringify(jobs);
    const nonce = nonceOf(w.world, w.O);
    return version === 'v2.3' ? [c, data, 's', nonce] : [c, w.O, data, 's', nonce];
  };

  it('CC-m: updates a melted item and the URLs of an item on sale, but not its fees', () => {
    const { w, c, a, id } = items('v2.3');
    run(
      w.world,
      mrc401SellJob,
      [w.O, c, JSON.stringify([{ id, amount: '5', token: '0' }]), 's', nonceOf(w.world, w.O)],
      {
        version: 'v2.3',
      },
    );
    const onSale = update('v2.3', w, c, [job(a, { item_url: `${SITE}a`, melting_fee: '2.5', sell_fee: '1.25' })]);
    expect(run(w.world, mrc401UpdateJob, onSale, { version: 'v2.3' }).record(id)).toMatchObject({
      item_url: `${SITE}a`,
    });
    const fees = update('v2.3', w, c, [job(a, { sell_fee: '3' })]);
    expect(() => attempt(w.world, mrc401UpdateJob, fees, { version: 'v2.3' })).toThrow(
      `3004,MRC401 [${a}] is already sale`,
    );

    const melted = items('v2.3');
    run(melted.w.world, mrc401MeltJob, [melted.id, 's', nonceOf(melted.w.world, melted.w.O)], { version: 'v2.3' });
    const args = update('v2.3', melted.w, melted.c, [job(melted.a, { groupid: 'after melting' })]);
    const fx = run(melted.w.world, mrc401UpdateJob, args, { version: 'v2.3' });
    expect(fx.record(melted.id)).toMatchObject({
      owner: 'MELTED',
      groupid: 'after melting',
      job_type: 'mrc401_update',
    });
    expect(params(fx.wallet(melted.w.O)!)).toEqual([melted.c, melted.w.O, JSON.stringify([melted.a]), 's', args[3]]);
  });

  it('CC-t: refuses melted items', () => {
    const { w, c, a, id } = items('current');
    run(w.world, mrc401MeltJob, [id, 's', nonceOf(w.world, w.O)]);
    expect(() => attempt(w.world, mrc401UpdateJob, update('current', w, c, [job(a)]))).toThrow(
      `3004,MRC401 [${a}] is already melted`,
    );
  });

  it('changes the transfer policy only from Temporary, each version with its spelling', () => {
    const old = items('v2.3', { transferable: 'Temprary' });
    const fx = run(
      old.w.world,
      mrc401UpdateJob,
      update('v2.3', old.w, old.c, [job(old.a, { transferable: 'Bound' })]),
      {
        version: 'v2.3',
      },
    );
    expect(fx.record(old.id)!['transferable']).toBe('Bound');
    expect(() =>
      attempt(old.w.world, mrc401UpdateJob, update('v2.3', old.w, old.c, [job(old.a, { transferable: 'Permanent' })]), {
        version: 'v2.3',
      }),
    ).toThrow(`3005,${old.a} item Transferable value cannot be change`);

    // A CC-m "Temprary" item stays changeable under CC-t, which accepts only its own spelling.
    const next = items('v2.3', { transferable: 'Temprary' });
    expect(() =>
      attempt(
        next.w.world,
        mrc401UpdateJob,
        update('current', next.w, next.c, [job(next.a, { transferable: 'Temprary' })]),
      ),
    ).toThrow(`3005,${next.a} item Transferable value is Permanent, Bound, Temporary`);
    const args = update('current', next.w, next.c, [job(next.a, { transferable: 'Temporary' })]);
    expect(run(next.w.world, mrc401UpdateJob, args).record(next.id)!['transferable']).toBe('Temporary');
  });
});
