import type { KnownActivity, Payment } from '../events.ts';
import { isAddress } from '../ids.ts';
import { MRC400, MRC400_PAYMENT as PAY, type Mrc400JobType } from '../job-types.ts';
import type { RawEntry } from '../node.ts';
import {
  decodePayments,
  int,
  jsonArray,
  lenientAmount,
  optionalInt,
  otherActivity,
  params,
  paymentView,
  PRIORITY,
  record,
  str,
  type EntryView,
  type Family,
  type JobDecoder,
  type TxEntries,
} from './family.ts';

/**
 * MRC-400 collections and their MRC-401 items (metacoin-chain.md §4.3; CC-m `mrc400.go`, old
 * argument layouts, and CC-t `mrc400.go`, new ones). History holds both layouts, and nothing in an
 * entry names the chaincode version, so each reader tells them apart by the shape of the job_args.
 *
 * A call writes collection records (`MRC400_<33>`) or item records (`MRC400_<33>_<40>`) plus
 * wallets. The activity is read from the record entries wherever they sit in the set (their
 * written values hold what the chaincode settled on, their job_args the parties and the
 * PaymentInfo JSON of a settlement); wallet entries only add their per-address view, as in the
 * MRC-010 DEX. Record job_args, both layouts unless marked:
 *   mrc400_create  old [id, owner, name, url, imageurl, allowtoken, category, description, itemurl, itemimageurl, data, sig, nonce]
 *                  new [id, owner, name, url, imageurl, allowtoken, itemurl, itemimageurl, category, description, socialmedia, partner, data, sig, nonce]
 *   mrc400_update  old [id, owner, name, …as create]; new [id, id, name, …as create] (the owner is only in the values)
 *   mrc401_create / _update  [itemId, creator|updater, reserve, reserveToken, sig, nonce]
 *   mrc401_createtrade (new) [itemId, seller (the MRC-400 owner), buyer, PaymentInfo]
 *   mrc401_transfer          [itemId, from, to, sig, nonce]
 *   mrc401_sell              [itemId, seller, price, token, sig, nonce]
 *   mrc401_unsell / _unauction  [itemId, seller, sig, nonce]
 *   mrc401_buy               old [itemId, seller, buyer, PaymentInfo, sig, nonce]; new [itemId, seller, buyer, PaymentInfo]
 *   mrc401_auction           [itemId, seller, startPrice, token, buyNow, bidUnit, sig, nonce]
 *   mrc401_auctionbid        [itemId, bidder, PaymentInfo, sig, nonce]
 *   mrc401_auctionwinning    old [itemId, winner, PaymentInfo, "", ""]; new [itemId, seller, winner, PaymentInfo]
 *   mrc401_auctionbuynow (new) [itemId, seller, winner, PaymentInfo] (the PaymentInfo holds the bid)
 *   mrc401_auctionfailure    old [itemId, seller, "", "[]", "", ""]; new [itemId, seller, ""]
 *   mrc401_melt              [itemId, owner, PaymentInfo ("null" when empty, new), sig, nonce]
 * Caller wallets: mrc400create/update as their record; mrc401create [collection, creator, JSON
 * [{id, amount: reserve, token, …}], sig, nonce]; mrc401update [collection, owner, JSON [ids], sig,
 * nonce]; mrc401transfer [itemId, from, to, sig, nonce]; mrc401sell [JSON [{id, amount, token, …}],
 * seller, sig, nonce]; mrc401unsell / mrc401unauction [JSON [ids], seller, sig, nonce];
 * mrc401auction [JSON [{id, …}], seller, sig, nonce]. Payments and payouts (the creator of a
 * createtrade included) use the payment layout [from, to, amount, token, sig, "0", trade, itemId,
 * nonce], where `from` is the item (the escrow) for a payout.
 */

const COLLECTION_RECORDS: readonly string[] = [MRC400.create, MRC400.update];
const ITEM_RECORDS: readonly string[] = [
  MRC400.itemCreate,
  MRC400.itemCreatetrade,
  MRC400.itemUpdate,
  MRC400.itemTransfer,
  MRC400.itemSell,
  MRC400.itemUnsell,
  MRC400.itemBuy,
  MRC400.itemAuction,
  MRC400.itemUnauction,
  MRC400.itemAuctionbid,
  MRC400.itemAuctionwinning,
  MRC400.itemAuctionbuynow,
  MRC400.itemAuctionfailure,
  MRC400.itemMelt,
];
const RECORD_TYPES: readonly string[] = [...COLLECTION_RECORDS, ...ITEM_RECORDS];

/** The collection an item id belongs to (its first 40 characters), or the id itself. */
function collectionOf(id: string): string {
  return id.length > 40 && id.charAt(40) === '_' ? id.slice(0, 40) : id;
}

/** Whether a parameter holds a JSON list (a PaymentInfo or item list), "null" included. */
function isList(text: string | undefined): boolean {
  const t = (text ?? '').trim();
  return t.startsWith('[') || t === 'null';
}

/** A record entry's values (the written record) and job_args, read leniently. */
function recordOf(e: RawEntry) {
  const v = record(e.values);
  const p = params(e);
  const id = e.datakey || str(v['id']) || (p[0] ?? '');
  /** A written value if it is a non-empty string, else `fallback`. */
  const field = (name: string, fallback = ''): string => str(v[name]) || fallback;
  return { v, p, id, field, jobType: e.type };
}

/** The PaymentInfo of a settlement record, at the index its layout puts it. */
function paymentsOf(p: readonly string[], fallbackToken = 0): Payment[] {
  const at = isList(p[3]) ? 3 : isList(p[2]) ? 2 : -1;
  return at < 0 ? [] : decodePayments(p[at], fallbackToken);
}

const BID_PAYMENTS: readonly string[] = [PAY.bid, PAY.recvRefund];

// ---------------------------------------------------------------- views (per entry)

/** An entry about one NFT moving `amount` (item "1", a collection event "0") from → to. */
function nftView(summary: string, from: string, to: string, nftId: string, amount = '1'): EntryView {
  return { summary, from, to, amount, tokenId: null, nftId };
}

/** A payment-layout wallet write of a trade or melt: money in its token, the item in nftId. */
function tradePayment(summary: string): (e: RawEntry) => EntryView {
  const view = paymentView(summary);
  return (e) => {
    const p = params(e);
    return { ...view(e), nftId: p[7] ?? '' };
  };
}

/**
 * The owner a collection entry names: job_args[1] when it is an address (create; CC-m update),
 * else the written record's owner, else the wallet the entry was written to.
 */
function collectionOwner(e: RawEntry): string {
  const p = params(e);
  if (isAddress(p[1] ?? '')) return p[1]!;
  const owner = str(record(e.values)['owner']);
  if (owner) return owner;
  return isAddress(e.datakey ?? '') ? e.datakey! : '';
}

function collectionView(summary: string) {
  return (e: RawEntry): EntryView => {
    const id = params(e)[0] ?? '';
    return nftView(summary, collectionOwner(e), id, id, '0');
  };
}

/** Item ids of a list parameter: plain ids or objects with an `id`. */
function listedIds(text: string | undefined): string[] {
  return jsonArray(text).map((x) => (typeof x === 'string' ? x : str(record(x)['id'])));
}

/**
 * A caller's wallet write about several items: one item → that item, "1"; several → their
 * collection and their count. `direction` says whether the items go from the caller (a listing)
 * or back to it.
 */
function listView(summary: string, listIndex: number, partyIndex: number, direction: 'out' | 'in') {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const ids = listedIds(p[listIndex]);
    const nftId = ids.length === 1 ? ids[0]! : collectionOf(ids[0] ?? '');
    const party = p[partyIndex] ?? '';
    const amount = String(ids.length);
    return direction === 'out'
      ? nftView(summary, party, nftId, nftId, amount)
      : nftView(summary, nftId, party, nftId, amount);
  };
}

/**
 * The creator's `mrc401create`: the initial reserve it locked, when the items lock some in one
 * token (an MRC-010 payment naming the collection), else the count of items created.
 */
function createWalletView(e: RawEntry): EntryView {
  const p = params(e);
  const collection = p[0] ?? '';
  const creator = p[1] ?? '';
  const items = jsonArray(p[2]).map(record);
  const locked = items.filter((x) => lenientAmount(x['amount']) !== '0');
  const tokens = new Set(locked.map((x) => str(x['token'])));
  if (locked.length > 0 && tokens.size === 1) {
    const sum = locked.reduce((s, x) => s + BigInt(lenientAmount(x['amount'])), 0n);
    return {
      summary: 'MRC-401 create',
      from: creator,
      to: collection,
      amount: sum.toString(),
      tokenId: optionalInt([...tokens][0]),
      nftId: collection,
    };
  }
  return nftView('MRC-401 create', creator, collection, collection, String(items.length));
}

/** The caller's `mrc401update`: the one item updated, else the collection. */
function updateWalletView(e: RawEntry): EntryView {
  const p = params(e);
  const ids = jsonArray(p[2]).map(str);
  const collection = p[0] ?? '';
  const nftId = ids.length === 1 ? `${collection}_${ids[0]}` : collection;
  const updater = isAddress(e.datakey ?? '') ? e.datakey! : (p[1] ?? '');
  return nftView('MRC-401 update', updater, nftId, nftId, '0');
}

function itemView(summary: string, fromIndex: number | 'item', toIndex: number | 'item') {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const item = p[0] ?? '';
    const at = (i: number | 'item') => (i === 'item' ? item : (p[i] ?? ''));
    return nftView(summary, at(fromIndex), at(toIndex), item);
  };
}

/** A settlement record: the item from the seller to the buyer (old winning records name no seller). */
function settlementView(summary: string) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const oldWinning = isList(p[2]);
    const payments = paymentsOf(p);
    const seller = oldWinning ? (payments.find((x) => x.type === PAY.recvAuction)?.to ?? '') : (p[1] ?? '');
    const buyer = oldWinning ? (p[1] ?? '') : (p[2] ?? '');
    return nftView(summary, seller, buyer, p[0] ?? '');
  };
}

/** A bid record: the bid (money) from the bidder into the item. */
function bidView(e: RawEntry): EntryView {
  const p = params(e);
  const bid = paymentsOf(p).find((x) => x.type === PAY.bid);
  return {
    summary: 'MRC-401 bid',
    from: p[1] ?? '',
    to: p[0] ?? '',
    amount: bid?.amount ?? '0',
    tokenId: bid?.token ?? null,
    nftId: p[0] ?? '',
  };
}

// ---------------------------------------------------------------- activities (per record)

type Activities = (e: RawEntry) => KnownActivity[];
const item1 = { protocol: 'MRC401' as const, amount: '1' };

const collectionCreate: Activities = (e) => {
  const r = recordOf(e);
  const owner = collectionOwner(e);
  return [
    {
      kind: 'nftCreate',
      jobType: r.jobType,
      protocol: 'MRC400',
      nftId: r.id,
      owner,
      creator: r.p[1] || owner,
      amount: '0',
      name: r.field('name', r.p[2] ?? ''),
      parent: '',
    },
  ];
};

const collectionUpdate: Activities = (e) => {
  const r = recordOf(e);
  return [{ kind: 'nftUpdate', jobType: r.jobType, protocol: 'MRC400', nftId: r.id, owner: collectionOwner(e) }];
};

function itemCreateActivity(e: RawEntry, owner: string): KnownActivity {
  const r = recordOf(e);
  return {
    kind: 'nftCreate',
    jobType: r.jobType,
    ...item1,
    nftId: r.id,
    owner,
    creator: r.field('creator', r.p[1] ?? ''),
    name: '',
    parent: r.field('mrc400', collectionOf(r.id)),
  };
}

const itemCreate: Activities = (e) => {
  const r = recordOf(e);
  return [itemCreateActivity(e, r.field('owner', r.p[1] ?? ''))];
};

/** The purchase of a settlement record (buy, createtrade). */
function buyActivity(e: RawEntry): KnownActivity {
  const r = recordOf(e);
  const payments = paymentsOf(r.p);
  const paid = payments.find((x) => x.type === PAY.buy || x.type === PAY.createtradeBuy);
  return {
    kind: 'nftBuy',
    jobType: r.jobType,
    ...item1,
    nftId: r.id,
    dexId: r.id,
    seller: r.p[1] ?? '',
    buyer: r.p[2] || r.field('owner'),
    payToken: optionalInt(r.v['last_trade_token']) ?? paid?.token ?? 0,
    payments,
  };
}

/** A create-and-sell: the item comes to be (held by the MRC-400 owner), then is bought. */
const itemCreatetrade: Activities = (e) => {
  const r = recordOf(e);
  return [itemCreateActivity(e, r.p[1] ?? ''), buyActivity(e)];
};

const itemUpdate: Activities = (e) => {
  const r = recordOf(e);
  return [{ kind: 'nftUpdate', jobType: r.jobType, protocol: 'MRC401', nftId: r.id, owner: r.p[1] ?? '' }];
};

const itemTransfer: Activities = (e) => {
  const r = recordOf(e);
  return [
    {
      kind: 'nftTransfer',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      from: r.p[1] ?? '',
      to: r.p[2] || r.field('owner'),
    },
  ];
};

/** The seller of a listing: the item's owner (a partner may list for the MRC-400 owner), else the caller. */
const sellerOf = (r: ReturnType<typeof recordOf>) => r.field('owner', r.p[1] ?? '');

const itemSell: Activities = (e) => {
  const r = recordOf(e);
  return [
    {
      kind: 'nftSell',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      dexId: r.id,
      seller: sellerOf(r),
      price: lenientAmount(r.field('sell_price', r.p[2] ?? '')),
      payToken: int(r.field('sell_token', r.p[3] ?? '')),
    },
  ];
};

const itemUnsell: Activities = (e) => {
  const r = recordOf(e);
  return [{ kind: 'nftSellCancel', jobType: r.jobType, ...item1, nftId: r.id, dexId: r.id, seller: sellerOf(r) }];
};

const itemAuction: Activities = (e) => {
  const r = recordOf(e);
  return [
    {
      kind: 'nftAuction',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      dexId: r.id,
      seller: sellerOf(r),
      startPrice: lenientAmount(r.field('auction_start_price', r.p[2] ?? '')),
      buyNowPrice: lenientAmount(r.field('auction_buynow_price', r.p[4] ?? '')),
      payToken: int(r.field('auction_token', r.p[3] ?? '')),
      startDate: int(r.v['auction_date']),
      endDate: int(r.v['auction_end']),
    },
  ];
};

const itemUnauction: Activities = (e) => {
  const r = recordOf(e);
  return [{ kind: 'nftAuctionCancel', jobType: r.jobType, ...item1, nftId: r.id, dexId: r.id, seller: sellerOf(r) }];
};

function bidActivity(e: RawEntry, payments: Payment[], bidder: string, seller: string): KnownActivity {
  const r = recordOf(e);
  const bid = payments.find((x) => x.type === PAY.bid);
  return {
    kind: 'nftBid',
    jobType: r.jobType,
    protocol: 'MRC401',
    nftId: r.id,
    dexId: r.id,
    seller,
    bidder,
    price: bid?.amount ?? lenientAmount(r.v['auction_current_price']),
    payToken: bid?.token ?? int(r.v['auction_token']),
    payments,
  };
}

const itemAuctionbid: Activities = (e) => {
  const r = recordOf(e);
  return [bidActivity(e, paymentsOf(r.p), r.p[1] ?? '', r.field('owner'))];
};

/**
 * A winning or buy-now settlement. A bid at the buy-now price settles in its own transaction
 * (CC-t: the record is then `mrc401_auctionbuynow` and its PaymentInfo holds the bid and refund):
 * that yields the bid, then the finish, each with its own payments.
 */
function finishActivity(outcome: 'winning' | 'buynow'): Activities {
  return (e) => {
    const r = recordOf(e);
    const oldLayout = isList(r.p[2]);
    const payments = paymentsOf(r.p);
    const bidPart = payments.filter((x) => BID_PAYMENTS.includes(x.type));
    const finishPart = payments.filter((x) => !BID_PAYMENTS.includes(x.type));
    const winner = (oldLayout ? r.p[1] : r.p[2]) || r.field('owner');
    const seller = oldLayout ? (payments.find((x) => x.type === PAY.recvAuction)?.to ?? '') : (r.p[1] ?? '');
    const bid = bidPart.find((x) => x.type === PAY.bid);
    const finish: KnownActivity = {
      kind: 'nftAuctionFinish',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      dexId: r.id,
      outcome,
      seller,
      winner,
      price: lenientAmount(r.field('last_trade_amount', bid?.amount ?? '')),
      payToken: optionalInt(r.v['last_trade_token']) ?? finishPart[0]?.token ?? 0,
      payments: finishPart,
    };
    return bid ? [bidActivity(e, bidPart, winner, seller), finish] : [finish];
  };
}

const itemAuctionfailure: Activities = (e) => {
  const r = recordOf(e);
  return [
    {
      kind: 'nftAuctionFinish',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      dexId: r.id,
      outcome: 'failure',
      seller: r.p[1] || r.field('owner'),
      winner: '',
      price: '0',
      payToken: 0,
      payments: [],
    },
  ];
};

const itemMelt: Activities = (e) => {
  const r = recordOf(e);
  return [
    {
      kind: 'nftMelt',
      jobType: r.jobType,
      ...item1,
      nftId: r.id,
      owner: r.p[1] ?? '',
      payments: decodePayments(r.p[2], optionalInt(r.v['initial_token']) ?? 0),
    },
  ];
};

// ---------------------------------------------------------------- the table

function recordEntry(view: (e: RawEntry) => EntryView, activity: Activities): JobDecoder {
  return { priority: PRIORITY.main, view, activity: (e) => activity(e) };
}

/** A party's wallet entry: its own view; the activity comes from the record entries. */
function wallet(view: (e: RawEntry) => EntryView, priority: number = PRIORITY.payout): JobDecoder {
  return {
    priority,
    view,
    activity: (e: RawEntry, tx: TxEntries) => (tx.find(...RECORD_TYPES) ? [] : [otherActivity(e)]),
  };
}

export const mrc400Family: Family = {
  name: 'MRC-400/401',
  jobs: {
    [MRC400.create]: recordEntry(collectionView('MRC-400 create'), collectionCreate),
    [MRC400.update]: recordEntry(collectionView('MRC-400 update'), collectionUpdate),
    [MRC400.itemCreate]: recordEntry(itemView('MRC-401 create', 1, 'item'), itemCreate),
    [MRC400.itemCreatetrade]: recordEntry(itemView('MRC-401 create and sell', 1, 2), itemCreatetrade),
    [MRC400.itemUpdate]: recordEntry((e) => ({ ...itemView('MRC-401 update', 1, 'item')(e), amount: '0' }), itemUpdate),
    [MRC400.itemTransfer]: recordEntry(itemView('MRC-401 transfer', 1, 2), itemTransfer),
    [MRC400.itemSell]: recordEntry(itemView('MRC-401 sell', 1, 'item'), itemSell),
    [MRC400.itemUnsell]: recordEntry(itemView('MRC-401 sell cancel', 'item', 1), itemUnsell),
    [MRC400.itemBuy]: recordEntry(settlementView('MRC-401 buy'), (e) => [buyActivity(e)]),
    [MRC400.itemAuction]: recordEntry(itemView('MRC-401 auction', 1, 'item'), itemAuction),
    [MRC400.itemUnauction]: recordEntry(itemView('MRC-401 auction cancel', 'item', 1), itemUnauction),
    [MRC400.itemAuctionbid]: recordEntry(bidView, itemAuctionbid),
    [MRC400.itemAuctionwinning]: recordEntry(settlementView('MRC-401 auction win'), finishActivity('winning')),
    [MRC400.itemAuctionbuynow]: recordEntry(settlementView('MRC-401 buy now'), finishActivity('buynow')),
    [MRC400.itemAuctionfailure]: recordEntry(itemView('MRC-401 auction failure', 'item', 1), itemAuctionfailure),
    [MRC400.itemMelt]: recordEntry(itemView('MRC-401 melt', 1, 'item'), itemMelt),
    // The calling party's wallet.
    [MRC400.walletCreate]: wallet(collectionView('MRC-400 create'), PRIORITY.secondary),
    [MRC400.walletUpdate]: wallet(collectionView('MRC-400 update'), PRIORITY.secondary),
    [MRC400.walletItemCreate]: wallet(createWalletView, PRIORITY.secondary),
    [MRC400.walletItemCreatetrade]: wallet(tradePayment('MRC-401 create and sell'), PRIORITY.secondary),
    [MRC400.walletItemUpdate]: wallet(updateWalletView, PRIORITY.secondary),
    [MRC400.walletItemTransfer]: wallet(itemView('MRC-401 transfer', 1, 2), PRIORITY.secondary),
    [MRC400.walletItemSell]: wallet(listView('MRC-401 sell', 0, 1, 'out'), PRIORITY.secondary),
    [MRC400.walletItemUnsell]: wallet(listView('MRC-401 sell cancel', 0, 1, 'in'), PRIORITY.secondary),
    [MRC400.walletItemAuction]: wallet(listView('MRC-401 auction', 0, 1, 'out'), PRIORITY.secondary),
    [MRC400.walletItemUnauction]: wallet(listView('MRC-401 auction cancel', 0, 1, 'in'), PRIORITY.secondary),
    // Payments in and payouts (money; the item in nftId).
    [MRC400.transferBuy]: wallet(tradePayment('MRC-401 buy')),
    [MRC400.transferCreatetrade]: wallet(tradePayment('MRC-401 buy')),
    [MRC400.transferBid]: wallet(tradePayment('MRC-401 bid')),
    [MRC400.receiveSell]: wallet(tradePayment('MRC-401 sale proceeds')),
    [MRC400.receiveFee]: wallet(tradePayment('MRC-401 fee')),
    [MRC400.receiveRefund]: wallet(tradePayment('MRC-401 bid refund')),
    [MRC400.receiveAuction]: wallet(tradePayment('MRC-401 auction proceeds')),
    [MRC400.receiveMelt]: wallet(tradePayment('MRC-401 melt reserve')),
    [MRC400.receiveMeltfee]: wallet(tradePayment('MRC-401 melting fee')),
  } satisfies Record<Mrc400JobType, JobDecoder>,
};
