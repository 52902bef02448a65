import { ordNumber, sortedEntries, dataAssign } from '../../chaincode/util.ts';
import { perVersion } from './versions.ts';
import { MRC400 } from '@mtc/domain';
import { expectArgs, getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  getSigner,
  checkToken,
  getMrc400,
  guard,
  newMrc400Id,
  PARTNER_ROLES,
  setMrc400,
  unmarshalMapInto,
} from './chaincode.ts';
import { zeroCollection, type Mrc400Collection } from './records.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeSignature, fakeWords } from '../../jobs/client.ts';
import type { Call, Job, PlanContext } from '../../jobs/job.ts';
import { pickActiveWallet, pickOtherWallet } from '../../jobs/job.ts';
import { nftImageUrl } from '../../world/images.ts';
import { fakeCategory, fakeTitle, free, planner, pickCollection, slug } from './plan.ts';

/** The string fields of a collection that util.DataAssign sets. */
type TextField = Exclude<keyof Mrc400Collection, 'id' | 'createdate' | 'partner' | 'job_type' | 'job_args' | 'jobdate'>;

/** One util.DataAssign, as data: [field, argument, kind, min, max, allowEmpty, message]. */
type Assignment = readonly [TextField, string, 'address' | 'url' | 'text', number, number, boolean, string];

/** The assigns of a call, in the Go code's order; the first failing one names the error. */
function assignAll(c: Mrc400Collection, assignments: readonly Assignment[]): void {
  for (const [field, src, kind, min, max, allowEmpty, message] of assignments) {
    c[field] =
      guard(
        () => dataAssign(src, kind, min, max, allowEmpty),
        () => message,
      ) ?? c[field];
  }
}

const OWNER_MESSAGE = '3005,Data must be 1 to 4096 characters long';
const ALLOW_TOKEN_MESSAGE = '3005,AllowToken must be 1 to 128 characters long';

/**
 * CC-t's partner argument: unless "", its JSON is unmarshalled into the partner map, adding to the
 * partners already there (unmarshalMapInto); every partner of the result must be a wallet.
 */
function assignPartners(stub: Stub, c: Mrc400Collection, text: string): void {
  if (text === '') return;
  c.partner = guard(
    () => unmarshalMapInto(text, c.partner),
    (inner) => `3005,partner data value error : ${inner}`,
  );
  const partners = sortedEntries(c.partner);
  if (partners.length > 64) throw new ChaincodeError('3002,There must be 64 or fewer partner');
  partners.forEach(([address, permission], index) => {
    guard(
      () => getAddressInfo(stub, address),
      (inner) => `3005,${ordNumber(index)} partner item error : ${inner}`,
    );
    if (!PARTNER_ROLES.includes(permission)) {
      throw new ChaincodeError(`3005,${ordNumber(index)} partner item permission is partner or seller or creator`);
    }
  });
}

/**
 * `mrc400create` (`mrc400.go` Mrc400Create) → the collection written `mrc400_create` and the owner's
 * wallet `mrc400create`, both with [mrc400id, …call args]. CC-m: allowtoken "0" is MTC only. Quirk
 * kept: the record's own `id` is written "" (GetMRC400 fills it from the key when reading). CC-t:
 * allowtoken "" means "0", which CC-t reads as "any token".
 */
export const mrc400CreateJob: Job = {
  fcn: 'mrc400create',
  weight: 0.4,
  writes: [MRC400.create, MRC400.walletCreate],
  plan: planner((ctx, layout) => {
    const owner = ctx.world.wallet(pickActiveWallet(ctx));
    if (!owner || !free(ctx, owner.id)) return null;
    const { rng } = ctx;
    const name = fakeTitle(rng);
    const site = `https://${slug(name)}.devnet.example/`;
    const description = fakeWords(rng, 4, 20);
    const data = rng.chance(0.5) ? '' : JSON.stringify({ edition: fakeWords(rng, 1, 2), series: rng.int(1, 9) });
    const allowToken = planAllowToken(ctx, layout);
    if (layout === 'old') {
      const args = [
        owner.id,
        name,
        site,
        nftImageUrl(ctx),
        allowToken,
        fakeCategory(rng),
        description,
        `${site}items/`,
        nftImageUrl(ctx),
        data,
        fakeSignature(rng),
        owner.nonce,
      ];
      return { fcn: 'mrc400create', args };
    }
    const partners = planPartners(ctx, owner.id);
    if (partners === null) return null;
    return {
      fcn: 'mrc400create',
      args: [
        owner.id,
        name,
        site,
        nftImageUrl(ctx),
        allowToken,
        rng.chance(0.2) ? '' : `${site}items/`,
        rng.chance(0.2) ? '' : nftImageUrl(ctx),
        rng.chance(0.1) ? '' : fakeCategory(rng),
        description,
        planSocialMedia(ctx, name),
        partners,
        data,
        fakeSignature(rng),
        owner.nonce,
      ],
    };
  }),
  execute: perVersion({ 'v2.3': writeCCm(true), current: writeCCt(true) }),
};

/** CC-m's Mrc400Create and Mrc400Update: the fields, the allow token, then the owner's nonce. */
function writeCCm(create: boolean) {
  return (stub: Stub, args: readonly string[]): void => {
    const a = expectArgs(
      args,
      12,
      create
        ? '1000,mrc400create operation must include four arguments : owner, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, data, sign, tkey, args'
        : '1000,mrc400update operation must include four arguments : mrc400id, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, data, sign, tkey',
    );
    const c = create ? { ...zeroCollection(), createdate: stub.now } : getMrc400(stub, a[0]);
    const keep = !create;
    const max = create ? 256 : 255;
    const data = create ? 0 : 1;
    if (create) assignAll(c, [['owner', a[0], 'address', 40, 40, false, OWNER_MESSAGE]]);
    assignAll(c, [
      ['name', a[1], 'text', 1, 128, keep, '3005,Name must be 1 to 128 characters long'],
      [
        'url',
        a[2],
        create ? 'text' : 'url',
        1,
        create ? 1024 : 255,
        keep,
        '3005,Url must be 1 to 1024 characters long URL',
      ],
      ['image_url', a[3], 'url', 1, max, keep, '3005,ImageURL must be 1 to 1024 characters long URL'],
      ['category', a[5], 'text', 1, 64, keep, '3005,Category must be 1 to 64 characters long'],
      ['description', a[6], 'text', 1, 4096, keep, '3005,Description must be 1 to 4096 characters long'],
      ['item_url', a[7], 'url', 1, max, keep, '3005,ItemURL must be 1 to 1024 characters long URL'],
      ['item_image_url', a[8], 'url', 1, max, keep, '3005,ItemImageURL must be 1 to 1024 characters long URL'],
      ['allow_token', a[4], 'text', 1, 128, false, ALLOW_TOKEN_MESSAGE],
      ['data', a[9], 'text', data, 4096, keep, `3005,Data must be ${data} to 4096 characters long`],
    ]);
    checkToken(stub, a[4]);
    const signer = getSigner(stub, create ? a[0] : c.owner, a[11]);

    const id = create ? newMrc400Id(stub, [a[0], a[1], a[2], a[3], a[5], a[7], a[8], a[9], a[11]]) : a[0];
    const params = create ? [id, ...a.slice(0, 12)] : [id, c.owner, ...a.slice(1, 12)];
    setMrc400(stub, c, create ? MRC400.create : MRC400.update, params, id);
    setAddressInfo(stub, signer, create ? MRC400.walletCreate : MRC400.walletUpdate, params);
  };
}

/** CC-t's Mrc400Create and Mrc400Update: the signer's nonce, then the fields in the Go code's order. */
function writeCCt(create: boolean) {
  return (stub: Stub, args: readonly string[]): void => {
    const a = expectArgs(
      args,
      14,
      create
        ? '1000,mrc400create operation must include four arguments : owner, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, socialmedia, partner, data, sign, nonce'
        : '1000,mrc400update operation must include four arguments : mrc400id, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, socialmedia, partner, data, signature, nonce',
    );
    const c = create ? { ...zeroCollection(), createdate: stub.now, allow_token: '0' } : getMrc400(stub, a[0]);
    const signer = getSigner(stub, create ? a[0] : c.owner, a[13]);
    if (create) assignAll(c, [['owner', a[0], 'address', 40, 40, false, OWNER_MESSAGE]]);
    assignAll(c, [
      ['name', a[1], 'text', 1, 128, false, '3005,Name must be 1 to 128 characters long'],
      ['url', a[2], 'url', 1, 1024, false, '3005,Url must be 1 to 1024 characters long URL'],
      ['image_url', a[3], 'url', 1, 255, false, '3005,ImageURL must be 1 to 1024 characters long URL'],
    ]);
    if (a[4] === '') c.allow_token = '0';
    else {
      checkToken(stub, a[4]);
      assignAll(c, [['allow_token', a[4], 'text', 1, 128, false, ALLOW_TOKEN_MESSAGE]]);
    }
    const min = create ? 1 : 0;
    assignAll(c, [
      ['item_url', a[5], 'url', min, 255, create, '3005,ItemURL must be 1 to 1024 characters long URL'],
      ['item_image_url', a[6], 'url', min, 255, create, '3005,ItemImageURL must be 1 to 1024 characters long URL'],
      ['category', a[7], 'text', min, 64, create, '3005,Category must be 1 to 64 characters long'],
      ['description', a[8], 'text', min, 40960, create, '3005,Description must be 1 to 40960 characters long'],
      ['socialmedia', a[9], 'text', 0, 40960, create, '3005,SocialMedia must be 0 to 40960 characters long'],
    ]);
    assignPartners(stub, c, a[10]);
    assignAll(c, [['data', a[11], 'text', 0, 40960, false, '3005,Data must be 0 to 40960 characters long']]);

    if (create) c.id = newMrc400Id(stub, args);
    const params = [c.id, ...a.slice(0, 14)];
    setMrc400(stub, c, create ? MRC400.create : MRC400.update, params);
    setAddressInfo(stub, signer, create ? MRC400.walletCreate : MRC400.walletUpdate, params);
  };
}

/**
 * `mrc400update` (`mrc400.go` Mrc400Update) → the collection written `mrc400_update`, the owner's
 * wallet `mrc400update`; the owner cannot change. CC-m: the record gets its `id` written (GetMRC400
 * filled it). CC-t quirk kept: job_args are [mrc400id, …call args], so the id appears twice and the
 * owner not at all.
 */
export const mrc400UpdateJob: Job = {
  fcn: 'mrc400update',
  weight: 0.3,
  writes: [MRC400.update, MRC400.walletUpdate],
  plan: planner((ctx, layout) => {
    const c = pickCollection(ctx, (c) => free(ctx, c.owner));
    if (!c) return null;
    const owner = ctx.world.wallet(c.owner)!;
    return layout === 'old' ? planUpdateCCm(ctx, c, owner.nonce) : planUpdateCCt(ctx, c, owner.nonce);
  }),
  execute: perVersion({ 'v2.3': writeCCm(false), current: writeCCt(false) }),
};

function planUpdateCCm(ctx: PlanContext, c: Mrc400Collection, nonce: string): Call {
  const { rng } = ctx;
  const keep = () => rng.chance(0.6);
  return {
    fcn: 'mrc400update',
    args: [
      c.id,
      keep() ? '' : fakeTitle(rng),
      keep() ? '' : c.url,
      keep() ? '' : nftImageUrl(ctx),
      c.allow_token,
      keep() ? '' : fakeCategory(rng),
      keep() ? '' : fakeWords(rng, 4, 20),
      '',
      keep() ? '' : nftImageUrl(ctx),
      keep() ? '' : JSON.stringify({ edition: fakeWords(rng, 1, 2), series: rng.int(1, 9) }),
      fakeSignature(rng),
      nonce,
    ],
  };
}

function planUpdateCCt(ctx: PlanContext, c: Mrc400Collection, nonce: string): Call | null {
  const { rng } = ctx;
  const partners = rng.chance(0.7) ? '' : planPartners(ctx, c.owner);
  if (partners === null) return null;
  return {
    fcn: 'mrc400update',
    args: [
      c.id,
      rng.chance(0.7) ? c.name : fakeTitle(rng),
      c.url || `https://${slug(c.name)}.devnet.example/`,
      rng.chance(0.7) && c.image_url ? c.image_url : nftImageUrl(ctx),
      rng.chance(0.9) ? c.allow_token : '',
      c.item_url,
      rng.chance(0.8) ? c.item_image_url : nftImageUrl(ctx),
      c.category,
      rng.chance(0.5) ? c.description : fakeWords(rng, 4, 20),
      rng.chance(0.8) ? c.socialmedia : planSocialMedia(ctx, c.name),
      partners,
      c.data,
      fakeSignature(rng),
      nonce,
    ],
  };
}

/** CC-m: "0" (MTC only) or a token. CC-t: mostly "" or "0" (any token), sometimes one token. */
function planAllowToken(ctx: PlanContext, layout: 'old' | 'new'): string {
  const { rng, world } = ctx;
  if (rng.chance(0.75)) return layout === 'new' && rng.chance(0.4) ? '' : '0';
  return String(rng.pick(world.tokens));
}

/** "" or a few social links as JSON text (stored as given). */
function planSocialMedia(ctx: PlanContext, name: string): string {
  const { rng } = ctx;
  if (rng.chance(0.5)) return '';
  const site = slug(name);
  const links: Record<string, string> = { twitter: `https://twitter.devnet.example/${site}` };
  if (rng.chance(0.5)) links['discord'] = `https://discord.devnet.example/${site}`;
  return JSON.stringify(links);
}

/** The partner argument: mostly "", else JSON of one to three other wallets; null when one drawn is busy. */
function planPartners(ctx: PlanContext, owner: string): string | null {
  const { rng } = ctx;
  if (rng.chance(0.55)) return '';
  const partners: Record<string, string> = {};
  const exclude = new Set([owner]);
  for (let i = rng.int(1, 3); i > 0; i--) {
    const address = pickOtherWallet(ctx, exclude);
    if (address === null) return null;
    exclude.add(address);
    partners[address] = rng.pick(PARTNER_ROLES);
  }
  return JSON.stringify(partners);
}
