import { describe, expect, it } from 'vitest';
import { decodeTransaction, DecodeError, type TxPosition } from './decode.ts';
import { addressChecksum } from './ids.ts';
import type { RawEntry } from './node.ts';
import { chainPos } from './position.ts';

const addr = (seed: string): string => {
  const body = seed.padEnd(30, 'x').slice(0, 30);
  return `MT${body}${addressChecksum(body)}`;
};
const A = addr('Alice');
const B = addr('Bob');
const C = addr('Carol');
const TX = 'ab'.repeat(32);
const POS: TxPosition = { height: 7, index: 2, seq: 40, id: TX, timestamp: 1_700_000_000 };

function wallet(address: string, jobType: string, params: unknown[], balance: unknown[]): Record<string, unknown> {
  return {
    id: address,
    regdate: 1_690_000_000,
    addinfo: 'memo',
    job_type: jobType,
    job_args: JSON.stringify(params),
    jobdate: 1_700_000_000,
    balance,
    mrc010: null,
    mrc402: null,
    nonce: 'n'.repeat(40),
  };
}

function entry(
  type: string,
  datakey: string,
  parameters: RawEntry['parameters'],
  values: Record<string, unknown>,
  code = 0,
): RawEntry {
  return {
    timestamp: POS.timestamp,
    id: TX,
    parameters,
    token: '',
    type,
    values,
    validationCode: code,
    address: datakey.startsWith('MT') ? datakey : '',
    datakey,
    db_id: 'cd'.repeat(32),
    db_sn: '7',
  };
}

const bal = (token: number, balance: string, unlockdate = 0) => ({
  balance,
  token,
  unlockdate,
  saleamount: '',
  auctionamount: '0',
});

const tokenRecord = {
  id: '5',
  owner: A,
  symbol: 'GEM',
  name: 'Gem',
  createdate: 1_700_000_000,
  totalsupply: '1000',
  reservedamount: '1000',
  remainamount: '0',
  burnningamount: '0',
  softcap: '0',
  hardcap: '0',
  information: '',
  url: '',
  image: '',
  decimal: 2,
  reserve: [
    { address: A, value: '600', unlockdate: 0 },
    { address: B, value: '400', unlockdate: 1_800_000_000 },
  ],
  tier: [],
  status: 'normal',
  type: '010',
};

describe('decodeTransaction', () => {
  it('decodes a transfer once although it writes a transfer and a receive entry', () => {
    const p = [A, B, '250', '0', 'sig', '0', 'tag', 'hello', 'nonce'];
    // The node lists entries in reverse key order: the receive entry may come first.
    const tx = decodeTransaction(POS, [
      entry('receive', B, p, wallet(B, 'receive', p, [bal(0, '250')])),
      entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '750')])),
    ]);
    expect(tx.valid).toBe(true);
    expect(tx.summary).toEqual({ type: 'transfer', from: A, to: B, amount: '250', token: '0' });
    expect(tx.activity).toEqual([
      {
        kind: 'transfer',
        jobType: 'transfer',
        from: A,
        to: B,
        amount: '250',
        tokenId: 0,
        unlockdate: 0,
        tag: 'tag',
        memo: 'hello',
      },
    ]);
    expect(tx.writes.map((w) => [w.kind, w.key, w.pos])).toEqual([
      ['wallet', B, chainPos(7, 2, 0)],
      ['wallet', A, chainPos(7, 2, 1)],
    ]);
  });

  it('takes balances from the written values, normalising "" to "0"', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', 'nonce'];
    const tx = decodeTransaction(POS, [
      entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '99'), bal(5, '10', 1_800_000_000)])),
    ]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.balances).toEqual([
      { token: 0, balance: '99', unlockdate: 0, saleamount: '0', auctionamount: '0' },
      { token: 5, balance: '10', unlockdate: 1_800_000_000, saleamount: '0', auctionamount: '0' },
    ]);
  });

  it('decodes a multitransfer into one transfer per recipient and sums the summary amount', () => {
    const list = JSON.stringify([
      { address: B, amount: '3', unlockdate: '0', tag: '', memo: 'a' },
      { address: C, amount: '4', unlockdate: '0', tag: '', memo: 'b' },
    ]);
    const call = [A, list, '0', 'sig', 'nonce'];
    const rb = [A, B, '3', '0', 'sig', '0', '', 'a', 'nonce'];
    const rc = [A, C, '4', '0', 'sig', '0', '', 'b', 'nonce'];
    const tx = decodeTransaction(POS, [
      entry('receive', C, rc, wallet(C, 'receive', rc, [bal(0, '4')])),
      entry('receive', B, rb, wallet(B, 'receive', rb, [bal(0, '3')])),
      entry('multi_transfer', A, call, wallet(A, 'multi_transfer', call, [bal(0, '93')])),
    ]);
    expect(tx.summary).toEqual({ type: 'multi_transfer', from: A, to: B, amount: '7', token: '0' });
    expect(tx.activity.map((a) => a.kind === 'transfer' && [a.jobType, a.to, a.amount])).toEqual([
      ['multi_transfer', C, '4'],
      ['multi_transfer', B, '3'],
    ]);
    expect(tx.writes).toHaveLength(3);
  });

  it('decodes tokenRegister: object parameters, the id from the key, reserves with their locks', () => {
    // The bridge renames the record's `token` to `balance`: the id must come from TOKEN_DATA_<id>.
    const { ...values } = { ...tokenRecord, balance: 5, job_type: 'tokenRegister', job_args: '' };
    const tx = decodeTransaction(POS, [
      entry(
        'token_reserve',
        B,
        [A, B, '400', '5'],
        wallet(B, 'token_reserve', [A, B, '400', '5'], [bal(0, '0'), bal(5, '400', 1_800_000_000)]),
      ),
      entry(
        'token_reserve',
        A,
        [A, A, '600', '5'],
        wallet(A, 'token_reserve', [A, A, '600', '5'], [bal(0, '0'), bal(5, '600')]),
      ),
      entry('tokenRegister', 'TOKEN_DATA_5', { ...tokenRecord, token: 5 }, values),
    ]);
    expect(tx.summary).toEqual({ type: 'tokenRegister', from: A, to: '', amount: '1000', token: '5' });
    const token = tx.writes.find((w) => w.kind === 'token');
    expect(token?.kind === 'token' && token.token).toMatchObject({
      token: 5,
      id: '5',
      symbol: 'GEM',
      decimal: 2,
      totalsupply: '1000',
    });
    expect(tx.activity).toEqual(
      expect.arrayContaining([
        { kind: 'tokenCreate', tokenId: 5, owner: A, totalsupply: '1000' },
        { kind: 'tokenReserve', tokenId: 5, from: A, to: B, amount: '400', unlockdate: 1_800_000_000 },
        { kind: 'tokenReserve', tokenId: 5, from: A, to: A, amount: '600', unlockdate: 0 },
      ]),
    );
  });

  it('decodes tokenIncrease and tokenBurning with and without the memo argument', () => {
    const inc = decodeTransaction(POS, [
      entry('tokenIncrease', 'TOKEN_DATA_5', ['5', '50', 'more', 'sig', 'nonce'], {
        ...tokenRecord,
        totalsupply: '1050',
      }),
      entry(
        'ownerIncrease',
        A,
        ['5', '50', 'more', 'sig', 'nonce'],
        wallet(A, 'ownerIncrease', [], [bal(0, '0'), bal(5, '650')]),
      ),
    ]);
    expect(inc.summary).toEqual({ type: 'tokenIncrease', from: A, to: A, amount: '50', token: '5' });
    expect(inc.activity).toEqual([{ kind: 'tokenMint', tokenId: 5, owner: A, amount: '50', memo: 'more' }]);

    const burn = decodeTransaction(POS, [
      entry('tokenBurning', 'TOKEN_DATA_5', ['5', '20', 'sig', 'nonce'], { ...tokenRecord, burnningamount: '20' }),
      entry(
        'ownerBurning',
        A,
        ['5', '20', 'sig', 'nonce'],
        wallet(A, 'ownerBurning', [], [bal(0, '0'), bal(5, '580')]),
      ),
    ]);
    expect(burn.summary).toEqual({ type: 'tokenBurning', from: A, to: '', amount: '20', token: '5' });
    expect(burn.activity).toEqual([{ kind: 'tokenBurn', tokenId: 5, owner: A, amount: '20', memo: '' }]);
    const t = burn.writes.find((w) => w.kind === 'token');
    expect(t?.kind === 'token' && t.token.burnningamount).toBe('20');
  });

  it('decodes a new wallet', () => {
    const tx = decodeTransaction(POS, [
      entry('NewWallet', C, [C, 'PEM', 'hi'], wallet(C, 'NewWallet', [C, 'PEM', 'hi'], [bal(0, '0')])),
    ]);
    expect(tx.summary).toEqual({ type: 'NewWallet', from: '', to: C, amount: '0', token: '0' });
    expect(tx.activity).toEqual([{ kind: 'walletCreate', address: C }]);
  });

  it('keeps an invalid transaction listed but gives it no writes and no activity', () => {
    const p = [A, B, '5', '0', 'sig', '0', '', '', 'nonce'];
    const tx = decodeTransaction(POS, [
      entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '1')]), 11),
      entry('receive', B, p, wallet(B, 'receive', p, [bal(0, '5')]), 11),
    ]);
    expect(tx.valid).toBe(false);
    expect(tx.writes).toEqual([]);
    expect(tx.activity).toEqual([]);
    expect(tx.summary.type).toBe('transfer');
    expect(tx.entries).toHaveLength(2);
  });

  it('tolerates the lifecycle entry, which has no values, key or validation code', () => {
    const tx = decodeTransaction(POS, [
      {
        timestamp: POS.timestamp,
        id: TX,
        parameters: [],
        token: '',
        type: 'Chaincode Install or Update',
        db_id: 'cd'.repeat(32),
        db_sn: '7',
      },
    ]);
    expect(tx).toMatchObject({
      valid: true,
      writes: [],
      activity: [],
      summary: { type: 'Chaincode Install or Update' },
    });
  });

  it('keeps other records as written for projections to come', () => {
    const tx = decodeTransaction(POS, [
      entry('mrc402_create', `MRC402_${'a'.repeat(32)}0`, [], { id: 'x', totalsupply: '5' }),
    ]);
    expect(tx.writes[0]).toMatchObject({ kind: 'other', jobType: 'mrc402_create', values: { totalsupply: '5' } });
  });

  it('refuses a written balance that is not an integer rather than publish a wrong state', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', 'nonce'];
    expect(() => decodeTransaction(POS, [entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '1.5')]))])).toThrow(
      DecodeError,
    );
  });
});
