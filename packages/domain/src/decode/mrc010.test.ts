import { describe, expect, it } from 'vitest';
import { decodeTransaction, describeEntry, summarize } from '../decode.ts';
import { addr, bal, entry, nodeOrder, POS, wallet, walletEntry } from './fixtures.ts';

const A = addr('Alice');
const B = addr('Bob');
const C = addr('Carol');

/** Token 5 as the chaincode writes it; the bridge has renamed its `token` to `balance`. */
const token5 = {
  id: '5',
  balance: 5,
  owner: A,
  symbol: 'GEM',
  name: 'Gem',
  totalsupply: '1000',
  reservedamount: '1000',
  remainamount: '0',
  burnningamount: '0',
  decimal: 2,
  url: 'https://old.example',
  information: 'old',
  image: 'data:old',
  type: '010',
  job_type: 'tokenUpdate',
};

describe('MRC-010 family', () => {
  it('decodes tokenUpdate: what the record holds now, and whether the image changed', () => {
    const p = ['5', 'https://new.example', 'new info', '', 'sig', 'nonce'];
    const values = { ...token5, url: 'https://new.example', information: 'new info', job_args: JSON.stringify(p) };
    const tx = decodeTransaction(POS, [entry('tokenUpdate', 'TOKEN_DATA_5', p, values)]);
    expect(tx.activity).toEqual([
      {
        kind: 'tokenUpdate',
        jobType: 'tokenUpdate',
        tokenId: 5,
        owner: A,
        url: 'https://new.example',
        information: 'new info',
        imageChanged: false,
      },
    ]);
    expect(tx.summary).toEqual({ type: 'tokenUpdate', from: A, to: '', amount: '0', token: '5' });
    const t = tx.writes[0];
    expect(t?.kind === 'token' && [t.token.url, t.token.image]).toEqual(['https://new.example', 'data:old']);

    const withImage = ['5', 'https://new.example', 'new info', 'data:new', 'sig', 'nonce'];
    const tx2 = decodeTransaction(POS, [
      entry('tokenUpdate', 'TOKEN_DATA_5', withImage, { ...values, image: 'data:new' }),
    ]);
    expect(tx2.activity[0]).toMatchObject({ kind: 'tokenUpdate', imageChanged: true });
  });

  it('summarises a token registration by its record, not by the reserve entries listed first', () => {
    const register = { ...token5, token: 5, reserve: [{ address: B, value: '1000', unlockdate: 0 }] };
    const entries = nodeOrder([
      entry('tokenRegister', 'TOKEN_DATA_5', register, { ...token5, job_type: 'tokenRegister' }),
      walletEntry('token_reserve', B, [A, B, '1000', '5'], [bal(0, '0'), bal(5, '1000')]),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['tokenRegister', 'token_reserve']);
    expect(summarize(entries)).toEqual({ type: 'tokenRegister', from: A, to: '', amount: '1000', token: '5' });
    expect(summarize([...entries].reverse())).toEqual(summarize(entries));
    // The creation comes first among the activities.
    expect(decodeTransaction(POS, [...entries].reverse()).activity.map((a) => a.kind)).toEqual([
      'tokenCreate',
      'tokenReserve',
    ]);
  });

  describe('entry views', () => {
    it('reads transfers and receives in the payment layout', () => {
      const p = [A, B, '250', '3', 'sig', '1800000000', 'tag', 'memo', 'nonce'];
      expect(describeEntry(walletEntry('transfer', A, p))).toEqual({
        summary: 'Transfer',
        from: A,
        to: B,
        amount: '250',
        tokenId: 3,
      });
      expect(describeEntry(walletEntry('receive', B, p))).toEqual({
        summary: 'Receive',
        from: A,
        to: B,
        amount: '250',
        tokenId: 3,
      });
    });

    it('reads a multitransfer from its JSON-in-string list: the total, and the recipient only when there is one', () => {
      const two = JSON.stringify([
        { address: B, amount: '3', unlockdate: '0', tag: '', memo: '' },
        { address: C, amount: '4', unlockdate: '0', tag: '', memo: '' },
      ]);
      expect(describeEntry(walletEntry('multi_transfer', A, [A, two, '0', 'sig', 'nonce']))).toEqual({
        summary: 'Multi transfer',
        from: A,
        to: '',
        amount: '7',
        tokenId: 0,
      });
      const one = JSON.stringify([{ address: C, amount: '4' }]);
      expect(describeEntry(walletEntry('multi_transfer', A, [A, one, '9', 'sig', 'nonce']))).toMatchObject({
        to: C,
        amount: '4',
        tokenId: 9,
      });
      // A list that is not JSON reads as empty, it does not throw.
      expect(describeEntry(walletEntry('multi_transfer', A, [A, '[{broken', '0', 'sig', 'nonce']))).toMatchObject({
        amount: '0',
      });
    });

    it('reads a token registration from its object parameters, a reserve from its own layout', () => {
      const register = { ...token5, token: 5 };
      expect(describeEntry(entry('tokenRegister', 'TOKEN_DATA_5', register, token5))).toEqual({
        summary: 'Token create',
        from: A,
        to: '',
        amount: '1000',
        tokenId: 5,
      });
      expect(describeEntry(walletEntry('token_reserve', B, [A, B, '400', '5']))).toEqual({
        summary: 'Token reserve',
        from: A,
        to: B,
        amount: '400',
        tokenId: 5,
      });
    });

    it('reads mint and burn on both the token record and the owner wallet', () => {
      const p = ['5', '50', 'memo', 'sig', 'nonce'];
      expect(describeEntry(walletEntry('ownerIncrease', A, p))).toEqual({
        summary: 'Token mint',
        from: '',
        to: A,
        amount: '50',
        tokenId: 5,
      });
      expect(describeEntry(walletEntry('ownerBurning', A, ['5', '20', 'sig', 'nonce']))).toEqual({
        summary: 'Token burn',
        from: A,
        to: '',
        amount: '20',
        tokenId: 5,
      });
      expect(describeEntry(entry('tokenIncrease', 'TOKEN_DATA_5', p, token5))).toEqual({
        summary: 'Token mint',
        from: A,
        to: A,
        amount: '50',
        tokenId: 5,
      });
    });

    it('reads a new wallet as created at its key', () => {
      expect(describeEntry(entry('NewWallet', C, [C, 'PEM', ''], wallet(C, 'NewWallet', [], [bal(0, '0')])))).toEqual({
        summary: 'New wallet',
        from: '',
        to: C,
        amount: '0',
        tokenId: null,
      });
    });
  });
});
