import { describe, expect, it } from 'vitest';
import { createRng } from '../../rng.ts';
import type { BalanceEntry, Wallet } from './records.ts';
import { cloneWallet } from './records.ts';
import { createStub } from '../../world/stub.ts';
import { createWorld } from '../../world/world.ts';
import { mrc010Add, mrc010Subtract, spendable } from './balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';

const NOW = 1_700_000_000;

function setup(balance: BalanceEntry[]) {
  const world = createWorld();
  world.apply([
    { key: 'TOKEN_DATA_0', value: { id: '0', token: 0, job_args: '[]' } },
    { key: 'TOKEN_DATA_5', value: { id: '5', token: 5, job_args: '[]' } },
  ]);
  const { stub } = createStub(world, NOW, createRng(1));
  const wallet = { id: 'MT…', balance } as unknown as Wallet;
  return { stub, wallet: cloneWallet(wallet) };
}

const entry = (token: number, balance: string, unlockdate = 0, sale = '0', auction = '0'): BalanceEntry => ({
  balance,
  token,
  unlockdate,
  saleamount: sale,
  auctionamount: auction,
});

describe('mrc010Add', () => {
  it('stores a credit whose unlockdate is already past with unlockdate 0', () => {
    const { stub, wallet } = setup([entry(0, '0')]);
    mrc010Add(stub, wallet, '5', '70', NOW - 10);
    expect(wallet.balance).toEqual([entry(0, '0'), { ...entry(5, '70'), saleamount: '', auctionamount: '' }]);
  });

  it('keeps a future lock as its own entry and merges credits of the same (token, unlockdate)', () => {
    const { stub, wallet } = setup([entry(0, '10')]);
    mrc010Add(stub, wallet, '0', '5', NOW + 100);
    mrc010Add(stub, wallet, '0', '6', NOW + 100);
    mrc010Add(stub, wallet, '0', '1', 0);
    expect(wallet.balance.map((e) => [e.token, e.balance, e.unlockdate])).toEqual([
      [0, '11', 0],
      [0, '11', NOW + 100],
    ]);
  });

  it('rejects an unknown token and a non-positive amount', () => {
    const { stub, wallet } = setup([entry(0, '0')]);
    expect(() => mrc010Add(stub, wallet, '9', '1', 0)).toThrow(ChaincodeError);
    expect(() => mrc010Add(stub, wallet, '0', '0', 0)).toThrow(/^1101,/);
  });
});

describe('mrc010Subtract', () => {
  it('walks the array in order, skipping locks still running and spending expired ones', () => {
    const { stub, wallet } = setup([entry(0, '1'), entry(5, '30', NOW - 5), entry(5, '100', NOW + 5), entry(5, '50')]);
    mrc010Subtract(stub, wallet, '5', '60', 'normal');
    expect(wallet.balance).toEqual([entry(0, '1'), entry(5, '100', NOW + 5), entry(5, '20')]);
  });

  it('removes emptied entries of other tokens but keeps token 0 entries', () => {
    const { stub, wallet } = setup([entry(0, '5', NOW - 1), entry(0, '0'), entry(5, '8')]);
    mrc010Subtract(stub, wallet, '0', '5', 'normal');
    expect(wallet.balance).toEqual([entry(0, '0', NOW - 1), entry(0, '0'), entry(5, '8')]);
    mrc010Subtract(stub, wallet, '5', '8', 'normal');
    expect(wallet.balance).toEqual([entry(0, '0', NOW - 1), entry(0, '0')]);
  });

  it('adds an unlocked entry for sale escrow when the token has none', () => {
    const { stub, wallet } = setup([entry(0, '0'), entry(5, '10', NOW - 1)]);
    mrc010Subtract(stub, wallet, '5', '4', 'sell');
    expect(wallet.balance).toEqual([entry(0, '0'), entry(5, '6', NOW - 1), entry(5, '0', 0, '4', '0')]);
  });

  it('fails with 5000 when the spendable part is short, counting no locked entry', () => {
    const { stub, wallet } = setup([entry(0, '0'), entry(5, '10'), entry(5, '1000', NOW + 1)]);
    expect(spendable(wallet, 5, NOW)).toBe(10n);
    expect(() => mrc010Subtract(stub, wallet, '5', '11', 'normal')).toThrow(/^5000,/);
  });

  it('treats a lock ending exactly now as spendable', () => {
    const { stub, wallet } = setup([entry(0, '0'), entry(5, '10', NOW)]);
    expect(spendable(wallet, 5, NOW)).toBe(10n);
    mrc010Subtract(stub, wallet, '5', '10', 'normal');
    expect(wallet.balance).toEqual([entry(0, '0')]);
  });

  it('never changes an entry object in place, so committed snapshots stay intact', () => {
    const original = [entry(0, '9')];
    const { stub, wallet } = setup(original);
    Object.freeze(original[0]);
    mrc010Subtract(stub, wallet, '0', '4', 'normal');
    mrc010Add(stub, wallet, '0', '1', 0);
    expect(original[0]!.balance).toBe('9');
    expect(wallet.balance[0]!.balance).toBe('6');
  });
});
