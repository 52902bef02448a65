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
