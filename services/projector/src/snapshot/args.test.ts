import { describe, expect, it } from 'vitest';
import { parseSnapshotArgs, snapshotFileName, UsageError } from './args.ts';

const MRC402 = `MRC402_${'a'.repeat(32)}1`;
const MRC400 = `MRC400_${'b'.repeat(32)}2`;

describe('parseSnapshotArgs', () => {
  it('reads a height, the subjects in the order given and the defaults', () => {
    expect(
      parseSnapshotArgs(['--height', '120', '--token', '3', '--all-tokens', '--nft', MRC402, '--nft', MRC400]),
    ).toEqual({
      height: 120,
      subjects: [
        { kind: 'token', token: 3 },
        { kind: 'allTokens' },
        { kind: 'nft', id: MRC402 },
        { kind: 'nft', id: MRC400 },
      ],
      format: 'csv',
      out: '.',
      keepStore: false,
    });
    expect(
      parseSnapshotArgs(['--height=7', '--token=0', '--format', 'ndjson', '--out', '/tmp/x', '--keep-store']),
    ).toMatchObject({
      height: 7,
      subjects: [{ kind: 'token', token: 0 }],
      format: 'ndjson',
      out: '/tmp/x',
      keepStore: true,
    });
  });

  it.each([
    [[], /--height is required/],
    [['--height', '0', '--all-tokens'], /--height must be a block height/],
    [['--height', '1.5', '--all-tokens'], /--height must be a block height/],
    [['--height', '-3', '--all-tokens'], /--height must be a block height|ambiguous|argument missing/i],
    [['--height', '10'], /say what to list/],
    [['--height', '10', '--token', 'x'], /--token must be a token id/],
    [['--height', '10', '--nft', `MRC400_${'b'.repeat(32)}2_${'c'.repeat(40)}`], /MRC-402 or an MRC-400 collection/],
    [['--height', '10', '--all-tokens', '--format', 'xml'], /--format must be csv or ndjson/],
    [['--height', '10', '--token', '1', '--token', '1'], /twice/],
    [['--height', '10', '--all-tokens', '--colour'], /Unknown option/],
    [['--height', '10', '--all-tokens', 'extra'], /positional/i],
  ])('refuses %j with one sentence', (argv, message) => {
    expect(() => parseSnapshotArgs(argv)).toThrow(UsageError);
    expect(() => parseSnapshotArgs(argv)).toThrow(message);
  });
});

describe('snapshotFileName', () => {
  it('names the file by subject, height and format', () => {
    expect(snapshotFileName({ height: 5, subject: { kind: 'token', token: 2 }, format: 'csv' })).toBe(
      'token-2-holders-at-5.csv',
    );
    expect(snapshotFileName({ height: 5, subject: { kind: 'allTokens' }, format: 'ndjson' })).toBe(
      'token-holders-at-5.ndjson',
    );
    expect(snapshotFileName({ height: 5, subject: { kind: 'nft', id: MRC402 }, format: 'csv' })).toBe(
      `nft-${MRC402}-holders-at-5.csv`,
    );
  });
});
