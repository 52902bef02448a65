import { ordNumber, sortedEntries, numericDataCheck } from '../../chaincode/util.ts';
import { mrc400Version, perVersion } from './versions.ts';
import { MRC400, MRC400_PAYMENT as PAY } from '@mtc/domain';
import { expectArgs, getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Subtract, spendable } from '../mrc010/balance.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import {
  assignPlatform,
  getSigner,
  checkToken,
  CREATES,
  expectHeld,
  expectToken,
  expectUnique,
  getMrc400,
  getMrc401,
  guard,
  MAX_PRICE,
  newItem,
  NO_PLATFORM,
  NO_ITEM,
  permissionCheck,
  SELLS,
  setMrc401,
  unmarshalList,
  unmarshalStruct,
} from './chaincode.ts';
import { nftImageUrl } from '../../world/images.ts';
import { MELTED, type Mrc400Collection, type Mrc401Item } from './records.ts';
import type { Wallet } from '../mrc010/records.ts';
import type { Stub } from '../../world/stub.ts';
import { fakeSignature, fakeWords } from '../../jobs/client.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';
import type { Call, Job, PlanContext } from '../../jobs/job.ts';
import { portion } from '../../jobs/job.ts';
import {
  checkItemUpdate,
  checkNewItem,
  NEW_ITEM_FIELDS,
  OLD_ITEM_FIELDS,
  policies,
  policyChangeable,
  type ItemJob,
} from './items.ts';
import {
  allowedTokens,
  collectionOfItem,
  findPayer,
  free,
  planItemPlatform,
  planner,
  pickCollection,
  pickItem,
  pickToken,
  planPrice,
  planRate,
  slug,
} from './plan.ts';
import { mrc401DexProcess } from './settle.ts';

const MAX_SHAREHOLDERS = 5;

/**
 * `mrc401create` (`mrc400.go` Mrc401Create) → one item record `mrc401_create` per item and the
 * caller's wallet `mrc401create`; the items' initial reserves are taken from the caller, per token.
 * Items are owned by the MRC-400 owner whoever creates them. CC-m: error ordinals count from "0th";
 * quirk kept: the items' own `id` is written "" (set on their next write). CC-t: items may carry
 * shareholders; quirk kept (a shadowed loop index): an item with shareholders gets — and has
 * checked — the first item's shareholders instead of its own (assignShareholders).
 */
export const mrc401CreateJob: Job = {
  fcn: 'mrc401create',
  weight: 0.9,
  writes: [MRC400.itemCreate, MRC400.walletItemCreate],
  plan: planner((ctx, layout) => {
    const pick = pickCreator(ctx, layout, 'create');
    if (!pick) return null;
    const { collection: c, creator } = pick;
    const { rng } = ctx;
    const count = rng.chance(0.5) ? 1 : rng.chance(0.7) ? rng.int(2, 4) : rng.int(5, 12);
    const reserve = planReserve(ctx, c, creator, layout, count);
    const shareholders = layout === 'new' ? planShareholders(ctx, c) : null;
    if (shareholders === undefined) return null;
    const items = Array.from({ length: count }, () =>
      planItemJob(ctx, c, layout, reserve.token, reserve.each(), shareholders),
    );
    return planItemCall(ctx, 'mrc401create', layout, c.id, creator, items);
  }),
  execute: itemCall('create', createItems),
};

/** The two argument layouts of mrc401create and mrc401update; `run` gets the call as openItemCall reads it. */
function itemCall(verb: 'create' | 'update', run: (stub: Stub, call: ItemCall) => void) {
  const usage = `1000,mrc401${verb} operation must include four arguments : mrc400id, `;
  const actor = verb === 'create' ? 'creator' : 'updater';
  return perVersion<Stub>({
    'v2.3': (stub, args) => {
      const a = expectArgs(args, 4, `${usage}itemData, sign, tkey`);
      run(stub, openItemCall(stub, verb, a[0], null, a[1], a[2], a[3]));
    },
    current: (stub, args) => {
      const a = expectArgs(args, 5, `${usage}${actor}, itemData, signature, nonce`);
      run(stub, openItemCall(stub, verb, a[0], a[1], a[2], a[3], a[4]));
    },
  });
}

/** What Mrc401Create and Mrc401Update read first; `actor` is CC-t's creator or updater, null under CC-m. */
function openItemCall(
  stub: Stub,
  verb: 'create' | 'update',
  mrc400id: string,
  actor: string | null,
  itemData: string,
  sig: string,
  nonce: string,
) {
  const c = getMrc400(stub, mrc400id);
  if (verb === 'create' && actor !== null) permissionCheck(c, NO_ITEM, actor, 'create');
  const signer = getSigner(stub, actor ?? c.owner, nonce);
  const jobs: readonly ItemJob[] = guard(
    () =>
      actor === null
        ? unmarshalList(itemData, OLD_ITEM_FIELDS, 'TMRC401job')
        : unmarshalList(itemData, NEW_ITEM_FIELDS, 'TMRC401CreateUpdate'),
    (inner) => `6205,MRC401 Data is in the wrong data - ${inner}`,
  );
  const max = verb === 'create' && actor !== null ? 1024 : 100;
  if (jobs.length > max) throw new ChaincodeError(`3002,There must be ${max} or fewer ${verb} item`);
  if (jobs.length < 1) throw new ChaincodeError('3002,There is no item information');
  return { c, signer, jobs, actor, sig, nonce };
}

type ItemCall = ReturnType<typeof openItemCall>;

/** Mrc401Create of both versions. */
function createItems(stub: Stub, { c, signer, jobs, actor, sig, nonce }: ItemCall): void {
  const old = actor === null;
  const totals = new Map<string, bigint>();
  const seen = new Set<string>();
  const log: object[] = [];
  jobs.forEach((job, index) => {
    expectUnique(seen, job.item_id);
    expectAbsent(stub, c.id, job.item_id);
    const item = newItem(stub.now, old ? '' : `${c.id}_${job.item_id}`, c.id, c.owner, old ? '' : signer.id);
    const itemId = checkNewItem(item, job, `3005,${ordNumber(index)} item `, old);
    expectToken(c, item.initial_token, old, `3005,${ordNumber(index)} item Token`, false);
    const reserve = BigInt(item.initial_reserve);
    if (reserve > 0n) totals.set(item.initial_token, (totals.get(item.initial_token) ?? 0n) + reserve);
    assignShareholders(stub, c, item, shareholderOf(job), shareholderOf(jobs[0]!));
    const key = old ? `${c.id}_${itemId}` : item.id;
    const params = [key, actor ?? c.owner, item.initial_reserve, item.initial_token, sig, nonce];
    setMrc401(stub, key, item, MRC400.itemCreate, params);
    const entry = { id: itemId, amount: item.initial_reserve, token: item.initial_token };
    // CC-t logs its TMRC401Sell, whose platform fields stay empty.
    log.push(old ? entry : { ...entry, ...NO_PLATFORM });
  });
  for (const [token, total] of totals) mrc010Subtract(stub, signer, token, total.toString(), 'normal');
  setAddressInfo(stub, signer, MRC400.walletItemCreate, [c.id, actor ?? c.owner, JSON.stringify(log), sig, nonce]);
}

function expectAbsent(stub: Stub, mrc400id: string, itemId: string): void {
  if (stub.getState(`${mrc400id}_${itemId}`) !== undefined) {
    throw new ChaincodeError(`8600,Item ID ${itemId} already exists in project ${mrc400id}`);
  }
}

/** An item job's shareholders (CC-m's jobs have none). */
function shareholderOf(job: object): Record<string, string> | null {
  return 'shareholder' in job ? (job.shareholder as Record<string, string> | null) : null;
}

/**
 * CC-t's shareholders of a new item. Quirk kept (a shadowed loop index): Mrc401Create passes
 * `first`, the first item's map, which it checks — saying "0th" — and gives the item instead of its own.
 */
function assignShareholders(
  stub: Stub,
  c: Mrc400Collection,
  item: Mrc401Item,
  own: Record<string, string> | null,
  first?: Record<string, string> | null,
): void {
  if (own === null || Object.keys(own).length === 0) return;
  if (Object.keys(own).length > MAX_SHAREHOLDERS) throw new ChaincodeError('3002,There must be 5 or fewer copyrighter');
  const shareholders = first === undefined ? own : first;
  const wording = first === undefined ? 'shareholder item' : 'item shareholder';
  sortedEntries(shareholders).forEach(([address, commission], index) => {
    const head = `3005,${ordNumber(first === undefined ? index : 0)}`;
    if (address === c.owner) {
      throw new ChaincodeError(
        `${head} item shareholder The owner's address and the copyright holder's address are the same`,
      );
    }
    guard(
      () => getAddressInfo(stub, address),
      (inner) => `${head} ${wording} error : ${inner}`,
    );
    guard(
      () => numericDataCheck(commission, '0', '10.0', 2, false),
      (inner) => `${head} ${wording} commission error : ${inner}`,
    );
  });
  item.shareholder = shareholders;
}

/**
 * `mrc401createtrade` (CC-t only, `mrc400.go` Mrc401CreateTrade) → an item created by the creator
 * and sold at once to the buyer, owned first by the MRC-400 owner; a positive initial reserve is
 * taken from the creator (a `mrc401_createtrade` payment). The sale settles as mrc401DexProcess.
 */
export const mrc401CreateTradeJob: Job = {
  fcn: 'mrc401createtrade',
  weight: 0.4,
  writes: [
    MRC400.itemCreatetrade,
    MRC400.walletItemCreatetrade,
    MRC400.transferCreatetrade,
    MRC400.receiveSell,
    MRC400.receiveFee,
  ],
  plan: planner((ctx) => {
    const pick = pickCreator(ctx, 'new', 'createtrade');
    if (!pick) return null;
    const { collection: c, creator } = pick;
    const { rng, world } = ctx;
    const token = pickToken(ctx, allowedTokens(ctx, c, 'new'));
    const price = planPrice(rng, world.token(token)!.decimal);
    const buyer = findPayer(ctx, token, price, new Set([c.owner, creator.id]));
    if (!buyer) return null;
    const shareholders = planShareholders(ctx, c);
    if (shareholders === undefined) return null;
    const reserve = planReserve(ctx, c, creator, 'new', 1);
    const job = planItemJob(ctx, c, 'new', reserve.token, reserve.each(), shareholders);
    return {
      fcn: 'mrc401createtrade',
      args: [
        c.id,
        creator.id,
        JSON.stringify(job),
        buyer.id,
        price.toString(),
        String(token),
        ...Object.values(planItemPlatform(ctx, creator.id)),
        fakeSignature(rng),
        creator.nonce,
        fakeSignature(rng),
        buyer.nonce,
      ],
    };
  }, 'new'),
  execute(stub, { fcn, args }) {
    if (!mrc400Version(stub.chaincode).createTrade) throw new ChaincodeError(`Unsupported operation [${fcn}]`);
    const a = expectArgs(
      args,
      14,
      '1000,mrc401createtrade operation must include four arguments : mrc400id, creator, itemData, buyer, price, token, platform_name, platform_url, platform_address, platform_commission, creatorSignature, creatorNonce, buyerSignature, buyerNonce',
    );
    const c = getMrc400(stub, a[0]);
    permissionCheck(c, NO_ITEM, a[1], 'createtrade');
    const creator = getSigner(stub, a[1], a[11]);
    const job = guard(
      () => unmarshalStruct(a[2], NEW_ITEM_FIELDS, 'TMRC401CreateUpdate'),
      (inner) => `6205,MRC401 Data is in the wrong data - ${inner}`,
    );
    const buyer = getSigner(stub, a[3], a[13]);
    const price = guard(
      () => numericDataCheck(a[4], '1', MAX_PRICE, 0, false)!,
      (inner) => `3005,SellPrice error : ${inner}`,
    );
    checkToken(stub, a[5]);
    if (buyer.id === c.owner) throw new ChaincodeError('3004,MRC400 owner cannot purchase items sold by yourself');
    if (buyer.id === creator.id) throw new ChaincodeError('3004,MRC401 creator cannot purchase items sold by yourself');
    expectAbsent(stub, c.id, job.item_id);

    const item = newItem(stub.now, `${c.id}_${job.item_id}`, c.id, c.owner, creator.id);
    checkNewItem(item, job, '3005,', false);
    const payments: PaymentInfo[] = [];
    const reserve = BigInt(item.initial_reserve);
    if (reserve > 0n) {
      expectToken(c, item.initial_token, false, '3005,Token', false);
      mrc010Subtract(stub, creator, item.initial_token, reserve.toString(), 'normal');
      payments.push(payment(creator.id, item.id, reserve.toString(), item.initial_token, '', '', PAY.createtrade));
    }
    assignShareholders(stub, c, item, job.shareholder);

    // The sale: Bound cannot refuse (the MRC-400 owner holds the new item).
    item.sell_price = price;
    expectToken(c, a[5], false, '3005,item SellToken');
    const platform = { platform_name: a[6], platform_url: a[7], platform_address: a[8], platform_commission: a[9] };
    assignPlatform(stub, item, platform);
    item.sell_token = a[5];
    item.sell_date = stub.now;
    item.last_worker = creator.id;
    payments.push(payment(buyer.id, item.id, item.sell_price, item.sell_token, '', '', PAY.createtradeBuy));
    mrc401DexProcess(stub, c, item, creator, buyer, payments, 'createtrade', a[10], a[11]);
  },
};

/**
 * `mrc401update` (`mrc400.go` Mrc401Update) → each item written `mrc401_update`, the caller's wallet
 * `mrc401update`; shareholders and reserves never change. CC-m: items on sale or in auction may be
 * updated except for their fees, and (quirk kept) melted items too. CC-t: the wallet written is
 * the updater's, though its job_args name the MRC-400 owner.
 */
export const mrc401UpdateJob: Job = {
  fcn: 'mrc401update',
  weight: 0.4,
  writes: [MRC400.itemUpdate, MRC400.walletItemUpdate],
  plan: planner((ctx, layout) => {
    const { world, rng } = ctx;
    const first = pickItem(ctx, world.mrc400.idle, (item) => free(ctx, item.mrc400));
    if (first === null) return null;
    const c = collectionOfItem(ctx, first);
    const updater = pickUpdater(ctx, c, first, layout);
    if (!updater) return null;
    const items = [first];
    const more = rng.chance(0.7) ? 0 : rng.int(1, 3);
    // Another idle item of `c` that the updater may update.
    const updatable = (item: Mrc401Item) =>
      item.owner !== MELTED &&
      item.sell_date === 0 &&
      item.auction_date === 0 &&
      (updater.id === c.owner || (layout === 'new' && item.creator === updater.id));
    for (let i = 0; i < more; i++) {
      const other = pickItem(ctx, world.mrc400.itemsOf(c.id), updatable, 4);
      if (other && !items.some((x) => x.id === other.id)) items.push(other);
    }
    const jobs = items.map((item) => planItemUpdate(ctx, item, layout));
    return planItemCall(ctx, 'mrc401update', layout, c.id, updater, jobs);
  }),
  execute: itemCall('update', updateItems),
};

/** Mrc401Update of both versions. */
function updateItems(stub: Stub, { c, signer, jobs, actor, sig, nonce }: ItemCall): void {
  const seen = new Set<string>();
  const log: string[] = [];
  for (const job of jobs) {
    expectUnique(seen, job.item_id);
    const key = `${c.id}_${job.item_id}`;
    const item = getMrc401(stub, key);
    if (actor !== null) {
      permissionCheck(c, item, actor, 'update');
      if (item.melting_date > 0) throw new ChaincodeError(`3004,MRC401 [${job.item_id}] is already melted`);
      expectHeld(item, job.item_id);
    }
    checkItemUpdate(item, job, actor === null);
    const params = [item.id, actor ?? c.owner, item.initial_reserve, item.initial_token, sig, nonce];
    setMrc401(stub, key, item, MRC400.itemUpdate, params);
    log.push(job.item_id);
  }
  setAddressInfo(stub, signer, MRC400.walletItemUpdate, [c.id, c.owner, JSON.stringify(log), sig, nonce]);
}

// ---------------------------------------------------------------- planning

/** A call in either layout of itemCall, signed by `signer`. */
function planItemCall(
  ctx: PlanContext,
  fcn: string,
  layout: 'old' | 'new',
  mrc400id: string,
  signer: Wallet,
  items: readonly object[],
): Call {
  const itemData = JSON.stringify(items);
  const sig = fakeSignature(ctx.rng);
  const args = [mrc400id, ...(layout === 'old' ? [] : [signer.id]), itemData, sig, signer.nonce];
  return { fcn, args };
}

/** A collection and a free wallet allowed to create items in it: the MRC-400 owner or (CC-t) a partner. */
function pickCreator(
  ctx: PlanContext,
  layout: 'old' | 'new',
  action: 'create' | 'createtrade',
): { collection: Mrc400Collection; creator: Wallet } | null {
  const roles = action === 'create' ? CREATES : SELLS;
  let creator = '';
  const c = pickCollection(ctx, (c) => {
    const candidates = [c.owner];
    if (layout === 'new')
      for (const [address, role] of sortedEntries(c.partner)) if (roles.includes(role)) candidates.push(address);
    const usable = candidates.filter((a) => free(ctx, a) && ctx.world.wallet(a) !== undefined);
    if (usable.length === 0) return false;
    creator = usable.length > 1 && ctx.rng.chance(0.5) ? ctx.rng.pick(usable.slice(1)) : usable[0]!;
    return true;
  });
  return c ? { collection: c, creator: ctx.world.wallet(creator)! } : null;
}

/** The initial reserve of a call's items: a token and a draw per item, together at most a tenth of the creator's. */
function planReserve(ctx: PlanContext, c: Mrc400Collection, creator: Wallet, layout: 'old' | 'new', count: number) {
  const { rng, now } = ctx;
  const allowed = allowedTokens(ctx, c, layout).filter((t) => spendable(creator, t, now) >= BigInt(count));
  if (allowed.length === 0 || rng.chance(0.45)) {
    return { token: layout === 'old' ? '0' : String(pickToken(ctx, allowedTokens(ctx, c, layout))), each: () => '0' };
  }
  const token = pickToken(ctx, allowed);
  const budget = spendable(creator, token, now) / 10n / BigInt(count);
  return {
    token: String(token),
    each: () => (budget > 0n && rng.chance(0.85) ? portion(rng, budget, 1, 100) : 0n).toString(),
  };
}

/** One item of a create call's itemData, in the client's field order. */
function planItemJob(
  ctx: PlanContext,
  c: Mrc400Collection,
  layout: 'old' | 'new',
  token: string,
  reserve: string,
  shareholders: Record<string, string> | null,
): Record<string, unknown> {
  const { rng } = ctx;
  let id = rng.alnum(40);
  while (ctx.world.get(`${c.id}_${id}`) !== undefined) id = rng.alnum(40);
  const base = c.item_url || `https://${slug(c.name) || 'items'}.devnet.example/items/`;
  const roll = rng.next();
  const transferable = policies(layout === 'old')[roll < 0.7 ? 0 : roll < 0.9 ? 1 : 2];
  const job: Record<string, unknown> = {
    item_id: id,
    item_url: rng.chance(0.3) ? '' : `${base}${id}`,
    item_image_url: rng.chance(0.3) ? '' : nftImageUrl(ctx),
    groupid: rng.chance(0.5) ? `series-${rng.int(1, 9)}` : fakeWords(rng, 1, 2).replace(' ', '-'),
    initial_reserve: reserve,
    initial_token: token,
    melting_fee: planRate(rng, 20),
    transferable,
    sell_fee: planRate(rng, 15),
  };
  if (shareholders !== null) job['shareholder'] = shareholders;
  return job;
}

/** CC-t shareholders for every item of a create call (mrc401CreateJob's quirk); undefined when one drawn is busy. */
function planShareholders(ctx: PlanContext, c: Mrc400Collection): Record<string, string> | null | undefined {
  const { rng, world } = ctx;
  if (rng.chance(0.7)) return null;
  const out: Record<string, string> = {};
  for (let i = rng.int(1, 2); i > 0; i--) {
    const address = rng.pick(world.wallets);
    if (address === c.owner || !free(ctx, address)) return undefined;
    out[address] = rng.chance(0.3) ? String(rng.int(1, 10)) : `${rng.int(0, 9)}.${rng.int(1, 99)}`;
  }
  return out;
}

/** Who may update `item` (signing with its nonce): CC-m the MRC-400 owner; CC-t also its creator if a partner/creator. */
function pickUpdater(ctx: PlanContext, c: Mrc400Collection, item: Mrc401Item, layout: 'old' | 'new'): Wallet | null {
  const role = c.partner?.[item.creator];
  const partner = layout === 'new' && CREATES.includes(role ?? '') && ctx.rng.chance(0.6) ? item.creator : c.owner;
  return free(ctx, partner) ? (ctx.world.wallet(partner) ?? null) : null;
}

/** An update of one item: mostly the same values with one or two changed (a form sent whole). */
function planItemUpdate(ctx: PlanContext, item: Mrc401Item, layout: 'old' | 'new'): ItemJob {
  const { rng } = ctx;
  let transferable = item.transferable;
  if (policyChangeable(transferable, layout === 'old') && (layout === 'new' || rng.chance(0.5))) {
    transferable = rng.pick(policies(layout === 'old'));
  }
  return {
    item_id: item.id.slice(41),
    item_url: rng.chance(0.8) ? item.item_url : '',
    item_image_url: rng.chance(0.6) ? item.item_image_url : nftImageUrl(ctx),
    groupid: rng.chance(0.8) ? item.groupid : `series-${rng.int(1, 9)}`,
    initial_reserve: item.initial_reserve,
    initial_token: item.initial_token,
    melting_fee: rng.chance(0.8) ? item.melting_fee : planRate(rng, 20),
    transferable,
    sell_fee: rng.chance(0.8) ? item.sell_fee : planRate(rng, 15),
  };
}
