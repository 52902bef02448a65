import { ActivityKinds, chainPos, decodeTransaction, StateWrite, type ActivityEvent } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ContractViolation,
  decodeValue,
  KNOWN_ACTIVITY_KINDS,
  KNOWN_WRITE_KINDS,
  formatActivity,
  loadValidators,
  type SchemaValidators,
} from '../../examples/topic-consumer/consume.ts';

/**
 * The example consumer's handling of message values against the committed schemas, without a
 * Kafka (test/integration/topic-contract.int.test.ts runs it against a real one): it skips what a
 * newer producer may add — an activity or a state write of a kind it does not know — and stops at
 * anything else that breaks the contract.
 */
const A = 'MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA00000000';
const where = { topic: 'mtc.activity.v1', partition: 3, offset: '7', key: '0' };

function transferEvent(): ActivityEvent {
  const tx = decodeTransaction({ height: 9, index: 1, seq: 5, id: 'ab'.repeat(32), timestamp: 1_700_000_000 }, [
    {
      timestamp: 1_700_000_000,
      id: 'ab'.repeat(32),
      parameters: [A, A, '250', '0', 'sig', '0', '', '', 'nonce'],
      token: '',
      type: 'transfer',
      values: { regdate: 1, addinfo: '', balance: [] },
      validationCode: 0,
      address: A,
      datakey: A,
    },
  ]);
  const pos = chainPos(9, 1, 0);
  return {
    schemaVersion: 1,
    eventId: `activity:${pos}`,
    pos,
    height: 9,
    txId: tx.id,
    timestamp: tx.timestamp,
    activity: tx.activity[0]!,
  };
}

describe('example topic consumer: decodeValue', () => {
  let validators: SchemaValidators;
  beforeAll(async () => {
    validators = await loadValidators();
  });

  it('reads an activity of a known kind', () => {
    const event = transferEvent();
    const decoded = decodeValue(validators, 'activity', where, JSON.stringify(event));
    expect(decoded).toMatchObject({ kind: 'activity', value: { pos: event.pos, activity: { kind: 'transfer' } } });
    expect(decoded.kind === 'activity' && formatActivity(decoded.value)).toBe(
      `activity ${event.pos}  transfer [0] MTAAAAAAAA…→MTAAAAAAAA… 250`,
    );
  });

  it('skips an activity of a kind it does not know, without error', () => {
    const future = { ...transferEvent(), activity: { kind: 'someFutureKind', jobType: 'mrc999x', anything: [1] } };
    expect(decodeValue(validators, 'activity', where, JSON.stringify(future))).toEqual({
      ...where,
      kind: 'skipped',
      reason: 'activity kind someFutureKind',
    });
  });

  it('stops at an activity of a known kind that does not match its schema', () => {
    const broken = { ...transferEvent(), activity: { kind: 'transfer', jobType: 'transfer', amount: '1.5' } };
    expect(() => decodeValue(validators, 'activity', where, JSON.stringify(broken))).toThrow(ContractViolation);
    expect(() => decodeValue(validators, 'activity', where, '{"truncated"')).toThrow(/not JSON/);
  });

  it('skips a state write of a kind it does not know, and validates the known ones', () => {
    const state = {
      schemaVersion: 1,
      eventId: `state:${chainPos(9, 1, 0)}`,
      height: 9,
      txId: 'ab'.repeat(32),
      write: { kind: 'nft', key: 'MRC402_x', pos: chainPos(9, 1, 0), jobType: 'mrc402_create', holders: {} },
    };
    const at = { ...where, topic: 'mtc.state.v1' };
    expect(decodeValue(validators, 'state', at, JSON.stringify(state))).toMatchObject({ kind: 'skipped' });
    const { holders: _, ...rest } = state.write;
    const other = { ...state, write: { ...rest, kind: 'other', values: {} } };
    expect(decodeValue(validators, 'state', at, JSON.stringify(other))).toMatchObject({ kind: 'state' });
    const bad = { ...state, write: { ...state.write, kind: 'wallet' } };
    expect(() => decodeValue(validators, 'state', at, JSON.stringify(bad))).toThrow(ContractViolation);
  });
});

describe('example topic consumer: the kinds it knows', () => {
  // The example is the contract's reference reader: it must know every kind the producer emits, or
  // it would skip (and never check) messages of this version as if they came from a newer one.
  it('knows every activity kind and state-write kind of the current contract', () => {
    expect([...KNOWN_ACTIVITY_KINDS].sort()).toEqual([...ActivityKinds].sort());
    const writeKinds = StateWrite.options.map((o) => o.shape.kind.value);
    expect([...KNOWN_WRITE_KINDS].sort()).toEqual([...writeKinds].sort());
  });
});
