import { RawTransaction } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import { lifecycleEntries, txEntries } from './entries.ts';

const BLOCK = { hash: 'b'.repeat(64), sn: '12' };
const TX = 'a'.repeat(64);
const ADDR_A = 'MTW95PhgJazSd8DLjkrQc7L4KQCI9GrU94d292b5';
const ADDR_B = 'MTA6SGKE8RU0TTCBPoDRfULnXL5lr4SLece1a6ee';

const wallet = (id: string, jobType: string) => ({
  id,
  balance: [{ balance: '1', token: 0, unlockdate: 0, saleamount: '', auctionamount: '' }],
  job_type: jobType,
  job_args: JSON.stringify([ADDR_A, ADDR_B, '1', '0']),
  nonce: 'n',
});

const token = { id: '3', owner: ADDR_A, token: 3, name: 'T', job_type: 'tokenIncrease', job_args: '["3","1"]' };

describe('txEntries', () => {
  it('emits entries in reverse key order with the node field order', () => {
    const entries = txEntries(
      {
        id: TX,
        timestamp: 5,
        validationCode: 0,
        writes: [
          { key: ADDR_B, value: wallet(ADDR_B, 'receive') },
          { key: ADDR_A, value: wallet(ADDR_A, 'transfer') },
          { key: 'TOKEN_DATA_3', value: token },
        ].sort((x, y) => (x.key < y.key ? -1 : 1)),
      },
      BLOCK,
    );
    expect(entries.map((e) => e.datakey)).toEqual(['TOKEN_DATA_3', ADDR_A, ADDR_B]); // MTW… > MTA…
    expect(Object.keys(entries[0]!)).toEqual([
      'timestamp',
      'id',
      'parameters',
      'token',
      'type',
      'values',
      'validationCode',
      'address',
      'datakey',
      'db_id',
      'db_sn',
    ]);
    expect(RawTransaction.parse(entries)).toHaveLength(3);
  });

  it('renames a token record\'s `token` to `balance`, so the entry token is ""', () => {
    const [entry] = txEntries(
      { id: TX, timestamp: 5, validationCode: 0, writes: [{ key: 'TOKEN_DATA_3', value: token }] },
      BLOCK,
    );
    expect(entry!.token).toBe('');
    expect(entry!.values).not.toHaveProperty('token');
    expect(entry!.values).toMatchObject({ balance: 3, id: '3' });
    expect(Object.keys(entry!.values!).at(-1)).toBe('balance');
    expect(entry!.address).toBe('');
    expect(entry!.parameters).toEqual(['3', '1']);
  });

  it('stamps valid wallet entries of listed job types with tx_id, db_sn and db_id, last', () => {
    const [entry] = txEntries(
      { id: TX, timestamp: 5, validationCode: 0, writes: [{ key: ADDR_A, value: wallet(ADDR_A, 'transfer') }] },
      BLOCK,
    );
    expect(Object.keys(entry!.values!).slice(-3)).toEqual(['tx_id', 'db_sn', 'db_id']);
    expect(entry!.values).toMatchObject({ tx_id: TX, db_sn: '12', db_id: BLOCK.hash });
    expect(entry!.address).toBe(ADDR_A);
  });

  it('leaves owner entries and invalid transactions unstamped', () => {
    const owner = txEntries(
      { id: TX, timestamp: 5, validationCode: 0, writes: [{ key: ADDR_A, value: wallet(ADDR_A, 'ownerIncrease') }] },
      BLOCK,
    );
    const failed = txEntries(
      { id: TX, timestamp: 5, validationCode: 11, writes: [{ key: ADDR_A, value: wallet(ADDR_A, 'transfer') }] },
      BLOCK,
    );
    expect(owner[0]!.values).not.toHaveProperty('tx_id');
    expect(failed[0]!.values).not.toHaveProperty('tx_id');
    expect(failed[0]!.validationCode).toBe(11);
  });

  it('skips writes without job_args, such as TOKEN_MAX_NO', () => {
    const entries = txEntries(
      {
        id: TX,
        timestamp: 5,
        validationCode: 0,
        writes: [
          { key: 'TOKEN_DATA_3', value: token },
          { key: 'TOKEN_MAX_NO', value: '3' },
        ],
      },
      BLOCK,
    );
    expect(entries.map((e) => e.datakey)).toEqual(['TOKEN_DATA_3']);
  });
});

describe("txEntries: the bridge's special cases", () => {
  const ADDR_C = 'MT4FzIQCgRh0T1YD841OxjNd3dkfTJcEd41d17d3';
  const ADDR_D = 'MTLhcZ9BZnnm4CgUCOx40xThbPSnBonG3d699275';
  /** exchange's 20 job_args with the parties and fee receivers at p[0], p[3], p[9], p[12]. */
  const exchangeArgs = (from: string, fromFee: string, to: string, toFee: string) =>
    JSON.stringify([
      from,
      '5',
      '0',
      fromFee,
      '1',
      '0',
      '',
      '',
      's',
      to,
      '7',
      '3',
      toFee,
      '1',
      '3',
      '',
      '',
      's',
      'n1',
      'n2',
    ]);
  const exchangeWrite = (key: string, jobType: string, args: string) => ({
    key,
    value: {
      regdate: 1,
      password: 'p',
      addinfo: '',
      job_type: jobType,
      job_args: args,
      jobdate: 2,
      balance: [],
      pending: null,
      nonce: 'x',
    },
  });
  const entriesOf = (writes: { key: string; value: object }[]) =>
    txEntries(
      { id: TX, timestamp: 5, validationCode: 0, writes: [...writes].sort((x, y) => (x.key < y.key ? -1 : 1)) },
      BLOCK,
    );

  it('synthesises MRC100LOG parameters as [key, token, logger, log, "", ""] and keeps its integer token', () => {
    const key = 'MRC100_7_1600000000_0123456789abcdef0123456789abcdef';
    const record = { regdate: 9, token: 7, logger: ADDR_A, job_type: 'MRC100LOG', job_args: 'level 3 cleared' };
    const [entry] = entriesOf([{ key, value: record }]);
    expect(entry).toMatchObject({
      parameters: [key, 7, ADDR_A, 'level 3 cleared', '', ''],
      token: 7,
      type: 'MRC100LOG',
      address: '',
      datakey: key,
    });
    // No token → balance rename on this branch: values keep `token`, untouched.
    expect(entry!.values).toEqual(record);
  });

  it('gives an MRC100LOG of token 0 the token ""', () => {
    const record = { regdate: 9, token: 0, logger: ADDR_A, job_type: 'MRC100LOG', job_args: 'x' };
    expect(entriesOf([{ key: 'MRC100_0_1_ab', value: record }])[0]!.token).toBe('');
  });

  it('adds a second exchangePair entry, address "", when to (p[9]) took the from fee (p[3])', () => {
    const args = exchangeArgs(ADDR_A, ADDR_B, ADDR_B, '');
    const entries = entriesOf([exchangeWrite(ADDR_A, 'exchange', args), exchangeWrite(ADDR_B, 'exchangeFee', args)]);
    expect(entries.map((e) => [e.datakey, e.type, e.address])).toEqual([
      [ADDR_A, 'exchange', ADDR_A],
      [ADDR_B, 'exchangeFee', ADDR_B],
      [ADDR_B, 'exchangePair', ''],
    ]);
    expect(entries[2]!.values).toEqual(entries[1]!.values);
    expect(entries[2]!.parameters).toEqual(entries[1]!.parameters);
  });

  it('adds a second exchangeFee entry when one receiver took both fees (p[3] = p[12])', () => {
    const args = exchangeArgs(ADDR_A, ADDR_C, ADDR_B, ADDR_C);
    const entries = entriesOf([
      exchangeWrite(ADDR_A, 'exchange', args),
      exchangeWrite(ADDR_B, 'exchangePair', args),
      exchangeWrite(ADDR_C, 'exchangeFeePair', args),
    ]);
    expect(entries.filter((e) => e.datakey === ADDR_C).map((e) => [e.type, e.address])).toEqual([
      ['exchangeFeePair', ADDR_C],
      ['exchangeFee', ''],
    ]);
    expect(entries).toHaveLength(4);
  });

  it("adds an exchange entry on the to side's key when from (p[0]) took the to fee (p[12])", () => {
    const args = exchangeArgs(ADDR_A, ADDR_D, ADDR_B, ADDR_A);
    const entries = entriesOf([
      exchangeWrite(ADDR_A, 'exchangeFeePair', args),
      exchangeWrite(ADDR_B, 'exchangePair', args),
      exchangeWrite(ADDR_D, 'exchangeFee', args),
    ]);
    expect(entries.filter((e) => e.datakey === ADDR_B).map((e) => [e.type, e.address])).toEqual([
      ['exchangePair', ADDR_B],
      ['exchange', ''],
    ]);
    expect(entries.filter((e) => e.datakey === ADDR_A).map((e) => e.type)).toEqual(['exchangeFeePair']);
  });

  it('adds nothing when every role has its own key', () => {
    const args = exchangeArgs(ADDR_A, ADDR_C, ADDR_B, ADDR_D);
    const entries = entriesOf([
      exchangeWrite(ADDR_A, 'exchange', args),
      exchangeWrite(ADDR_B, 'exchangePair', args),
      exchangeWrite(ADDR_C, 'exchangeFee', args),
      exchangeWrite(ADDR_D, 'exchangeFeePair', args),
    ]);
    expect(entries.map((e) => e.type).sort()).toEqual(['exchange', 'exchangeFee', 'exchangeFeePair', 'exchangePair']);
  });

  it("renames a legacy wallet's `token` list to `balance`, last", () => {
    const list = [{ balance: '5', token: 0, unlockdate: 0 }];
    const value = {
      regdate: 1,
      password: 'p',
      addinfo: '',
      job_type: 'receive',
      job_args: '[]',
      jobdate: 2,
      token: list,
      pending: null,
    };
    const [entry] = entriesOf([{ key: ADDR_A, value }]);
    expect(Object.keys(entry!.values!).slice(-4)).toEqual(['balance', 'tx_id', 'db_sn', 'db_id']);
    expect(entry!.values!.balance).toEqual(list);
    expect(entry!.values).not.toHaveProperty('token');
  });

  it('serves an MRC020_MT… record with parameters [] and its public key blanked while unopened', () => {
    const key = `MRC020_${ADDR_A}_ref1`;
    const record = {
      owner: ADDR_A,
      data: 'x',
      createdate: 1,
      opendate: 9,
      publickey: 'PEM',
      algorithm: 'a',
      referencekey: 'ref1',
      is_open: 0,
      job_type: 'MRC020',
      jobdate: 1,
      type: '',
    };
    const [entry] = entriesOf([{ key, value: record }]);
    expect(entry).toMatchObject({ parameters: [], type: 'MRC020', address: '' });
    expect(entry!.values).toMatchObject({ publickey: '' });
    const [open] = entriesOf([{ key, value: { ...record, is_open: 1 } }]);
    expect(open!.values).toMatchObject({ publickey: 'PEM' });
  });
});

describe('lifecycleEntries', () => {
  it('has only timestamp, id, parameters, token, type, db_id and db_sn', () => {
    const entries = lifecycleEntries(TX, 9, BLOCK);
    expect(entries).toEqual([
      {
        timestamp: 9,
        id: TX,
        parameters: [],
        token: '',
        type: 'Chaincode Install or Update',
        db_id: BLOCK.hash,
        db_sn: '12',
      },
    ]);
    expect(RawTransaction.parse(entries)).toHaveLength(1);
  });
});
