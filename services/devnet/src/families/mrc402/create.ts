import { ordNumber, sortedEntries, dataAssign, numericDataCheck } from '../../chaincode/util.ts';
import { MRC402 } from '@mtc/domain';
import {
  expectArgs,
  getAddressInfo,
  nonceCheck,
  parseInt64,
  parsePositive,
  setAddressInfo,
} from '../../chaincode/base.ts';
import { mrc010Subtract, spendable, spendableTokens } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { forEachReserve, getMrc402, iso3166Check, setMrc402 } from './chaincode.ts';
import { newGeneratedId, prefixed } from '../dex/order-record.ts';
import type { Rng } from '../../rng.ts';
import { nftImageUrl } from '../../world/images.ts';
import { keepsGoOrder, MRC402_PREFIX, newMrc402, withHolding, type Mrc402Token } from './records.ts';
import { capitalise, fakeSignature, fakeWords } from '../../jobs/client.ts';
import type { Wallet } from '../mrc010/records.ts';
import type { Job, PlanContext } from '../../jobs/job.ts';
import { pickOtherWallet } from '../../jobs/job.ts';
import { pickFundedWallet } from '../mrc010/plan.ts';
import { creatorWallet, pickMrc402, planPercent } from './plan.ts';

/** The largest totalsupply the chaincode accepts (create and mint). */
export const MAX_SUPPLY = 99_999_999n;

/**
 * `mrc402create` (creator, name, creatorcommission, totalsupply, decimal, url, imageurl, shareholder
 * JSON, initialreserve JSON, expiredate, data, information, socialmedia, crCountry, crRegistrar,
 * crNumber, sig, nonce) → a new `MRC402_…` record written `mrc402_create` and the creator
 * `mrc402create`, both [id, …the 18 call args] (CC-t `mrc402.go` Mrc402Create). The creator holds the
 * whole supply ({totalsupply, "0", "0"}) and pays, per reserve token, totalsupply × its per-unit amount
 * (MRC010Subtract). The nonce is checked before any value; shareholders and reserves are kept as sent.
 * Quirk kept: an `expiredate` of "" is refused (Strtoint64), a negative one never blocks melting.
 */
export const mrc402CreateJob: Job = {
  fcn: 'mrc402create',
  weight: 0.5,
  writes: [MRC402.create, MRC402.walletCreate],
  plan(ctx) {
    const { rng, now } = ctx;
    const funded = pickFundedWallet(ctx);
    if (!funded) return null;
    const creator = funded.wallet;
    const supply = planSupply(rng);
    const reserve = planReserve(ctx, creator, supply, funded.token, funded.available);
    const name = `${capitalise(fakeWords(rng, 1, 2))} ${rng.pick(['Pass', 'Edition', 'Ticket', 'Badge', 'Card', 'Share'])}`;
    const slug = name.toLowerCase().replace(/ /g, '-');
    const country = rng.chance(0.35) ? rng.pick(COUNTRIES) : '';
    return {
      fcn: 'mrc402create',
      args: [
        creator.id,
        name,
        planPercent(rng),
        supply.toString(),
        '0',
        `https://nft.devnet.example/mrc402/${slug}-${rng.int(1, 99_999)}`,
        nftImageUrl(ctx),
        planShareholders(ctx, creator.id),
        reserve,
        planExpiry(rng, now),
        rng.chance(0.5) ? '' : JSON.stringify({ edition: String(rng.int(1, 12)), series: fakeWords(rng, 1, 1) }),
        rng.chance(0.3) ? '' : fakeWords(rng, 3, 12),
        rng.chance(0.6) ? '' : JSON.stringify({ twitter: `https://twitter.com/${slug.replace(/-/g, '_')}` }),
        country,
        country !== '' && rng.chance(0.7) ? `${rng.pick(['National', 'Civic', 'Open'])} Copyright Office` : '',
        country !== '' && rng.chance(0.6)
          ? `C-${rng.int(2015, 2023)}-${String(rng.int(1, 999_999)).padStart(6, '0')}`
          : '',
        fakeSignature(rng),
        creator.nonce,
      ],
    };
  },
  execute(stub, { args }) {
    const a = expectArgs(
      args,
      18,
      '1000,mrc402create operation must include four arguments : creator, name, creatorcommission, totalsupply, decimal, url, imageurl, shareholder, initialreserve, expiredate, data, information, socialmedia, copyright_registration_country, copyright_registrar, copyright_registration_number, signature, nonce',
    );
    const token = newMrc402({ meltedamount: '0', jobdate: stub.now });
    token.creator =
      prefixed('3005,Name must be 1 to 128 characters long', () => dataAssign(a[0], 'text', 1, 128, true), true) ?? '';
    const creator = getAddressInfo(stub, token.creator);
    nonceCheck(stub, creator, a[17]);
    assignText(token, 'name', a[1], 1, 128, '3005,Name value error : ', false);
    token.creatorcommission =
      prefixed('3005,Creatorcommission value error : ', () => numericDataCheck(a[2], '0', '10.0', 2, false)) ?? '';
    token.totalsupply =
      prefixed('3005,TotalSupply value error : ', () => numericDataCheck(a[3], '1', '99999999', 0, false)) ?? '';
    const supply = parsePositive(
      token.totalsupply,
      `3005,TotalSupply value error : 1101, ${token.totalsupply} is not integer string`,
    );
    if (a[4] !== '0') throw new ChaincodeError('3005,Decimal is must be zero');
    assignText(token, 'url', a[5], 1, 255, '3005,Url value error : ', false);
    assignText(token, 'image', a[6], 1, 255, '3005,ImageUril value error : ', false);

    if (a[7] !== '') {
      token.shareholder = stringMap(a[7], '3005,shareholder Data value error : ', 'copyrighter');
      sortedEntries(token.shareholder).forEach(([address, commission], index) => {
        prefixed(`3005,${ordNumber(index)} shareholder item error : `, () => getAddressInfo(stub, address));
        prefixed(`3005,${ordNumber(index)} shareholder item commission error : `, () =>
          numericDataCheck(commission, '0', '10.0', 2, false),
        );
      });
    }
    if (a[8] !== '') {
      token.initialreserve = stringMap(a[8], '3005,InitialReserve Data value error : ', 'InitialReserve');
      forEachReserve(stub, token.initialreserve, (tokenId, perUnit) =>
        mrc010Subtract(stub, creator, tokenId, (supply * perUnit).toString(), 'normal'),
      );
    }

    token.expiredate = prefixed('3005,ExpireDate value error : ', () =>
      parseInt64(a[9], `9900,Data [${a[9]}] is not integer`),
    );
    assignText(token, 'data', a[10], 0, 40960);
    assignText(token, 'info', a[11], 0, 40960);
    assignText(token, 'socialmedia', a[12], 0, 40960);
    assignText(token, 'copyright_registration_country', a[13], 0, 2);
    iso3166Check(token.copyright_registration_country);
    assignText(token, 'copyright_registrar', a[14], 0, 128);
    assignText(token, 'copyright_registration_number', a[15], 0, 64);

    token.id = newGeneratedId(stub, MRC402_PREFIX, args);
    const params = [token.id, ...a.slice(0, 18)];
    setMrc402(stub, token, MRC402.create, params);
    creator.mrc402 = withHolding(creator.mrc402, token.id, {
      balance: token.totalsupply,
      saleamount: '0',
      auctionamount: '0',
    });
    setAddressInfo(stub, creator, MRC402.walletCreate, params);
  },
};

/**
 * `mrc402update` (id, url, data, info, socialmedia, crCountry, crRegistrar, crNumber, sig, nonce) → the
 * record written `mrc402_update` and the creator `mrc402update`, both [id, creator, args 1–9] (CC-t
 * `mrc402.go` Mrc402Update), signed by the creator. Something must change ("4900,No data change", see
 * changes); a copyright field once set refuses a non-empty argument. Quirks kept: the length guard
 * checks 7 arguments but the function reads 10 (fewer panic); url "" keeps the url, but data, info
 * and socialmedia "" clear theirs, so an update of the url alone wipes them unless resent.
 */
export const mrc402UpdateJob: Job = {
  fcn: 'mrc402update',
  weight: 0.3,
  writes: [MRC402.update, MRC402.walletUpdate],
  plan(ctx) {
    const { rng } = ctx;
    const token = pickMrc402(ctx);
    if (!token) return null;
    const creator = creatorWallet(ctx, token);
    if (!creator) return null;
    // Unchanged fields are mostly resent; sometimes "" (which clears data, info and socialmedia).
    const keep = (value: string) => (rng.chance(0.85) ? value : '');
    const args = [
      token.id,
      rng.chance(0.4) ? `${token.url.replace(/[?].*$/, '')}?v=${rng.int(2, 999)}` : rng.chance(0.5) ? '' : token.url,
      rng.chance(0.3)
        ? JSON.stringify({ edition: String(rng.int(1, 12)), note: fakeWords(rng, 1, 2) })
        : keep(token.data),
      rng.chance(0.4) ? fakeWords(rng, 3, 12) : keep(token.info),
      keep(token.socialmedia),
      token.copyright_registration_country === '' && rng.chance(0.2) ? rng.pick(COUNTRIES) : '',
      token.copyright_registrar === '' && rng.chance(0.15) ? 'Open Copyright Office' : '',
      token.copyright_registration_number === '' && rng.chance(0.15)
        ? `C-2024-${String(rng.int(1, 999_999)).padStart(6, '0')}`
        : '',
      fakeSignature(rng),
      creator.nonce,
    ];
    return changes(token, args) ? { fcn: 'mrc402update', args } : null;
  },
  execute(stub, { args }) {
    expectArgs(
      args,
      7,
      '1000,mrc402update operation must include four arguments : MRC402ID, Url, Data, Info, SocialMedia, copyright_registration_country, copyright_registrar, copyright_registration_number, Signature, Nonce',
    );
    // Go indexes args[7..9] past its guard: a shorter call panics (index out of range).
    const a = expectArgs(args, 10, 'runtime error: index out of range');
    const token = getMrc402(stub, a[0]);
    const creator = getAddressInfo(stub, token.creator);
    nonceCheck(stub, creator, a[9]);
    let isUpdate = changes(token, a);
    const once = [
      ['copyright_registration_country', 2, 'registration country'],
      ['copyright_registrar', 128, 'registrar'],
      ['copyright_registration_number', 64, 'registration number'],
    ] as const;
    once.forEach(([field, max, name], i) => {
      if (a[5 + i]!.length === 0) return;
      if (token[field].length !== 0) throw new ChaincodeError(`3005,Copyright ${name} cannot be changed`);
      isUpdate = true;
      assignText(token, field, a[5 + i]!, 0, max);
      if (i === 0) iso3166Check(token[field]);
    });
    if (!isUpdate) throw new ChaincodeError('4900,No data change');

    assignText(token, 'url', a[1], 1, 255, '3005,Url value error : ');
    assignText(token, 'data', a[2], 0, 40960);
    assignText(token, 'info', a[3], 0, 40960);
    assignText(token, 'socialmedia', a[4], 0, 40960);

    const params = [token.id, token.creator, ...a.slice(1, 10)];
    setMrc402(stub, token, MRC402.update, params);
    setAddressInfo(stub, creator, MRC402.walletUpdate, params);
  },
};

/** Whether a non-empty url, data, info or socialmedia differs from the record, or a copyright field is set. */
function changes(token: Mrc402Token, a: readonly string[]): boolean {
  const current = [token.url, token.data, token.info, token.socialmedia];
  const differs = current.some((value, i) => (a[i + 1] ?? '').length > 0 && a[i + 1] !== value);
  return differs || a.slice(5, 8).some((arg) => arg !== '');
}

type TextField = { [K in keyof Mrc402Token]-?: Mrc402Token[K] extends string ? K : never }[keyof Mrc402Token];

/** util.DataAssign of a text (url, image: URL) argument into `field`, errors behind `prefix`; allowed "" keeps it. */
function assignText(
  token: Mrc402Token,
  field: TextField,
  value: string,
  min: number,
  max: number,
  prefix = '3005,Data value error : ',
  allowEmpty = true,
): void {
  const kind = field === 'url' || field === 'image' ? 'url' : 'text';
  token[field] = prefixed(prefix, () => dataAssign(value, kind, min, max, allowEmpty)) ?? token[field];
}

/** json.Unmarshal of a `{string: string}` map argument of up to 5 `entries`; "null" leaves the map nil. */
function stringMap(text: string, prefix: string, entries: string): Record<string, string> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ChaincodeError(`${prefix}${(error as Error).message}`);
  }
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ChaincodeError(
      `${prefix}json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type map[string]string`,
    );
  }
  for (const v of Object.values(value)) {
    if (typeof v !== 'string')
      throw new ChaincodeError(`${prefix}json: cannot unmarshal ${typeof v} into Go value of type string`);
  }
  if (Object.keys(value).length > 5) throw new ChaincodeError(`3002,There must be 5 or fewer ${entries}`);
  return Object.fromEntries(sortedEntries(value as Record<string, string>));
}

const COUNTRIES = ['KR', 'US', 'JP', 'DE', 'FR', 'GB', 'SG', 'CA', 'AU', 'VN'];

/** A totalsupply: mostly small editions, some tens of thousands, a few near the 99,999,999 cap. */
function planSupply(rng: Rng): bigint {
  const roll = rng.next();
  if (roll < 0.45) return BigInt(rng.int(1, 100));
  if (roll < 0.8) return BigInt(rng.int(100, 10_000));
  if (roll < 0.97) return BigInt(rng.int(10_000, 1_000_000));
  return BigInt(rng.int(1_000_000, Number(MAX_SUPPLY)));
}

/**
 * An initialreserve argument: about half "", a few "{}", the rest one or two MRC-010 tokens the creator
 * can lock for the whole supply (per unit up to a tenth of what it can spend, divided by the supply).
 * Keys whose order a JS object would change are not sent (keepsGoOrder).
 */
function planReserve(ctx: PlanContext, wallet: Wallet, supply: bigint, token: number, available: bigint): string {
  const { rng, now } = ctx;
  const roll = rng.next();
  if (roll < 0.45) return '';
  if (roll < 0.5) return '{}';
  const tokens = [token];
  if (rng.chance(0.3)) {
    const others = spendableTokens(wallet, now).filter((t) => t !== token);
    if (others.length > 0) tokens.push(rng.pick(others));
  }
  const reserve: Record<string, string> = {};
  for (const t of tokens) {
    const budget = t === token ? available : spendable(wallet, t, now);
    const perUnit = budget / BigInt(rng.int(10, 1_000)) / supply;
    if (perUnit > 0n) reserve[String(t)] = perUnit.toString();
  }
  const keys = Object.keys(reserve);
  if (keys.length === 0 || !keepsGoOrder(keys)) return '';
  return JSON.stringify(reserve);
}

/** A shareholder argument: mostly "", rarely "{}", else 1–3 wallets (rarely 5, maybe the creator) at 0–10 %. */
function planShareholders(ctx: PlanContext, creator: string): string {
  const { rng } = ctx;
  const roll = rng.next();
  if (roll < 0.55) return '';
  if (roll < 0.58) return '{}';
  const count = rng.chance(0.05) ? 5 : rng.int(1, 3);
  const chosen = new Set<string>([creator]);
  const holders: Record<string, string> = {};
  if (rng.chance(0.1)) holders[creator] = planPercent(rng);
  for (let i = Object.keys(holders).length; i < count; i++) {
    const address = pickOtherWallet(ctx, chosen);
    if (!address) break;
    chosen.add(address);
    holders[address] = planPercent(rng);
  }
  return Object.keys(holders).length === 0 ? '' : JSON.stringify(holders);
}

/** An expiredate: mostly "0" (meltable), some past, some soon (ending inside a history), some far ahead. */
function planExpiry(rng: Rng, now: number): string {
  const roll = rng.next();
  if (roll < 0.4) return '0';
  if (roll < 0.6) return String(now - rng.int(3_600, 200 * 86_400));
  if (roll < 0.85) return String(now + rng.int(600, 3 * 3_600));
  return String(now + rng.int(30 * 86_400, 730 * 86_400));
}
