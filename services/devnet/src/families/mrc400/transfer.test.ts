import { describe, expect, it } from 'vitest';
import type { ChaincodeVersion } from '../../chaincode/versions.ts';
import { mrc401MeltJob, mrc401TransferJob } from './transfer.ts';
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
} from './testing.ts';

function item(version: ChaincodeVersion, fields: Record<string, unknown> = {}) {
  const w = nftWorld();
  const c = collection(w, version);
  createItems(w, c, version, [job(itemId('a'), fields)]);
  return { w, c, id: `${c}_${itemId('a')}` };
}

const transfer = (w: ReturnType<typeof nftWorld>, id: string, from: string, to: string) => [
  id,
  from,
  to,
  's',
  nonceOf(w.world, from),
];

describe('mrc401transfer', () => {
  it('moves the item with the call args as job_args; only CC-t records a first transfer as the last trade', () => {
    for (const [version, lastTrade] of [
      ['v2.3', ''],
      ['current', 'Transfer'],
    ] as const) {
      const { w, id } = item(version);
      const args = transfer(w, id, w.O, w.A);
      const fx = run(w.world, mrc401TransferJob, args, { version });
      expect(fx.keys).toEqual([id, w.O].sort());
      expect(fx.record(id)).toMatchObject({ owner: w.A, last_trade_type: lastTrade, job_type: 'mrc401_transfer' });
      expect(params(fx.record(id)!)).toEqual(args);
      expect(fx.wallet(w.O)).toMatchObject({ job_type: 'mrc401transfer', job_args: JSON.stringify(args) });
    }
  });

  it('moves a Bound item only while the MRC-400 owner holds it', () => {
    const { w, id } = item('current', { transferable: 'Bound' });
    run(w.world, mrc401TransferJob, transfer(w, id, w.O, w.A));
    expect(() => attempt(w.world, mrc401TransferJob, transfer(w, id, w.A, w.B))).toThrow(
      `5002,MRC401 [${id}] is not transferable`,
    );
    expect(() => attempt(w.world, mrc401TransferJob, transfer(w, id, w.B, w.A))).toThrow(
      `5002,MRC401 [${id}] is not transferable`,
    );
  });

  it('refuses a sender that does not hold the item and a transfer to itself', () => {
    const { w, id } = item('v2.3');
    expect(() => attempt(w.world, mrc401TransferJob, transfer(w, id, w.A, w.B), { version: 'v2.3' })).toThrow(
      `3004,MRC401 [${id}] is not your item`,
    );
    expect(() => attempt(w.world, mrc401TransferJob, transfer(w, id, w.O, w.O), { version: 'v2.3' })).toThrow(
      '3005,From address and to address must be different values',
    );
  });
});

describe('mrc401melt', () => {
  it('pays the melting fee to the MRC-400 owner and the rest of the reserve to the holder (both versions)', () => {
    for (const version of ['v2.3', 'current'] as const) {
      const { w, id } = item(version, { initial_reserve: '1000', melting_fee: '2.5' });
      run(w.world, mrc401TransferJob, transfer(w, id, w.O, w.A), { version });
      const args = [id, 's', nonceOf(w.world, w.A)];
      const fx = run(w.world, mrc401MeltJob, args, { version, now: NOW + 60 });
      // floor(1,000 × 2.5 / 100) = 25 to O; A gets 975.
      expect(params(fx.wallet(w.O)!)).toEqual([id, w.O, '25', '0', 's', '0', '', id, args[2]]);
      expect(params(fx.wallet(w.A)!)).toEqual([id, w.A, '975', '0', 's', '0', '', id, args[2]]);
      expect([fx.wallet(w.O)!.job_type, fx.wallet(w.A)!.job_type]).toEqual(['receive_meltfee', 'receive_melt']);
      const melted = fx.record(id)!;
      expect(melted).toMatchObject({ owner: 'MELTED', melting_date: NOW + 60, job_type: 'mrc401_melt' });
      expect(params(melted).slice(0, 2)).toEqual([id, w.A]);
      expect(paymentsIn(melted, 2)!.map((p) => [p.type, p.to_addr, p.amount])).toEqual([
        ['mrc401_recv_meltfee', w.O, '25'],
        ['mrc401_recv_melt', w.A, '975'],
      ]);
      if (version === 'current') expect(melted['last_worker']).toBe(w.A);
      // O locked 1,000 at create and got 25 back; A got 975.
      expect([balanceOf(w.world, w.O, 0), balanceOf(w.world, w.A, 0)]).toEqual(['999025', '1000975']);
      expect(w.world.mrc400.idle).toEqual([]);
      expect(() => attempt(w.world, mrc401MeltJob, [id, 's', nonceOf(w.world, w.A)], { version })).toThrow(
        `3004,MRC401 [${id}] is already melted`,
      );
    }
  });

  it('pays an MRC-400 owner melting its own item the whole reserve, PaymentInfo disagreeing per version', () => {
    const listed = { 'v2.3': '1000', current: '975' } as const;
    for (const version of ['v2.3', 'current'] as const) {
      const { w, id } = item(version, { initial_reserve: '1000', melting_fee: '2.5' });
      const fx = run(w.world, mrc401MeltJob, [id, 's', nonceOf(w.world, w.O)], { version });
      expect(fx.keys).toEqual([id, w.O].sort());
      expect(params(fx.wallet(w.O)!)[2]).toBe('1000');
      expect(balanceOf(w.world, w.O, 0)).toBe('1000000');
      expect(paymentsIn(fx.record(id)!, 2)!.map((p) => [p.type, p.amount])).toEqual([
        ['mrc401_recv_meltfee', '25'],
        ['mrc401_recv_melt', listed[version]],
      ]);
    }
  });

  it('writes only the item when the reserve is 0: PaymentInfo "[]" under CC-m, "null" under CC-t', () => {
    for (const [version, list] of [
      ['v2.3', '[]'],
      ['current', 'null'],
    ] as const) {
      const { w, id } = item(version);
      const fx = run(w.world, mrc401MeltJob, [id, 's', nonceOf(w.world, w.O)], { version });
      expect(fx.keys).toEqual([id]);
      expect(params(fx.record(id)!)[2]).toBe(list);
    }
  });
});
