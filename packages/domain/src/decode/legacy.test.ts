import { describe, expect, it } from 'vitest';
import { decodeTransaction, describeEntry, summarize, unknownJobTypes } from '../decode.ts';
import { addr, bal, entry, nodeOrder, POS, walletEntry } from './fixtures.ts';

const A = addr('Alice');
const B = addr('Bob');
const C = addr('Carol');
const D = addr('Dave');
const G = addr('Game');

describe('legacy family', () => {
  it('shows an exchange as generic activity, each party’s side in its entry view', () => {
    // exchange: A gives 10 MTC to B, B gives 20 of token 5 to A; A pays a 1 MTC fee to C, B a
    // fee of 2 of token 5 to D (CC-22 argument order).
    const args = [
      A,
      '10',
      '0',
      C,
      '1',
      '0',
      'ft',
      'fm',
      'fsig',
      B,
      '20',
      '5',
      D,
      '2',
      '5',
      'tt',
      'tm',
      'tsig',
      'fn',
      'tn',
    ];
    const entries = nodeOrder([
      walletEntry('exchange', A, args, [bal(0, '89'), bal(5, '20')]),
      walletEntry('exchangePair', B, args, [bal(5, '78'), bal(0, '10')]),
      walletEntry('exchangeFee', C, args),
      walletEntry('exchangeFeePair', D, args),
    ]);
    const tx = decodeTransaction(POS, entries);
    // The calling side first, then the pair, then the fees (in entry order: D before C).
    expect(tx.activity).toEqual([
      { kind: 'other', jobType: 'exchange', key: A },
      { kind: 'other', jobType: 'exchangePair', key: B },
      { kind: 'other', jobType: 'exchangeFeePair', key: D },
      { kind: 'other', jobType: 'exchangeFee', key: C },
    ]);
    expect(unknownJobTypes(entries)).toEqual([]);
    expect(tx.summary).toEqual({ type: 'exchange', from: A, to: B, amount: '10', token: '0' });
    const view = (type: string) => describeEntry(entries.find((e) => e.type === type)!);
    expect(view('exchange')).toEqual({ summary: 'Exchange', from: A, to: B, amount: '10', tokenId: 0 });
    expect(view('exchangePair')).toEqual({ summary: 'Exchange', from: B, to: A, amount: '20', tokenId: 5 });
    expect(view('exchangeFee')).toEqual({ summary: 'Exchange fee', from: A, to: C, amount: '1', tokenId: 0 });
    expect(view('exchangeFeePair')).toEqual({ summary: 'Exchange fee', from: B, to: D, amount: '2', tokenId: 5 });
    expect(tx.writes.map((w) => w.kind)).toEqual(['wallet', 'wallet', 'wallet', 'wallet']);
  });

  it('reads an MRC-100 log from the parameters the bridge synthesises', () => {
    const key = 'GAMELOG-0001';
    const log = (token: number) => ({
      regdate: 1_700_000_000,
      token,
      logger: B,
      job_type: 'MRC100LOG',
      job_args: 'lvl',
    });
    // The entry's `token` is the game token (and "" for token 0: `values.token || ''`).
    const e12 = { ...entry('MRC100LOG', key, [key, 12, B, 'lvl', '', ''], log(12)), token: 12 };
    const e0 = entry('MRC100LOG', key, [key, 0, B, 'lvl', '', ''], log(0));
    expect(describeEntry(e12)).toEqual({ summary: 'MRC-100 log', from: B, to: '', amount: '0', tokenId: 12 });
    expect(describeEntry(e0).tokenId).toBe(0);
    const tx = decodeTransaction(POS, [e12]);
    expect(tx.activity).toEqual([{ kind: 'other', jobType: 'MRC100LOG', key }]);
    expect(tx.writes).toEqual([expect.objectContaining({ kind: 'other', key, values: log(12) })]);
  });

  it('reads MRC-100 payments: each player pays, the receiver gets the total of the user list', () => {
    const players = JSON.stringify([
      { address: A, amount: '3', memo: 'a', signature: 's', tkey: 'k' },
      { address: C, amount: '4', memo: 'c', signature: 's', tkey: 'k' },
    ]);
    const entries = nodeOrder([
      walletEntry('mrc100payment', A, [A, G, '3', '7', 's', '', 'tag', 'a', 'k']),
      walletEntry('mrc100payment', C, [C, G, '4', '7', 's', '', 'tag', 'c', 'k']),
      walletEntry('mrc100paymentrecv', G, [G, '7', 'tag', players, 'game-1', 'memo']),
    ]);
    expect(summarize(entries)).toEqual({ type: 'mrc100paymentrecv', from: '', to: G, amount: '7', token: '7' });
    expect(describeEntry(entries.find((e) => e.datakey === C)!)).toEqual({
      summary: 'MRC-100 payment',
      from: C,
      to: G,
      amount: '4',
      tokenId: 7,
    });
    expect(decodeTransaction(POS, entries).activity.map((a) => a.kind)).toEqual(['other', 'other', 'other']);
  });

  it('reads MRC-030 rewards: the payer pays the total, each address receives its part', () => {
    const list = JSON.stringify([
      { address: A, amount: '5', tag: '', memo: '' },
      { address: B, amount: '6', tag: '', memo: '' },
    ]);
    const entries = nodeOrder([
      walletEntry('mrc030reward', A, [G, A, '5', '7', 'sig', '', '', '', '']),
      walletEntry('mrc030reward', B, [G, B, '6', '7', 'sig', '', '', '', '']),
      walletEntry('mrc030payment', G, [G, '7', list, 'game-1', 'memo', 'sig', 'nonce']),
    ]);
    expect(summarize(entries)).toEqual({ type: 'mrc030payment', from: G, to: '', amount: '11', token: '7' });
    expect(describeEntry(entries.find((e) => e.datakey === B)!)).toEqual({
      summary: 'MRC-030 reward',
      from: G,
      to: B,
      amount: '6',
      tokenId: 7,
    });
  });

  it('keeps the token record written by the STO-DEX era settings', () => {
    const token = { id: '5', balance: 5, owner: A, name: 'Gem', symbol: 'GEM', totalsupply: '1000', basetoken: 0 };
    const setBase = entry('SetBase', 'TOKEN_DATA_5', ['5', '0', 'sig', 'nonce'], { ...token, job_type: 'SetBase' });
    const tx = decodeTransaction(POS, [setBase]);
    expect(tx.writes[0]).toMatchObject({ kind: 'token', key: 'TOKEN_DATA_5', token: { token: 5, owner: A } });
    expect(tx.activity).toEqual([{ kind: 'other', jobType: 'SetBase', key: 'TOKEN_DATA_5' }]);
    expect(tx.summary).toEqual({ type: 'SetBase', from: A, to: '', amount: '0', token: '5' });
    const logger = entry('tokenAddLogger', 'TOKEN_DATA_5', ['5', C, 'sig', 'nonce'], token);
    expect(describeEntry(logger)).toEqual({ summary: 'Token add logger', from: A, to: C, amount: '0', tokenId: 5 });
  });
});
