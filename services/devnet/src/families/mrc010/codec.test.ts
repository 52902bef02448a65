import { describe, expect, it } from 'vitest';
import { clientWallet, encodeToken, encodeWallet, readToken, readWallet, servedWallet } from './codec.ts';
import type { Mrc010Token, Wallet } from './records.ts';

const ADDR = 'MTA6SGKE8RU0TTCBPoDRfULnXL5lr4SLece1a6ee';

const wallet: Wallet = {
  id: ADDR,
  regdate: 10,
  password: 'PEM',
  addinfo: '',
  job_type: 'receive',
  job_args: '[]',
  jobdate: 20,
  balance: [{ balance: '5', token: 0, unlockdate: 0, saleamount: '', auctionamount: '' }],
  mrc010: null,
  mrc402: null,
  mrc800: null,
  pending: null,
  nonce: 'n'.repeat(40),
};

const HEAD = ['regdate', 'password', 'addinfo', 'job_type', 'job_args', 'jobdate'];

describe('encodeWallet', () => {
  it('writes each legacy MetaWallet with its own fields in struct order, and no id', () => {
    // CC b62bff9 (2.0), 3e80fc0 (2.1), 3c7d18c (MRC-800), 4ee896f/756ee17 (2.2 = CC-22) mtc.go MetaWallet.
    expect(Object.keys(encodeWallet(wallet, 'v2.0'))).toEqual([...HEAD, 'balance', 'pending']);
    expect(Object.keys(encodeWallet(wallet, 'v2.1'))).toEqual([...HEAD, 'balance', 'pending', 'nonce']);
    expect(Object.keys(encodeWallet(wallet, 'v2.1-mrc800'))).toEqual([
      ...HEAD,
      'balance',
      'mrc800',
      'pending',
      'nonce',
    ]);
    expect(Object.keys(encodeWallet(wallet, 'v2.2'))).toEqual([
      ...HEAD,
      'balance',
      'mrc402',
      'mrc800',
      'pending',
      'nonce',
    ]);
  });

  it('writes legacy balance entries with three fields (BalanceInfo)', () => {
    const encoded = encodeWallet(wallet, 'v2.2') as { balance: object[] };
    expect(encoded.balance).toEqual([{ balance: '5', token: 0, unlockdate: 0 }]);
  });

  it('keeps the pre-2.0 balance list under `token`', () => {
    const encoded = encodeWallet(wallet, 'v1');
    expect(Object.keys(encoded)).toEqual([...HEAD, 'token', 'pending']);
  });

  it('writes the current TWallet as it is', () => {
    expect(encodeWallet(wallet, 'current')).toBe(wallet);
  });
});

describe('readWallet', () => {
  it('reads a legacy record into TWallet: id from the key, zero values for what is missing', () => {
    const read = readWallet(ADDR, encodeWallet(wallet, 'v2.0'));
    expect(Object.keys(read)).toEqual(Object.keys(wallet));
    expect(read).toEqual({ ...wallet, nonce: '' });
  });

  it('keeps an emptied mrc402 map `{}` (Unmarshal of {} is an empty non-nil map) and a nil one null', () => {
    const emptied = readWallet(ADDR, { ...encodeWallet(wallet, 'v2.2'), mrc402: {} });
    expect(encodeWallet(emptied, 'current').mrc402).toEqual({});
    expect(readWallet(ADDR, encodeWallet(wallet, 'v2.1')).mrc402).toBeNull();
  });

  it('reads the pre-2.0 `token` list as the balance list', () => {
    expect(readWallet(ADDR, encodeWallet(wallet, 'v1')).balance).toEqual(wallet.balance);
  });

  it('gives a client the jobdate as nonce for a wallet whose nonce is "" (GetNonce)', () => {
    const old = encodeWallet(wallet, 'v2.0');
    expect(clientWallet(ADDR, old)!.nonce).toBe('20');
    expect(readWallet(ADDR, old).nonce).toBe('');
    expect(clientWallet(ADDR, wallet)).toBe(wallet);
  });
});

describe('servedWallet', () => {
  it('renames a `token` list to `balance`, last, as the bridge does', () => {
    const served = servedWallet(encodeWallet(wallet, 'v1'));
    expect(Object.keys(served)).toEqual([...HEAD, 'pending', 'balance']);
  });
});

describe('token records', () => {
  const token = { id: '3', owner: ADDR, token: 3, name: 'T' } as unknown as Mrc010Token;

  it('writes a legacy token without id and reads it back with the id first', () => {
    const legacy = encodeToken(token, 'v2.2');
    expect(legacy).not.toHaveProperty('id');
    const read = readToken(legacy);
    expect(Object.keys(read)[0]).toBe('id');
    expect(read).toEqual(token);
  });
});
