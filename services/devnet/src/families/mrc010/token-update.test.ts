import { describe, expect, it } from 'vitest';
import type { Mrc010Token } from './records.ts';
import { attempt, dexWorld, NOW, nonceOf, run } from '../dex010/testing.ts';
import { tokenUpdateJob } from './token-update.ts';

describe('tokenUpdate', () => {
  it('replaces url and information, keeps the image for an empty argument, and writes only the token', () => {
    const { world, A } = dexWorld();
    const args = ['1', 'https://gold.example/v2', 'new words', '', 'c2ln', nonceOf(world, A)];
    const fx = run(world, tokenUpdateJob, args, NOW + 1);
    expect(fx.keys).toEqual(['TOKEN_DATA_1']);
    const token = world.token(1)!;
    expect(token).toMatchObject({
      url: 'https://gold.example/v2',
      information: 'new words',
      image: 'data:image/png;base64,AAAA',
      job_type: 'tokenUpdate',
      job_args: JSON.stringify(args),
      jobdate: NOW + 1,
    });
    // The owner's nonce was checked on a copy that is never saved: it stays valid.
    expect(nonceOf(world, A)).toBe(args[5]);
  });

  it('replaces the image when one is given', () => {
    const { world, A } = dexWorld();
    const token = world.token(1)!;
    run(world, tokenUpdateJob, [
      '1',
      token.url,
      token.information,
      'data:image/png;base64,BBBB',
      's',
      nonceOf(world, A),
    ]);
    expect((world.get('TOKEN_DATA_1') as Mrc010Token).image).toBe('data:image/png;base64,BBBB');
  });

  it('rejects a call that changes nothing and one with a stale nonce', () => {
    const { world, A } = dexWorld();
    const token = world.token(1)!;
    expect(() =>
      attempt(world, tokenUpdateJob, ['1', token.url, token.information, '', 's', nonceOf(world, A)]),
    ).toThrow(/^4900,/);
    expect(() => attempt(world, tokenUpdateJob, ['1', 'https://x.example/', '', '', 's', 'stale'])).toThrow(/^1102,/);
  });
});
