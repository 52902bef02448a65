import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mrc400CreateJob, mrc400UpdateJob } from './collection.ts';
import { attempt, nftWorld, nonceOf, NOW, params, run } from './testing.ts';

const md5 = (parts: readonly string[]) => createHash('md5').update(parts.join('|')).digest('hex');
const SITE = 'https://nebula.devnet.example/';
const IMAGE = 'http://127.0.0.1:20922/images/abcdefghijklmnop.png';
const ITEM_IMAGE = 'http://127.0.0.1:20922/images/qrstuvwxyzabcdef.jpg';

const CCM_FIELDS = [
  'id', 'owner', 'createdate', 'name', 'url', 'image_url', 'category', 'description', 'item_url', 'item_image_url',
  'data', 'allow_token', 'job_type', 'job_args', 'jobdate',
]; // prettier-ignore
const CCT_FIELDS = [
  'id', 'createdate', 'owner', 'name', 'url', 'image_url', 'allow_token', 'item_url', 'item_image_url', 'category',
  'description', 'socialmedia', 'partner', 'data', 'job_type', 'job_args', 'jobdate',
]; // prettier-ignore

/** CC-m call: owner, name, url, imageurl, allowtoken, category, description, itemurl, itemimageurl, data, sig, nonce. */
function oldCreate(w: ReturnType<typeof nftWorld>, allowToken = '0') {
  const args = [
    w.O,
    'Nebula',
    SITE,
    IMAGE,
    allowToken,
    'art',
    'a few words',
    `${SITE}items/`,
    ITEM_IMAGE,
    '',
    'c2ln',
    nonceOf(w.world, w.O),
  ];
  const keyArgs = [w.O, 'Nebula', SITE, IMAGE, 'art', `${SITE}items/`, ITEM_IMAGE, '', args[11]!];
  const id = `MRC400_${md5(keyArgs)}0`;
  return { args, id, fx: run(w.world, mrc400CreateJob, args, { version: 'v2.3' }) };
}

/** CC-t call: owner, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, socialmedia, partner, data, sig, nonce. */
function newCreate(w: ReturnType<typeof nftWorld>, partner: string, allowToken = '') {
  const args = [
    w.O, 'Nebula', SITE, IMAGE, allowToken, `${SITE}items/`, ITEM_IMAGE, 'art', 'a few words',
    '{"twitter":"https://twitter.devnet.example/nebula"}', partner, '{"series":1}', 'c2ln', nonceOf(w.world, w.O),
  ]; // prettier-ignore
  const id = `MRC400_${md5(args)}0`;
  return { args, id, fx: run(w.world, mrc400CreateJob, args) };
}

describe('mrc400create', () => {
  it('CC-m: writes the TMRC400 of 0e78fc1 with an empty id under GenerateKey of the key arguments, and the owner wallet', () => {
    const w = nftWorld();
    const { args, id, fx } = oldCreate(w);
    expect(fx.keys).toEqual([id, w.O].sort());
    const c = fx.record(id)!;
    expect(Object.keys(c)).toEqual(CCM_FIELDS);
    expect(c).toEqual({
      id: '',
      owner: w.O,
      createdate: NOW,
      name: 'Nebula',
      url: SITE,
      image_url: IMAGE,
      category: 'art',
      description: 'a few words',
      item_url: `${SITE}items/`,
      item_image_url: ITEM_IMAGE,
      data: '',
      allow_token: '0',
      job_type: 'mrc400_create',
      job_args: JSON.stringify([id, ...args]),
      jobdate: NOW,
    });
    expect(fx.wallet(w.O)).toMatchObject({ job_type: 'mrc400create', job_args: JSON.stringify([id, ...args]) });
    expect(fx.wallet(w.O)!.nonce).not.toBe(args[11]);
    // The planners' index reads the record with its id filled from the key, as GetMRC400 does.
    expect(w.world.mrc400.collections).toEqual([id]);
    expect(w.world.mrc400.collection(id)!.id).toBe(id);
  });

  it('CC-m: refuses an allow token that is not registered, and "" (allowtoken is required)', () => {
    const w = nftWorld();
    const args = [
      w.O,
      'Nebula',
      SITE,
      IMAGE,
      '7',
      'art',
      'words',
      `${SITE}items/`,
      ITEM_IMAGE,
      '',
      'c2ln',
      nonceOf(w.world, w.O),
    ];
    expect(() => attempt(w.world, mrc400CreateJob, args, { version: 'v2.3' })).toThrow(
      '3005,Token id 7 error : 4001,Token 7 not exists',
    );
    args[4] = '';
    expect(() => attempt(w.world, mrc400CreateJob, args, { version: 'v2.3' })).toThrow(
      '3005,AllowToken must be 1 to 128 characters long',
    );
  });

  it('CC-t: writes the TMRC400 of 569b17e under GenerateKey of every argument, partners sorted, allow token "" as "0"', () => {
    const w = nftWorld();
    const partner = JSON.stringify({ [w.P]: 'partner', [w.R]: 'seller' });
    const { args, id, fx } = newCreate(w, partner);
    const c = fx.record(id)!;
    expect(Object.keys(c)).toEqual(CCT_FIELDS);
    expect(c).toMatchObject({
      id,
      owner: w.O,
      allow_token: '0',
      category: 'art',
      socialmedia: '{"twitter":"https://twitter.devnet.example/nebula"}',
      data: '{"series":1}',
      job_type: 'mrc400_create',
    });
    // Go marshals a map with its keys sorted: R (MTpartner…) before P (MTplatform…).
    expect(Object.keys(c['partner'] as object)).toEqual([w.R, w.P]);
    expect(params(c)).toEqual([id, ...args]);
    expect(fx.wallet(w.O)).toMatchObject({ job_type: 'mrc400create', job_args: JSON.stringify([id, ...args]) });
  });

  it('CC-t: checks the nonce before any field, then each field and partner in order', () => {
    const w = nftWorld();
    const nonce = nonceOf(w.world, w.O);
    const base = [w.O, 'Nebula', SITE, IMAGE, '', '', '', '', '', '', '', '', 'c2ln', nonce];
    const call = (change: Record<number, string>) => {
      const args = [...base];
      for (const [i, v] of Object.entries(change)) args[Number(i)] = v;
      return () => attempt(w.world, mrc400CreateJob, args);
    };
    expect(call({ 1: '', 13: 'stale' })).toThrow(`1102,${w.O} nonce error`);
    expect(call({ 1: '' })).toThrow('3005,Name must be 1 to 128 characters long');
    // CC-m took any text as url; CC-t wants an http(s) URL.
    expect(call({ 2: 'nebula site' })).toThrow('3005,Url must be 1 to 1024 characters long URL');
    expect(call({ 10: JSON.stringify({ [w.R]: 'owner' }) })).toThrow(
      '3005,0th partner item permission is partner or seller or creator',
    );
    expect(call({ 10: '["not a map"]' })).toThrow(/^3005,partner data value error : /);
    expect(call({})).not.toThrow();
  });
});

describe('mrc400update', () => {
  it('CC-m: keeps fields given as "", writes the record with its id filled and job_args [id, owner, …]', () => {
    const w = nftWorld();
    const { id } = oldCreate(w);
    const args = [id, '', '', '', '1', 'music', '', '', '', 'edition 2', 'c2ln', nonceOf(w.world, w.O)];
    const fx = run(w.world, mrc400UpdateJob, args, { version: 'v2.3' });
    const c = fx.record(id)!;
    expect(Object.keys(c)).toEqual(CCM_FIELDS);
    expect(c).toMatchObject({ id, name: 'Nebula', url: SITE, category: 'music', allow_token: '1', data: 'edition 2' });
    expect(params(c)).toEqual([id, w.O, ...args.slice(1)]);
    expect(fx.wallet(w.O)!.job_type).toBe('mrc400update');
  });

  it('CC-t: adds partners to those there (Go unmarshals into the map), resets allow token "" to "0", puts the id twice in job_args', () => {
    const w = nftWorld();
    const { id } = newCreate(w, JSON.stringify({ [w.R]: 'seller' }), '1');
    expect(w.world.mrc400.collection(id)!.allow_token).toBe('1');
    const args = [
      id, 'Nebula II', SITE, IMAGE, '', '', ITEM_IMAGE, '', '', '', JSON.stringify({ [w.P]: 'creator' }), '',
      'c2ln', nonceOf(w.world, w.O),
    ]; // prettier-ignore
    const fx = run(w.world, mrc400UpdateJob, args);
    const c = fx.record(id)!;
    expect(c).toMatchObject({
      name: 'Nebula II',
      allow_token: '0',
      item_url: '',
      category: '',
      description: '',
      data: '',
    });
    expect(c['partner']).toEqual({ [w.R]: 'seller', [w.P]: 'creator' });
    expect(params(c)).toEqual([id, ...args]);
    expect(fx.wallet(w.O)!.job_args).toBe(JSON.stringify([id, ...args]));
  });

  it('rewrites a CC-m collection in the CC-t shape once the current chaincode updates it', () => {
    const w = nftWorld();
    const { id } = oldCreate(w);
    const args = [id, 'Nebula', SITE, IMAGE, '0', '', '', 'art', 'words', '', '', '', 'c2ln', nonceOf(w.world, w.O)];
    const c = run(w.world, mrc400UpdateJob, args).record(id)!;
    expect(Object.keys(c)).toEqual(CCT_FIELDS);
    expect(c).toMatchObject({ id, createdate: NOW, socialmedia: '', partner: null });
  });
});
