import { describe, expect, it } from 'vitest';
import { mrc402CreateJob } from './create.ts';
import { mrc402BurnJob, mrc402MeltJob, mrc402MintJob } from './supply.ts';
import { mrc402TransferJob } from './transfer.ts';
import { attempt, entry, generatedId, holding, NOW, nftWorld, nonceOf, run } from './testing.ts';

/**
 * C creates 100 units with a reserve of 30 MTC and 2 GLD base units per unit (paying 3,000 MTC and
 * 200 GLD) and an expiredate of `expiry`, then gives H 30 units.
 */
function withHolder(expiry = '0') {
  const w = nftWorld();
  const args = [
    w.C,
    'Gold Pass',
    '0',
    '100',
    '0',
    'https://nft.example/gold',
    'https://img.example/gold.png',
    '',
    '{"0":"30","1":"2"}',
    expiry,
    '',
    '',
    '',
    '',
    '',
    '',
    'c2ln',
    nonceOf(w.world, w.C),
  ];
  run(w.world, mrc402CreateJob, args);
  const id = generatedId('MRC402_', args);
  run(w.world, mrc402TransferJob, [w.C, w.H, '30', id, '', '', 's', nonceOf(w.world, w.C)]);
  return { ...w, id };
}

describe('mrc402melt', () => {
  it('takes the units off the holder, adds them to meltedamount and pays the reserve per unit back', () => {
    const { world, H, id } = withHolder();
    const args = [id, H, '20', 'bWVsdA==', nonceOf(world, H)];
    const fx = run(world, mrc402MeltJob, args, NOW + 5);
    expect(fx.keys).toEqual([H, id].sort());
    expect(fx.nft(id)).toMatchObject({
      totalsupply: '100',
      meltedamount: '20',
      job_type: 'mrc402_melt',
      job_args: JSON.stringify(args),
    });
    const holder = fx.wallet(H)!;
    // 20 units × 30 MTC = 600; 20 × 2 GLD = 40, a new entry after MTC's (reserve tokens in sorted order).
    expect(holder.balance).toEqual([entry(0, '1000600'), entry(1, '40')]);
    expect(holder.mrc402).toEqual({ [id]: holding('10') });
    expect(holder).toMatchObject({ job_type: 'mrc402melt', job_args: JSON.stringify(args) });
  });

  it('is refused while the expiredate is ahead of the peer clock and allowed from that second on', () => {
    const { world, H, id } = withHolder(String(NOW + 100));
    const args = [id, H, '1', 's', nonceOf(world, H)];
    expect(() => attempt(world, mrc402MeltJob, args, NOW + 99)).toThrow('3004,It is not a meltable date');
    expect(() => run(world, mrc402MeltJob, args, NOW + 100)).not.toThrow();
  });

  it('refuses more than the holder holds', () => {
    const { world, H, id } = withHolder();
    expect(() => attempt(world, mrc402MeltJob, [id, H, '31', 's', nonceOf(world, H)])).toThrow(
      '5000,Not enough balance',
    );
  });
});

describe('mrc402mint', () => {
  it('adds to the creator and the supply and takes amount × reserve per unit, [id, creator, amount, memo, sig, nonce]', () => {
    const { world, C, id } = withHolder();
    const args = [id, '50', 'second run', 'bWludA==', nonceOf(world, C)];
    const fx = run(world, mrc402MintJob, args);
    const params = JSON.stringify([id, C, ...args.slice(1)]);
    expect(fx.nft(id)).toMatchObject({
      totalsupply: '150',
      meltedamount: '0',
      job_type: 'mrc402_mint',
      job_args: params,
    });
    // 997,000 − 50 × 30 = 995,500 MTC; 9,800 − 50 × 2 = 9,700 GLD.
    expect(fx.wallet(C)!.balance).toEqual([entry(0, '995500'), entry(1, '9700')]);
    expect(fx.wallet(C)!.mrc402).toEqual({ [id]: holding('120') });
    expect(fx.wallet(C)).toMatchObject({ job_type: 'mrc402mint', job_args: params });
  });

  it('refuses a supply past 99,999,999 and a reserve the creator cannot pay', () => {
    const { world, C, id } = withHolder();
    expect(() => attempt(world, mrc402MintJob, [id, '99999900', '', 's', nonceOf(world, C)])).toThrow(
      // 100 + 99,999,900 passes the cap (checked before the reserve is paid).
      '3005,After the mint, the value of TotalSupply is less than 99999999',
    );
    // 40,000 × 30 MTC = 1,200,000 > 997,000.
    expect(() => attempt(world, mrc402MintJob, [id, '40000', '', 's', nonceOf(world, C)])).toThrow(
      '5000,Not enough balance',
    );
  });
});

describe('mrc402burn', () => {
  it('sets totalsupply to totalsupply − meltedamount − amount and leaves meltedamount (the chain’s quirk)', () => {
    const { world, C, H, id } = withHolder();
    run(world, mrc402MeltJob, [id, H, '20', 's', nonceOf(world, H)]);
    const args = [id, '10', 'trim', 'YnVybg==', nonceOf(world, C)];
    const fx = run(world, mrc402BurnJob, args);
    const params = JSON.stringify([id, C, ...args.slice(1)]);
    // 100 − 20 melted − 10 burnt = 70, what wallets hold (C 60, H 10): right once, after one melt.
    expect(fx.nft(id)).toMatchObject({
      totalsupply: '70',
      meltedamount: '20',
      job_type: 'mrc402_burn',
      job_args: params,
    });
    // C held 70: 60 left; 10 × 30 MTC and 10 × 2 GLD come back.
    expect(fx.wallet(C)!.mrc402).toEqual({ [id]: holding('60') });
    expect(fx.wallet(C)!.balance).toEqual([entry(0, '997300'), entry(1, '9820')]);
    expect(fx.wallet(C)).toMatchObject({ job_type: 'mrc402burn', job_args: params });

    // A second burn subtracts the 20 melted units again: 70 − 20 − 5 = 45, while wallets hold 65.
    run(world, mrc402BurnJob, [id, '5', '', 's', nonceOf(world, C)]);
    expect(world.mrc402(id)).toMatchObject({ totalsupply: '45', meltedamount: '20' });
    expect(world.wallet(C)!.mrc402![id]!.balance).toBe('55');
  });

  it('refuses a burn past totalsupply − meltedamount, naming that maximum', () => {
    const { world, C, H, id } = withHolder();
    run(world, mrc402MeltJob, [id, H, '20', 's', nonceOf(world, H)]);
    run(world, mrc402BurnJob, [id, '10', '', 's', nonceOf(world, C)]);
    // totalsupply 70, melted 20: at most 50 may be burnt, though C holds 60.
    expect(() => attempt(world, mrc402BurnJob, [id, '51', '', 's', nonceOf(world, C)])).toThrow(
      '3005,The maximum amount that can be burn is 50',
    );
    expect(() => run(world, mrc402BurnJob, [id, '50', '', 's', nonceOf(world, C)])).not.toThrow();
    expect(world.mrc402(id)).toMatchObject({ totalsupply: '0', meltedamount: '20' });
  });
});
