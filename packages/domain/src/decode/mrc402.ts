import { tryParseAmount } from '../amount.ts';
import type { KnownActivity, Payment } from '../events.ts';
import { MRC402, MRC402_PAYMENT as PAY, type Mrc402JobType } from '../job-types.ts';
import type { RawEntry } from '../node.ts';
import {
  decodePayments,
  int,
  jsonArray,
  lenientAmount,
  optionalInt,
  otherActivity,
  params,
  PRIORITY,
  record,
  str,
  type EntryView,
  type Family,
  type JobDecoder,
  type TxEntries,
} from './family.ts';

/**
 * MRC-402 multi-supply NFTs and their DEX (metacoin-chain.md §4.2; CC-t `mrc402.go`).
 *
 * A call writes one record — the `MRC402_…` NFT (create, update, mint, burn, melt) or a `DEX402_…`
 * order (sales and auctions) — plus one wallet entry per party; a transfer writes only the two
 * wallets. As in dex010.ts, the activity is read from the record's entry wherever it sits in the
 * set: its written values hold what the chaincode settled on (normalised amounts, default dates,
 * the reserve per unit), its job_args the call's parties and a settlement's PaymentInfo JSON.
 * Wallet entries add only their per-address view, unless no record is in the set (then they are
 * generic activity).
 *
 * Record job_args (CC-t `mrc402.go`):
 *   mrc402_create        [id, creator, name, commission, totalsupply, decimal, url, image, shareholder, initialreserve, expiredate, data, info, socialmedia, crCountry, crRegistrar, crNumber, sig, nonce]
 *   mrc402_update        [id, creator, url, data, info, socialmedia, crCountry, crRegistrar, crNumber, sig, nonce]
 *   mrc402_mint / _burn  [id, creator, amount, memo, sig, nonce]
 *   mrc402_melt          [id, holder, amount, sig, nonce]
 *   mrc402_sell          [dexid, seller, amount, id, unitPrice, payToken, pName, pURL, pAddr, pComm, sig, nonce]
 *   mrc402_unsell        [dexid, seller, remain, id, price, payToken, sig, nonce]
 *   mrc402_buy           [dexid, seller, buyer, PaymentInfo, id]
 *   mrc402_auction       [dexid, seller, amount, id, startPrice, payToken, bidUnit, buyNow, start, end, pName, pURL, pAddr, pComm, nonce]
 *   mrc402_unauction     [dexid, seller, amount, id, price, payToken, sig, nonce]
 *   mrc402_auctionbid    [dexid, seller, bidder, PaymentInfo, sig, nonce]
 *   mrc402_auctionwinning / _auctionbuynow  [dexid, seller, winner, PaymentInfo, id]
 *   mrc402_auctionfailure [dexid, seller, amount, id]
 * The calling party's wallet entry carries the same job_args; transfers carry [from, to, amount, id,
 * tag, memo, sig, nonce]; payouts use the payment layout [from, to, amount, payToken, sig, "0",
 * tradeAmount, id, nonce] with the DEX id as `from` (or `to`, for what a party pays in).
 *
 * PaymentInfo lists money (the MRC-010 pay token) and the item: `mrc402_recv_item` carries the NFT
 * quantity in trade_amount and the NFT id in trade_id. An activity's `payments` are the money
 * ones (a Payment names an MRC-010 token); the item quantity is the activity's `amount`.
 */

const PROTOCOL = 'MRC402' as const;

/** The record entries: they carry a call's activity. */
const RECORD_TYPES: readonly string[] = [
  MRC402.create,
  MRC402.update,
  MRC402.mint,
  MRC402.burn,
  MRC402.melt,
  MRC402.sell,
  MRC402.unsell,
  MRC402.buy,
  MRC402.auction,
  MRC402.unauction,
  MRC402.auctionbid,
  MRC402.auctionwinning,
  MRC402.auctionbuynow,
  MRC402.auctionfailure,
];

const BID_PAYMENTS: readonly string[] = [PAY.bid, PAY.recvRefund];

/** The written record (values) with its job_args at hand; `field` prefers the written value. */
function written(e: RawEntry) {
  const v = record(e.values);
  const p = params(e);
  const field = (name: string, index?: number): unknown =>
    v[name] !== undefined ? v[name] : index === undefined ? undefined : p[index];
  return { v, p, field, jobType: e.type };
}

/** An NFT record entry's id: its key, else the written id, else job_args[0]. */
function nftIdOf(e: RawEntry): string {
  return e.datakey || str(record(e.values)['id']) || (params(e)[0] ?? '');
}

/** A DEX402 entry's order id and NFT id. */
function orderIds(e: RawEntry, nftIndex?: number) {
  const { v, p } = written(e);
  return {
    dexId: e.datakey || str(v['dexid']) || (p[0] ?? ''),
    nftId: str(v['mrc402']) || (nftIndex === undefined ? '' : (p[nftIndex] ?? '')),
  };
}

/** Adds `nftId` when it is known. */
function view(base: Omit<EntryView, 'nftId'>, nftId: string | undefined): EntryView {
  return nftId ? { ...base, nftId } : base;
}

// ---------------------------------------------------------------- PaymentInfo

/** The money payouts of a settlement's PaymentInfo (the item payout left out; see the header). */
function moneyPayments(json: string | undefined, payToken: number): Payment[] {
  return decodePayments(json, payToken).filter((x) => x.type !== PAY.recvItem);
}

/** The NFT quantity a settlement handed over: the item payout's trade_amount. */
function itemQuantity(json: string | undefined): string {
  const item = jsonArray(json)
    .map(record)
    .find((r) => r['type'] === PAY.recvItem);
  return lenientAmount(item?.['trade_amount']);
}

// ---------------------------------------------------------------- views (per entry)

const createView = (e: RawEntry): EntryView => {
  const p = params(e);
  return view(
    { summary: 'MRC-402 create', from: '', to: p[1] ?? '', amount: lenientAmount(p[4]), tokenId: null },
    p[0],
  );
};

const updateView = (e: RawEntry): EntryView => {
  const p = params(e);
  return view({ summary: 'MRC-402 update', from: p[1] ?? '', to: '', amount: '0', tokenId: null }, p[0]);
};

/** [id, party, amount …]: supply added to (`in`) or taken from (`out`) the party. */
function supplyView(summary: string, direction: 'in' | 'out') {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const party = p[1] ?? '';
    return view(
      {
        summary,
        from: direction === 'in' ? '' : party,
        to: direction === 'in' ? party : '',
        amount: lenientAmount(p[2]),
        tokenId: null,
      },
      p[0],
    );
  };
}

/** [from, to, amount, id, tag, memo, sig, nonce]. */
function transferView(summary: string) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    return view({ summary, from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[2]), tokenId: null }, p[3]);
  };
}

/** [dexid, party, amount, id …]: units into escrow (`in`) or back out of it (`out`). */
function escrowView(summary: string, direction: 'in' | 'out') {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const dexId = p[0] ?? '';
    const party = p[1] ?? '';
    return view(
      {
        summary,
        from: direction === 'in' ? party : dexId,
        to: direction === 'in' ? dexId : party,
        amount: lenientAmount(p[2]),
        tokenId: null,
      },
      p[3],
    );
  };
}

/** [dexid, seller, buyer, PaymentInfo, id]: the units go from seller to buyer. */
function settlementView(summary: string) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    return view(
      { summary, from: p[1] ?? '', to: p[2] ?? '', amount: itemQuantity(p[3]), tokenId: null },
      orderIds(e, 4).nftId,
    );
  };
}

function bidView(e: RawEntry): EntryView {
  const p = params(e);
  const bid = decodePayments(p[3], 0).find((x) => x.type === PAY.bid);
  return view(
    {
      summary: 'MRC-402 bid',
      from: p[2] ?? '',
      to: p[0] ?? '',
      amount: bid?.amount ?? '0',
      tokenId: bid?.token ?? null,
    },
    orderIds(e).nftId,
  );
}

/** A payout or payment in the pay token: [from, to, amount, payToken, sig, "0", tradeAmount, id, nonce]. */
function moneyView(summary: string) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    return view(
      { summary, from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[2]), tokenId: optionalInt(p[3]) },
      p[7],
    );
  };
}

/** The winner's payout of an auction: the units, in the trade slot of the payment layout. */
function itemView(e: RawEntry): EntryView {
  const p = params(e);
  return view(
    { summary: 'MRC-402 auction item', from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[6]), tokenId: null },
    p[7],
  );
}

const views = {
  create: createView,
  update: updateView,
  mint: supplyView('MRC-402 mint', 'in'),
  burn: supplyView('MRC-402 burn', 'out'),
  melt: supplyView('MRC-402 melt', 'out'),
  transfer: transferView('MRC-402 transfer'),
  receive: transferView('MRC-402 receive'),
  sell: escrowView('MRC-402 sell', 'in'),
  unsell: escrowView('MRC-402 sell cancel', 'out'),
  auction: escrowView('MRC-402 auction', 'in'),
  unauction: escrowView('MRC-402 auction cancel', 'out'),
  auctionfailure: escrowView('MRC-402 auction failure', 'out'),
  buy: settlementView('MRC-402 buy'),
  auctionwinning: settlementView('MRC-402 auction win'),
  auctionbuynow: settlementView('MRC-402 buy now'),
};

// ---------------------------------------------------------------- activities (per record)

type Activities = (e: RawEntry) => KnownActivity[];

const createActivity: Activities = (e) => {
  const { field } = written(e);
  const creator = str(field('creator', 1));
  return [
    {
      kind: 'nftCreate',
      jobType: e.type,
      protocol: PROTOCOL,
      nftId: nftIdOf(e),
      owner: creator,
      creator,
      amount: lenientAmount(field('totalsupply', 4)),
      name: str(field('name', 2)),
      parent: '',
    },
  ];
};

const updateActivity: Activities = (e) => [
  {
    kind: 'nftUpdate',
    jobType: e.type,
    protocol: PROTOCOL,
    nftId: nftIdOf(e),
    owner: str(written(e).field('creator', 1)),
  },
];

function supplyActivity(kind: 'nftMint' | 'nftBurn'): Activities {
  return (e) => {
    const { p, v } = written(e);
    return [
      {
        kind,
        jobType: e.type,
        protocol: PROTOCOL,
        nftId: nftIdOf(e),
        owner: p[1] || str(v['creator']),
        amount: lenientAmount(p[2]),
        memo: p[3] ?? '',
      },
    ];
  };
}

/**
 * A melt pays the holder the NFT's initial reserve for each melted unit. The chaincode lists no
 * PaymentInfo for it; the payments are the record's per-unit reserve × amount, from the NFT to the
 * holder, typed `mrc402_melt`.
 */
const meltActivity: Activities = (e) => {
  const { p, v } = written(e);
  const nftId = nftIdOf(e);
  const owner = p[1] ?? '';
  const melted = tryParseAmount(p[2]) ?? 0n;
  const payments: Payment[] = Object.entries(record(v['initialreserve'])).flatMap(([token, perUnit]) => {
    const id = optionalInt(token);
    const unit = tryParseAmount(perUnit);
    if (id === null || unit === null || unit * melted === 0n) return [];
    return [{ from: nftId, to: owner, amount: (unit * melted).toString(), token: id, type: e.type }];
  });
  return [{ kind: 'nftMelt', jobType: e.type, protocol: PROTOCOL, nftId, owner, amount: melted.toString(), payments }];
};

const sellActivity: Activities = (e) => {
  const { field } = written(e);
  return [
    {
      kind: 'nftSell',
      jobType: e.type,
      protocol: PROTOCOL,
      ...orderIds(e, 3),
      seller: str(field('seller', 1)),
      amount: lenientAmount(field('amount', 2)),
      price: lenientAmount(field('sell_price', 4)),
      payToken: int(field('sell_token', 5)),
    },
  ];
};

function cancelActivity(kind: 'nftSellCancel' | 'nftAuctionCancel'): Activities {
  return (e) => {
    const { p, field } = written(e);
    return [
      {
        kind,
        jobType: e.type,
        protocol: PROTOCOL,
        ...orderIds(e, 3),
        seller: str(field('seller', 1)),
        // What went back: an unsold remainder (job_args repeat it), an auction's whole amount.
        amount: lenientAmount(p[2] ?? field(kind === 'nftSellCancel' ? 'remain_amount' : 'amount')),
      },
    ];
  };
}

const buyActivity: Activities = (e) => {
  const { p, v, field } = written(e);
  const payToken = int(field('sell_token'));
  return [
    {
      kind: 'nftBuy',
      jobType: e.type,
      protocol: PROTOCOL,
      ...orderIds(e, 4),
      seller: str(field('seller', 1)),
      buyer: p[2] || str(v['buyer']),
      amount: itemQuantity(p[3]),
      payToken,
      payments: moneyPayments(p[3], payToken),
    },
  ];
};

const auctionActivity: Activities = (e) => {
  const { field } = written(e);
  return [
    {
      kind: 'nftAuction',
      jobType: e.type,
      protocol: PROTOCOL,
      ...orderIds(e, 3),
      seller: str(field('seller', 1)),
      amount: lenientAmount(field('amount', 2)),
      startPrice: lenientAmount(field('auction_start_price', 4)),
      buyNowPrice: lenientAmount(field('auction_buynow_price', 7)),
      payToken: int(field('sell_token', 5)),
      // The record holds the dates the chaincode settled on (defaults: now, start + 1 day).
      startDate: int(field('auction_start_date', 8)),
      endDate: int(field('auction_end_date', 9)),
    },
  ];
};

function bidActivity(e: RawEntry, payments: Payment[]): KnownActivity {
  const { p, v, field } = written(e);
  const bid = payments.find((x) => x.type === PAY.bid);
  return {
    kind: 'nftBid',
    jobType: e.type,
    protocol: PROTOCOL,
    ...orderIds(e),
    seller: str(field('seller', 1)),
    bidder: p[2] || str(v['auction_current_bidder']),
    price: bid?.amount ?? lenientAmount(v['auction_current_price']),
    payToken: int(field('sell_token')),
    payments,
  };
}

const auctionbidActivity: Activities = (e) => {
  const p = params(e);
  return [bidActivity(e, moneyPayments(p[3], int(written(e).field('sell_token'))))];
};

/**
 * A winning or buy-now settlement. When a bid met the buy-now price it settled in the same
 * transaction (the record is then `mrc402_auctionbuynow` and its PaymentInfo holds the bid and any
 * refund): that transaction yields the bid, then the finish, each with its own payouts.
 */
function finishActivity(outcome: 'winning' | 'buynow'): Activities {
  return (e) => {
    const { p, v, field } = written(e);
    const payToken = int(field('sell_token'));
    const list = moneyPayments(p[3], payToken);
    const bidPart = list.filter((x) => BID_PAYMENTS.includes(x.type));
    const finish: KnownActivity = {
      kind: 'nftAuctionFinish',
      jobType: e.type,
      protocol: PROTOCOL,
      ...orderIds(e, 4),
      outcome,
      seller: str(field('seller', 1)),
      winner: p[2] || str(v['auction_current_bidder']),
      amount: itemQuantity(p[3]),
      price: lenientAmount(v['auction_current_price'] ?? bidPart.find((x) => x.type === PAY.bid)?.amount),
      payToken,
      payments: list.filter((x) => !BID_PAYMENTS.includes(x.type)),
    };
    return bidPart.some((x) => x.type === PAY.bid) ? [bidActivity(e, bidPart), finish] : [finish];
  };
}

const auctionfailureActivity: Activities = (e) => {
  const { p, field } = written(e);
  return [
    {
      kind: 'nftAuctionFinish',
      jobType: e.type,
      protocol: PROTOCOL,
      ...orderIds(e, 3),
      outcome: 'failure',
      seller: str(field('seller', 1)),
      winner: '',
      amount: lenientAmount(p[2] ?? field('amount')),
      price: '0',
      payToken: int(field('sell_token')),
      payments: [],
    },
  ];
};

/** [from, to, amount, id, …]: a transfer outside the DEX. */
function transferActivity(e: RawEntry): KnownActivity {
  const p = params(e);
  return {
    kind: 'nftTransfer',
    jobType: e.type,
    protocol: PROTOCOL,
    nftId: p[3] ?? '',
    from: p[0] ?? '',
    to: p[1] ?? '',
    amount: lenientAmount(p[2]),
  };
}

// ---------------------------------------------------------------- the table

function recordEntry(entryView: (e: RawEntry) => EntryView, activity: Activities): JobDecoder {
  return { priority: PRIORITY.main, view: entryView, activity: (e) => activity(e) };
}

/** A party's wallet entry: its own view; the activity comes from the record. */
function wallet(entryView: (e: RawEntry) => EntryView, priority: number = PRIORITY.payout): JobDecoder {
  return {
    priority,
    view: entryView,
    activity: (e: RawEntry, tx: TxEntries) => (tx.find(...RECORD_TYPES) ? [] : [otherActivity(e)]),
  };
}

export const mrc402Family: Family = {
  name: 'MRC-402',
  jobs: {
    [MRC402.create]: recordEntry(views.create, createActivity),
    [MRC402.update]: recordEntry(views.update, updateActivity),
    [MRC402.mint]: recordEntry(views.mint, supplyActivity('nftMint')),
    [MRC402.burn]: recordEntry(views.burn, supplyActivity('nftBurn')),
    [MRC402.melt]: recordEntry(views.melt, meltActivity),
    [MRC402.sell]: recordEntry(views.sell, sellActivity),
    [MRC402.unsell]: recordEntry(views.unsell, cancelActivity('nftSellCancel')),
    [MRC402.buy]: recordEntry(views.buy, buyActivity),
    [MRC402.auction]: recordEntry(views.auction, auctionActivity),
    [MRC402.unauction]: recordEntry(views.unauction, cancelActivity('nftAuctionCancel')),
    [MRC402.auctionbid]: recordEntry(bidView, auctionbidActivity),
    [MRC402.auctionwinning]: recordEntry(views.auctionwinning, finishActivity('winning')),
    [MRC402.auctionbuynow]: recordEntry(views.auctionbuynow, finishActivity('buynow')),
    [MRC402.auctionfailure]: recordEntry(views.auctionfailure, auctionfailureActivity),
    // The calling party's wallet: same job_args as the record.
    [MRC402.walletCreate]: wallet(views.create, PRIORITY.secondary),
    [MRC402.walletUpdate]: wallet(views.update, PRIORITY.secondary),
    [MRC402.walletMint]: wallet(views.mint, PRIORITY.secondary),
    [MRC402.walletBurn]: wallet(views.burn, PRIORITY.secondary),
    [MRC402.walletMelt]: wallet(views.melt, PRIORITY.secondary),
    [MRC402.walletSell]: wallet(views.sell, PRIORITY.secondary),
    [MRC402.walletUnsell]: wallet(views.unsell, PRIORITY.secondary),
    [MRC402.walletAuction]: wallet(views.auction, PRIORITY.secondary),
    [MRC402.walletUnauction]: wallet(views.unauction, PRIORITY.secondary),
    [MRC402.walletAuctionfailure]: wallet(views.auctionfailure, PRIORITY.secondary),
    // A transfer has no record: the sender's entry carries it, the recipient's repeats it.
    [MRC402.transfer]: { priority: PRIORITY.main, view: views.transfer, activity: (e) => [transferActivity(e)] },
    [MRC402.receive]: {
      priority: PRIORITY.payout,
      view: views.receive,
      activity: (e, tx) => (tx.has(MRC402.transfer) ? [] : [transferActivity(e)]),
    },
    // Payments in and payouts: the pay token (naming the NFT), or the units themselves.
    [MRC402.transferBuy]: wallet(moneyView('MRC-402 buy')),
    [MRC402.transferBid]: wallet(moneyView('MRC-402 bid')),
    [MRC402.receiveSell]: wallet(moneyView('MRC-402 sale proceeds')),
    [MRC402.receiveAuction]: wallet(moneyView('MRC-402 auction proceeds')),
    [MRC402.receiveRefund]: wallet(moneyView('MRC-402 bid refund')),
    [MRC402.receiveFee]: wallet(moneyView('MRC-402 fee')),
    [MRC402.receiveItem]: wallet(itemView),
  } satisfies Record<Mrc402JobType, JobDecoder>,
};
