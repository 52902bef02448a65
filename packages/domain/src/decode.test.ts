import { describe, expect, it } from 'vitest';
import { decodeTransaction, DecodeError, describeEntry, summarize, unknownJobTypes } from './decode.ts';
import { addr, bal, entry, POS, TX, wallet, walletEntry } from './decode/fixtures.ts';
import { StateWrite } from './events.ts';
import type { RawEntry } from './node.ts';
import { chainPos } from './position.ts';

const A = addr('Alice');
const B = addr('Bob');
const C = addr('Carol');

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

  it('writes every amount in normal form, whether written so or padded, spaced or as a number', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', 'nonce'];
    const odd = [
      { ...bal(0, '007'), saleamount: ' 12 ', auctionamount: '-0' },
      { ...bal(5, '10'), saleamount: '-03', auctionamount: 4 },
      { ...bal(6, 0 as unknown as string), saleamount: '-7', auctionamount: '' },
    ];
    const tx = decodeTransaction(POS, [entry('transfer', A, p, wallet(A, 'transfer', p, odd))]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.balances).toEqual([
      { token: 0, balance: '7', unlockdate: 0, saleamount: '12', auctionamount: '0' },
      { token: 5, balance: '10', unlockdate: 0, saleamount: '-3', auctionamount: '4' },
      { token: 6, balance: '0', unlockdate: 0, saleamount: '-7', auctionamount: '0' },
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
        {
          kind: 'tokenCreate',
          jobType: 'tokenRegister',
          tokenId: 5,
          owner: A,
          totalsupply: '1000',
          name: 'Gem',
          symbol: 'GEM',
          decimal: 2,
        },
        {
          kind: 'tokenReserve',
          jobType: 'token_reserve',
          tokenId: 5,
          from: A,
          to: B,
          amount: '400',
          unlockdate: 1_800_000_000,
        },
        { kind: 'tokenReserve', jobType: 'token_reserve', tokenId: 5, from: A, to: A, amount: '600', unlockdate: 0 },
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
    expect(inc.activity).toEqual([
      { kind: 'tokenMint', jobType: 'tokenIncrease', tokenId: 5, owner: A, amount: '50', memo: 'more' },
    ]);

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
    expect(burn.activity).toEqual([
      { kind: 'tokenBurn', jobType: 'tokenBurning', tokenId: 5, owner: A, amount: '20', memo: '' },
    ]);
    const t = burn.writes.find((w) => w.kind === 'token');
    expect(t?.kind === 'token' && t.token.burnningamount).toBe('20');
  });

  it('decodes a new wallet', () => {
    const tx = decodeTransaction(POS, [
      entry('NewWallet', C, [C, 'PEM', 'hi'], wallet(C, 'NewWallet', [C, 'PEM', 'hi'], [bal(0, '0')])),
    ]);
    expect(tx.summary).toEqual({ type: 'NewWallet', from: '', to: C, amount: '0', token: '0' });
    expect(tx.activity).toEqual([{ kind: 'walletCreate', jobType: 'NewWallet', address: C }]);
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

  it('decodes NFT records by their key: collections and items in both chaincode shapes, MRC-402 with its quirky supply', () => {
    const collection = `MRC400_${'b'.repeat(32)}1`;
    const item = `${collection}_${'Z9'.repeat(20)}`;
    const mrc402 = `MRC402_${'a'.repeat(32)}0`;
    const tx = decodeTransaction(POS, [
      // A CC-m collection: no socialmedia, no partner.
      entry('mrc400_create', collection, [], { id: collection, owner: A, createdate: 1_690_000_000, name: 'Cats' }),
      // A CC-m item: no creator, shareholder or platform fields; ownership in the record.
      entry('mrc401_transfer', item, [], {
        id: item,
        mrc400: collection,
        owner: B,
        transferable: 'Bound',
        createdate: 7,
      }),
      // mrc402burn left totalsupply below zero: kept as written (metacoin-chain.md §7.3).
      entry('mrc402_burn', mrc402, [], {
        id: mrc402,
        creator: C,
        totalsupply: '-3',
        meltedamount: '5',
        shareholder: { [A]: '2.50' },
      }),
      entry('mrc402_sell', `DEX402_${'c'.repeat(32)}0`, [], { dexid: 'd', amount: '2' }),
    ]);
    expect(tx.writes).toEqual([
      expect.objectContaining({
        kind: 'nftCollection',
        key: collection,
        collection: expect.objectContaining({
          id: collection,
          owner: A,
          createdate: 1_690_000_000,
          name: 'Cats',
          socialmedia: '',
          partner: null,
        }) as unknown,
      }),
      expect.objectContaining({
        kind: 'nftItem',
        key: item,
        item: expect.objectContaining({
          id: item,
          mrc400: collection,
          owner: B,
          creator: '',
          transferable: 'Bound',
          createdate: 7,
          shareholder: null,
          platform_address: '',
        }) as unknown,
      }),
      expect.objectContaining({
        kind: 'mrc402',
        key: mrc402,
        mrc402: expect.objectContaining({
          creator: C,
          totalsupply: '-3',
          meltedamount: '5',
          shareholder: { [A]: '2.50' },
          initialreserve: null,
        }) as unknown,
      }),
      expect.objectContaining({ kind: 'other', jobType: 'mrc402_sell', values: { dexid: 'd', amount: '2' } }),
    ]);
    for (const w of tx.writes) expect(StateWrite.safeParse(w).error, w.key).toBeUndefined();
  });

  it('refuses a written balance that is not an integer rather than publish a wrong state', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', 'nonce'];
    expect(() => decodeTransaction(POS, [entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '1.5')]))])).toThrow(
      DecodeError,
    );
  });

  it('counts an unknown job type as generic activity and goes on with the rest of the transaction', () => {
    const p = [A, B, '5', '0', 'sig', '0', '', '', 'nonce'];
    const entries = [
      entry('mrc999_future', `MRC999_${'f'.repeat(32)}0`, ['x'], { job_type: 'mrc999_future', weird: true }),
      entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '1')])),
    ];
    const tx = decodeTransaction(POS, entries);
    expect(tx.activity).toEqual([
      expect.objectContaining({ kind: 'transfer', amount: '5' }),
      { kind: 'other', jobType: 'mrc999_future', key: `MRC999_${'f'.repeat(32)}0` },
    ]);
    expect(tx.writes.map((w) => w.kind)).toEqual(['other', 'wallet']);
    expect(unknownJobTypes(entries)).toEqual(['mrc999_future']);
    // Known and deliberately ignored types are not unknown.
    expect(unknownJobTypes([...entries, lifecycle()])).toEqual(['mrc999_future']);
  });

  it('summarises the main action whatever the entry order', () => {
    const p = [A, B, '250', '0', 'sig', '0', '', '', 'nonce'];
    const send = entry('transfer', A, p, wallet(A, 'transfer', p, [bal(0, '1')]));
    const recv = entry('receive', B, p, wallet(B, 'receive', p, [bal(0, '250')]));
    const unknown = entry('zzz_unknown', 'ZZZ_1', [], {});
    const expected = { type: 'transfer', from: A, to: B, amount: '250', token: '0' };
    expect(summarize([unknown, recv, send])).toEqual(expected);
    expect(summarize([send, recv, unknown])).toEqual(expected);
    // Only unknown entries: the first one, with what the entry itself says.
    expect(summarize([unknown])).toEqual({ type: 'zzz_unknown', from: '', to: '', amount: '0', token: '' });
    expect(summarize([])).toEqual({ type: '', from: '', to: '', amount: '0', token: '' });
  });

  it('reads wallets of every historical shape', () => {
    // Pre-2022-08: no id, nonce "", no mrc010/mrc402, 3-field balance entries; then {} and null maps.
    const legacy = {
      regdate: 1_500_000_000,
      addinfo: '',
      password: 'PEM',
      nonce: '',
      job_type: 'transfer',
      job_args: '[]',
      jobdate: 1_500_000_001,
      balance: [
        { balance: '70', token: 0, unlockdate: 0 },
        { balance: '3', token: '4', unlockdate: '1600000000' },
      ],
    };
    const p = [A, B, '1', '0', 'sig', '0', '', '', ''];
    const tx = decodeTransaction(POS, [
      entry('transfer', A, p, legacy),
      entry('receive', B, p, { ...legacy, mrc402: {} }),
      entry('receive', C, p, {
        ...legacy,
        mrc402: null,
        balance: undefined,
        token: [{ balance: '9', token: 0, unlockdate: 0 }],
      }),
    ]);
    const wallets = tx.writes.map((w) => (w.kind === 'wallet' ? w.wallet : null));
    expect(wallets[0]).toEqual({
      address: A,
      regdate: 1_500_000_000,
      addinfo: '',
      balances: [
        { token: 0, balance: '70', unlockdate: 0, saleamount: '0', auctionamount: '0' },
        { token: 4, balance: '3', unlockdate: 1_600_000_000, saleamount: '0', auctionamount: '0' },
      ],
      mrc402: null,
    });
    expect(wallets[1]?.mrc402).toEqual({});
    expect(wallets[2]?.balances).toEqual([
      { token: 0, balance: '9', unlockdate: 0, saleamount: '0', auctionamount: '0' },
    ]);
  });

  it('keeps MRC-402 holdings of a wallet, "" amounts read as 0', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', ''];
    const id = `MRC402_${'a'.repeat(32)}0`;
    const tx = decodeTransaction(POS, [
      entry('transfer', A, p, {
        ...wallet(A, 'transfer', p, []),
        mrc402: { [id]: { balance: '5', saleamount: '', auctionamount: '2' } },
      }),
    ]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.mrc402).toEqual({
      [id]: { balance: '5', saleamount: '0', auctionamount: '2' },
    });
  });

  it('writes a key once, from the last of its entries, when the bridge lists one key twice', () => {
    // A legacy exchange where the from-side also receives the to-side fee: the bridge adds a
    // second entry for the same key (BR parse_transaction).
    const args = [A, '10', '0', C, '1', '0', '', '', 'sf', B, '20', '5', A, '2', '5', '', '', 'st', 'nf', 'nt'];
    const wa = wallet(A, 'exchangeFeePair', args, [bal(0, '90'), bal(5, '22')]);
    const tx = decodeTransaction(POS, [
      entry('exchangeFeePair', A, args, wa),
      entry('exchange', A, args, wa),
      entry('exchangePair', B, args, wallet(B, 'exchangePair', args, [bal(5, '78'), bal(0, '10')])),
    ]);
    expect(tx.writes.map((w) => [w.key, w.pos, w.jobType])).toEqual([
      [A, chainPos(7, 2, 1), 'exchange'],
      [B, chainPos(7, 2, 2), 'exchangePair'],
    ]);
  });

  it('keeps an MRC-100 log as a record of its own even under a key that looks like an address', () => {
    const log = { regdate: 1_700_000_000, token: 12, logger: B, job_type: 'MRC100LOG', job_args: 'level 3' };
    const tx = decodeTransaction(POS, [{ ...entry('MRC100LOG', C, [C, 12, B, 'level 3', '', ''], log), token: 12 }]);
    expect(tx.writes).toEqual([{ kind: 'other', key: C, pos: chainPos(7, 2, 0), jobType: 'MRC100LOG', values: log }]);
  });

  it('keeps a negative escrow as written: mrc010unauction lowers saleamount it never raised', () => {
    // Auctioned 40 of token 5 (auctionamount 40); the cancel returns 40 to balance and takes 40 off
    // saleamount (CC-t mrc010SubtractSubBalance has no floor): 60 + (-40) + 40 = what A holds.
    const p = [`DEX010_${'a'.repeat(32)}0`, A, '40', '5', '', '0', 'sig', 'nonce'];
    const entryBal = { balance: '60', token: 5, unlockdate: 0, saleamount: '-40', auctionamount: '40' };
    const tx = decodeTransaction(POS, [entry('mrc010unauction', A, p, wallet(A, 'mrc010unauction', p, [entryBal]))]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.balances).toEqual([
      { token: 5, balance: '60', unlockdate: 0, saleamount: '-40', auctionamount: '40' },
    ]);
    expect(StateWrite.parse(w)).toEqual(w);
    // A negative spendable balance is not something the chaincode writes: refused.
    const neg = { ...entryBal, balance: '-1' };
    expect(() => decodeTransaction(POS, [entry('transfer', A, p, wallet(A, 'transfer', p, [neg]))])).toThrow(
      DecodeError,
    );
  });

  it('refuses a written balance entry that is not an object', () => {
    const p = [A, B, '1', '0', 'sig', '0', '', '', 'nonce'];
    expect(() => decodeTransaction(POS, [entry('transfer', A, p, wallet(A, 'transfer', p, [null]))])).toThrow(
      DecodeError,
    );
  });

  it('never throws on client input it cannot read', () => {
    const garbage: RawEntry['parameters'][] = [
      [],
      {},
      [null, 5, { a: 1 }, '-3', '1e5'],
      { owner: 5, totalsupply: 'x' },
    ];
    for (const type of [
      'transfer',
      'multi_transfer',
      'tokenRegister',
      'token_reserve',
      'mrc010_buy',
      'exchange',
      'MRC100LOG',
      'mrc100paymentrecv',
      'mrc010_auctionbid',
      'unknown',
    ]) {
      for (const parameters of garbage) {
        const e = entry(type, 'KEY', parameters, {});
        expect(() => describeEntry(e)).not.toThrow();
        expect(() => decodeTransaction(POS, [e])).not.toThrow();
        expect(describeEntry(e).amount).toMatch(/^(0|[1-9][0-9]*)$/);
      }
    }
  });

  it('describes an entry of an unknown type by its type', () => {
    expect(describeEntry(walletEntry('mrc777thing', A, ['x']))).toEqual({
      summary: 'mrc777thing',
      from: A,
      to: '',
      amount: '0',
      tokenId: null,
    });
  });
});

function lifecycle(): RawEntry {
  return {
    timestamp: POS.timestamp,
    id: TX,
    parameters: [],
    token: '',
    type: 'Chaincode Install or Update',
    db_id: 'cd'.repeat(32),
    db_sn: '7',
  };
}
