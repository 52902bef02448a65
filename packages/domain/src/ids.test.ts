import { describe, expect, it } from 'vitest';
import {
  Address,
  addressChecksum,
  BlockHeight,
  isAddress,
  Mrc401Id,
  parseNftId,
  TokenId,
  TxHash,
  tokenIdFromDatakey,
} from './ids.ts';

describe('isAddress', () => {
  it('accepts real chain addresses whose CRC-32 matches', () => {
    // From the node's own source comments and the public docs (address CRCs verified there).
    expect(isAddress('MTW95PhgJazSd8DLjkrQc7L4KQCI9GrU94d292b5')).toBe(true);
    expect(isAddress('MT4FzIQCgRh0T1YD841OxjNd3dkfTJcEd41d17d3')).toBe(true);
    expect(isAddress('MTA6SGKE8RU0TTCBPoDRfULnXL5lr4SLece1a6ee')).toBe(true);
  });

  it('rejects the documented example whose checksum is wrong', () => {
    expect(isAddress('MTATLnT6SGKE8RU0CBPoDRfUXL5lr4SLece1a6ee')).toBe(false);
  });

  it('rejects wrong prefix, length, upper-case checksum and non-alphanumerics', () => {
    const body = 'W95PhgJazSd8DLjkrQc7L4KQCI9GrU';
    expect(isAddress(`MT${body}${addressChecksum(body)}`)).toBe(true);
    expect(isAddress(`MX${body}${addressChecksum(body)}`)).toBe(false);
    expect(isAddress(`MT${body}${addressChecksum(body).toUpperCase()}`)).toBe(false);
    expect(isAddress(`MT${body.slice(1)}-${addressChecksum(body)}`)).toBe(false);
    expect(isAddress(`MT${body}${addressChecksum(body)}0`)).toBe(false);
  });

  it('brands through the zod schema with a readable message', () => {
    const r = Address.safeParse('MTnope');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/Metacoin address/);
  });
});

describe('TxHash / BlockHeight / TokenId', () => {
  it('accepts 64 lower-case hex and rejects other lengths or cases', () => {
    expect(TxHash.safeParse('a'.repeat(64)).success).toBe(true);
    expect(TxHash.safeParse('A'.repeat(64)).success).toBe(false);
    expect(TxHash.safeParse('a'.repeat(63)).success).toBe(false);
  });

  it('parses decimal heights from strings and rejects zero, signs and leading zeros', () => {
    expect(BlockHeight.parse('42')).toBe(42);
    expect(BlockHeight.safeParse('0').success).toBe(false);
    expect(BlockHeight.safeParse('-1').success).toBe(false);
    expect(BlockHeight.safeParse('012').success).toBe(false);
    expect(BlockHeight.safeParse('1e3').success).toBe(false);
  });

  it('accepts token id 0 (the native coin)', () => {
    expect(TokenId.parse('0')).toBe(0);
    expect(TokenId.safeParse('abc').success).toBe(false);
  });
});

describe('NFT ids', () => {
  const mrc400 = `MRC400_${'0123456789abcdef'.repeat(2)}0`;
  it('classifies MRC-400, MRC-401 and MRC-402 ids by form', () => {
    expect(parseNftId(mrc400)?.protocol).toBe('MRC400');
    expect(parseNftId(`${mrc400}_${'Item42'.repeat(6)}Item`)?.protocol).toBe('MRC401');
    // The chaincode takes exactly 40 letters or digits as an item id (DataAssign "id", 40, 40).
    expect(parseNftId(`${mrc400}_Item42`)).toBeNull();
    expect(parseNftId(`${mrc400}_${'a'.repeat(41)}`)).toBeNull();
    expect(parseNftId(`MRC402_${'f'.repeat(32)}1`)?.protocol).toBe('MRC402');
    expect(parseNftId('MRC402_short')).toBeNull();
    expect(Mrc401Id.safeParse(`${mrc400}_bad-item`).success).toBe(false);
  });

  it('reads the token id from a TOKEN_DATA key only', () => {
    expect(tokenIdFromDatakey('TOKEN_DATA_0')).toBe(0);
    expect(tokenIdFromDatakey('TOKEN_DATA_2233')).toBe(2233);
    expect(tokenIdFromDatakey('TOKEN_MAX_NO')).toBeNull();
    expect(tokenIdFromDatakey('TOKEN_DATA_01')).toBeNull();
  });
});
