import { describe, expect, it } from 'vitest';
import { address } from '../dex010/testing.ts';
import { mrc402CreateJob } from './create.ts';
import { mrc402TransferJob } from './transfer.ts';
import { attempt, generatedId, holding, nftWorld, nonceOf, run } from './testing.ts';

function minted() {
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
  run(w.world, mrc402CreateJob, args);
  return { ...w, id: generatedId('MRC402_', args) };
}

describe('mrc402transfer', () => {
  it('moves units between holdings and writes both wallets with the call args, not the record', () => {
    const { world, C, H, id } = minted();
    const args = [C, H, '30', id, 'gift', 'for you', 'c2ln', nonceOf(world, C)];
    const recipientNonce = nonceOf(world, H);
    const fx = run(world, mrc402TransferJob, args);
    expect(fx.keys).toEqual([C, H].sort());
    expect(fx.wallet(C)).toMatchObject({
      mrc402: { [id]: holding('70') },
      job_type: 'transfer_mrc402',
      job_args: JSON.stringify(args),
    });
    expect(fx.wallet(H)).toMatchObject({
      mrc402: { [id]: holding('30') },
      job_type: 'receive_mrc402',
      job_args: JSON.stringify(args),
    });
    // Only the sender signs: its nonce turns over, the recipient's stays.
    expect(fx.wallet(C)!.nonce).not.toBe(args[7]);
    expect(fx.wallet(H)!.nonce).toBe(recipientNonce);
    expect(world.mrc402Holders(id)).toEqual([C, H]);
  });

  it('deletes an emptied holding, leaving {} (Go’s non-nil empty map), and drops the holder from the index', () => {
    const { world, C, H, B, id } = minted();
    run(world, mrc402TransferJob, [C, H, '30', id, '', '', 's', nonceOf(world, C)]);
    const fx = run(world, mrc402TransferJob, [H, B, '30', id, '', '', 's', nonceOf(world, H)]);
    expect(fx.wallet(H)!.mrc402).toEqual({});
    expect(fx.wallet(B)!.mrc402).toEqual({ [id]: holding('30') });
    expect(world.mrc402Holders(id)).toEqual([C, B]);
  });

  it('refuses the same address twice, an unknown recipient, a zero amount and more than held', () => {
    const { world, C, H, id } = minted();
    const call = (from: string, to: string, amount: string) => () =>
      attempt(world, mrc402TransferJob, [from, to, amount, id, '', '', 's', nonceOf(world, from)]);
    expect(call(C, C, '1')).toThrow('3201,From address and to address must be different values');
    expect(call(C, address('nobody'), '1')).toThrow('3001,Invalid to address');
    expect(call(C, H, '0')).toThrow('1206,The amount must be an integer');
    expect(call(C, H, '101')).toThrow('5000,Not enough balance');
  });
});
