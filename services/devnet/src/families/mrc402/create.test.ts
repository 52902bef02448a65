import { describe, expect, it } from 'vitest';
import { mrc402CreateJob, mrc402UpdateJob } from './create.ts';
import { attempt, entry, generatedId, holding, NOW, nftWorld, nonceOf, run } from './testing.ts';

const FIELD_ORDER = [
  'id',
  'creator',
  'creatorcommission',
  'totalsupply',
  'meltedamount',
  'decimal',
  'name',
  'expiredate',
  'image',
  'url',
  'data',
  'info',
  'socialmedia',
  'copyright_registration_country',
  'copyright_registrar',
  'copyright_registration_number',
  'shareholder',
  'initialreserve',
  'job_type',
  'job_args',
  'jobdate',
];

/**
 * C creates 100 units of "Gold Pass" with a 2.50 % creator commission, shareholders S2 (0.50 %) and
 * S1 (1.5 %) sent in that order, and a reserve of 30 MTC and 2 GLD base units per unit.
 */
function created(overrides: Record<number, string> = {}) {
  const w = nftWorld();
  const args = [
    w.C,
    'Gold Pass',
    '2.50',
    '0100',
    '0',
    'https://nft.example/gold',
    'https://img.example/gold.png',
    JSON.stringify({ [w.S2]: '0.50', [w.S1]: '1.5' }),
    '{"1":"2","0":"30"}',
    '0',
    '{"edition":"1"}',
    'A pass',
    '',
    'KR',
    'Korea Copyright Commission',
    'C-2023-000001',
    'c2ln',
    nonceOf(w.world, w.C),
  ].map((arg, i) => overrides[i] ?? arg);
  const fx = run(w.world, mrc402CreateJob, args);
  return { ...w, args, fx, id: generatedId('MRC402_', args) };
}

describe('mrc402create', () => {
  it('writes the record in TMRC402 field order, maps sorted and kept as sent, commission and supply normalised', () => {
    const { C, S1, S2, args, fx, id } = created();
    expect(fx.keys).toEqual([C, id].sort());
    const token = fx.nft(id)!;
    expect(token).toEqual({
      id,
      creator: C,
      creatorcommission: '2.5',
      totalsupply: '100',
      meltedamount: '0',
      decimal: 0,
      name: 'Gold Pass',
      expiredate: 0,
      image: 'https://img.example/gold.png',
      url: 'https://nft.example/gold',
      data: '{"edition":"1"}',
      info: 'A pass',
      socialmedia: '',
      copyright_registration_country: 'KR',
      copyright_registrar: 'Korea Copyright Commission',
      copyright_registration_number: 'C-2023-000001',
      shareholder: { [S1]: '1.5', [S2]: '0.50' },
      initialreserve: { '0': '30', '1': '2' },
      job_type: 'mrc402_create',
      job_args: JSON.stringify([id, ...args]),
      jobdate: NOW,
    });
    expect(Object.keys(token)).toEqual(FIELD_ORDER);
    expect(Object.keys(token.shareholder!)).toEqual([S1, S2]);
  });

  it('gives the creator the whole supply and takes supply × reserve of each reserve token', () => {
    const { C, args, fx, id } = created();
    const creator = fx.wallet(C)!;
    // 100 units × 30 MTC = 3,000 of 1,000,000; 100 × 2 GLD = 200 of 10,000.
    expect(creator.balance).toEqual([entry(0, '997000'), entry(1, '9800')]);
    expect(creator.mrc402).toEqual({ [id]: holding('100') });
    expect(creator).toMatchObject({ job_type: 'mrc402create', job_args: JSON.stringify([id, ...args]) });
    expect(creator.nonce).not.toBe(args[17]);
  });

  it('keeps a wallet’s holdings sorted by id as Go marshals the map, whatever the creation order', () => {
    const { world, C, id } = created();
    const ids = [id];
    for (const name of ['Silver Pass', 'Bronze Pass', 'Iron Pass']) {
      const args = [
        C,
        name,
        '0',
        '5',
        '0',
        'https://nft.example/x',
        'https://img.example/x.png',
        '',
        '',
        '0',
        '',
        '',
        '',
        '',
        '',
        '',
        's',
        nonceOf(world, C),
      ];
      run(world, mrc402CreateJob, args);
      ids.push(generatedId('MRC402_', args));
    }
    expect(Object.keys(world.wallet(C)!.mrc402!)).toEqual([...ids].sort());
    expect(world.mrc402Ids).toEqual(ids);
    expect(world.mrc402Holders(ids[1]!)).toEqual([C]);
  });

  it('stores "" maps as null and "{}" as {}', () => {
    const { fx, id } = created({ 7: '', 8: '{}' });
    expect(fx.nft(id)).toMatchObject({ shareholder: null, initialreserve: {} });
  });

  it('refuses what CC-t Mrc402Create refuses, with its messages', () => {
    const { world, C, S1 } = nftWorld();
    const base = [
      C,
      'Gold Pass',
      '2',
      '100',
      '0',
      'https://nft.example/gold',
      'https://img.example/gold.png',
      '',
      '',
      '0',
      '',
      '',
      '',
      '',
      '',
      '',
      'c2ln',
      nonceOf(world, C),
    ];
    const call = (overrides: Record<number, string>) => () =>
      attempt(
        world,
        mrc402CreateJob,
        base.map((arg, i) => overrides[i] ?? arg),
      );
    expect(call({ 17: 'stale' })).toThrow(/nonce error$/);
    expect(call({ 4: '2' })).toThrow('3005,Decimal is must be zero');
    expect(call({ 2: '10.5' })).toThrow('3005,Creatorcommission value error :  must be smaller then 10.0');
    expect(call({ 3: '100000000' })).toThrow('3005,TotalSupply value error :  must be smaller then 99999999');
    expect(call({ 13: 'XX' })).toThrow('XX is not country code');
    expect(call({ 9: '' })).toThrow('3005,ExpireDate value error : 9900,Data [] is not integer');
    expect(call({ 7: JSON.stringify({ [S1]: '11' }) })).toThrow(
      '3005,0th shareholder item commission error :  must be smaller then 10.0',
    );
    // 100 units × 10,001 MTC per unit is more than C's 1,000,000.
    expect(call({ 8: '{"0":"10001"}' })).toThrow('5000,Not enough balance');
    expect(call({ 8: '{"7":"1"}' })).toThrow('3005,0th InitialReserve item token error : 4001,Token 7 not exists');
    expect(() => attempt(world, mrc402CreateJob, base.slice(0, 17))).toThrow(/^1000,mrc402create operation/);
  });
});

describe('mrc402update', () => {
  it('writes url, data, info and socialmedia as sent (a "" data clears it) and the creator, both [id, creator, args 1–9]', () => {
    const { world, C, id } = created({ 13: '', 14: '', 15: '' });
    const args = [id, 'https://nft.example/gold?v=2', '', 'A pass', '', 'JP', '', '', 'dXBk', nonceOf(world, C)];
    const fx = run(world, mrc402UpdateJob, args, NOW + 10);
    expect(fx.keys).toEqual([C, id].sort());
    const params = JSON.stringify([id, C, ...args.slice(1)]);
    expect(fx.nft(id)).toMatchObject({
      url: 'https://nft.example/gold?v=2',
      data: '',
      info: 'A pass',
      socialmedia: '',
      copyright_registration_country: 'JP',
      job_type: 'mrc402_update',
      job_args: params,
      jobdate: NOW + 10,
    });
    expect(fx.wallet(C)).toMatchObject({ job_type: 'mrc402update', job_args: params });
  });

  it('refuses a second copyright country, a call that changes nothing and a call of fewer than 10 args', () => {
    const { world, C, id } = created();
    const call = (a: string[]) => () => attempt(world, mrc402UpdateJob, a);
    const nonce = nonceOf(world, C);
    expect(call([id, '', '', '', '', 'US', '', '', 's', nonce])).toThrow(
      '3005,Copyright registration country cannot be changed',
    );
    expect(call([id, 'https://nft.example/gold', '{"edition":"1"}', '', '', '', '', '', 's', nonce])).toThrow(
      '4900,No data change',
    );
    expect(call([id, 'https://nft.example/new', '', '', '', '', '', '', 's'])).toThrow(/index out of range/);
  });
});
