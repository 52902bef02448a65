import type { KnownActivity, Payment } from '../events.ts';
import { DEX010, DEX010_PAYMENT as PAY, type Dex010JobType } from '../job-types.ts';
import type { RawEntry } from '../node.ts';
import {
  decodePayments,
  int,
  lenientAmount,
  optionalInt,
  otherActivity,
  params,
  paymentView,
  PRIORITY,
  str,
  type EntryView,
  type Family,
  type JobDecoder,
  type TxEntries,
} from './family.ts';

/**
 * The MRC-010 DEX (metacoin-chain.md §4.1 rows mrc010sell … mrc010auctionfinish; CC-t `token.go`).
 *
 * A DEX call writes one `DEX010_…` order record plus one wallet entry per party, and the node lists
 * them in reverse key order. The activity is read from the order record's entry wherever it sits
 * in the set: its written values hold what the chaincode settled on (normalised amounts, default
 * dates, the current bid), its job_args the call's parties and the PaymentInfo JSON of a
 * settlement. The wallet entries only add the per-address view; they yield no activity of their
 * own (the record's activity already covers them), unless a transaction holds no order record at
 * all, which the chaincode never writes and which is then shown as generic activity.
 *
 * Order record job_args (CC-t `token.go`):
 *   mrc010_sell / _reqsell   [dexid, seller|buyer, amount, tokenId, price, payToken, pName, pURL, pAddr, pComm, minTradeUnit, sig, nonce]
 *   mrc010_unsell            [dexid, seller, remain, tokenId, price, payToken, sig, nonce]
 *   mrc010_unreqsell         [dexid, buyer, remain, tokenId, refund, payToken, sig, nonce]
 *   mrc010_buy               [dexid, seller, buyer, PaymentInfo, tokenId]
 *   mrc010_acceptreqsell     [dexid, buyer, seller, PaymentInfo, tokenId]
 *   mrc010_auction           [dexid, seller, amount, tokenId, startPrice, payToken, bidUnit, buyNow, start, end, pName, pURL, pAddr, pComm, nonce]
 *   mrc010_unauction         [dexid, seller, amount, tokenId, price, payToken, sig, nonce]
 *   mrc010_auctionbid        [dexid, seller, bidder, PaymentInfo, sig, nonce]
 *   mrc010_auctionwinning / _auctionbuynow  [dexid, seller, winner, PaymentInfo, tokenId]
 *   mrc010_auctionfailure    [dexid, seller, amount, tokenId]
 * The seller's / buyer's wallet entry of an order, cancel or failure carries the same job_args;
 * payouts use the payment layout with the DEX id as `from` (or `to`, for what a party pays in).
 */

/** The order record's entry types: the ones that carry a DEX call's activity. */
const RECORD_TYPES: readonly string[] = [
  DEX010.sell,
  DEX010.unsell,
  DEX010.buy,
  DEX010.reqsell,
  DEX010.unreqsell,
  DEX010.acceptreqsell,
  DEX010.auction,
  DEX010.unauction,
  DEX010.auctionbid,
  DEX010.auctionwinning,
  DEX010.auctionbuynow,
  DEX010.auctionfailure,
];

/** The order record as written (falls back to job_args where the values are missing). */
function order(e: RawEntry, tokenIndex: number) {
  const v = e.values ?? {};
  const p = params(e);
  const dexId = e.datakey || str(v['dexid']) || (p[0] ?? '');
  const tokenId = optionalInt(v['mrc010']) ?? optionalInt(p[tokenIndex]) ?? 0;
  /** A written value, else the job_args item at `index`. */
  const field = (name: string, index?: number): unknown =>
    v[name] !== undefined ? v[name] : index === undefined ? undefined : p[index];
  return { v, p, dexId, tokenId, field, jobType: e.type };
}

function payments(e: RawEntry, tokenIndex: number): Payment[] {
  const { p, tokenId } = order(e, tokenIndex);
  return decodePayments(p[3], tokenId);
}

/** The traded quantity of a settlement: the payout of the asset itself. */
function traded(list: readonly Payment[], ...types: string[]): string {
  return list.find((x) => types.includes(x.type))?.amount ?? '0';
}

const BID_PAYMENTS: readonly string[] = [PAY.bid, PAY.recvRefund];

// ---------------------------------------------------------------- views (per entry)

/**
 * Views of the layouts that start [dexid, party, amount, tokenId …]: an order placed (from the
 * party to the DEX) or ended (from the DEX back to the party), for the order's quantity of its
 * token. For a sell or auction that is what moved into escrow; a buy request escrows its payment
 * instead, which only the order record holds (`buy_price_total`, in the `buyRequest` activity), so
 * its row shows the quantity asked for.
 */
function escrowView(summary: string, direction: 'in' | 'out', amountIndex = 2, tokenIndex = 3) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    const dexId = p[0] ?? '';
    const party = p[1] ?? '';
    return {
      summary,
      from: direction === 'in' ? party : dexId,
      to: direction === 'in' ? dexId : party,
      amount: lenientAmount(p[amountIndex]),
      tokenId: optionalInt(p[tokenIndex]),
    };
  };
}

/** Settlements [dexid, a, b, PaymentInfo, tokenId]: the asset goes from `fromIndex` to `toIndex`. */
function settlementView(summary: string, fromIndex: number, toIndex: number, ...tradeTypes: string[]) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    return {
      summary,
      from: p[fromIndex] ?? '',
      to: p[toIndex] ?? '',
      amount: traded(payments(e, 4), ...tradeTypes),
      tokenId: optionalInt(p[4]),
    };
  };
}

/**
 * Payouts of the traded asset itself (`receive_mrc010item`, `receive_mrc010buy`) and the seller's
 * side of a filled buy request (`transfer_mrc010sell`) carry the quantity in the trade slot of the
 * payment layout: [from, to, payment, payToken, sig, "0", tradeAmount, tokenId, nonce]. A party's
 * row shows what it handed in (transfer_*) or got (receive_*).
 */
function tradeView(summary: string) {
  return (e: RawEntry): EntryView => {
    const p = params(e);
    return { summary, from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[6]), tokenId: optionalInt(p[7]) };
  };
}

function bidView(e: RawEntry): EntryView {
  const p = params(e);
  const bid = decodePayments(p[3], 0).find((x) => x.type === PAY.bid);
  return {
    summary: 'MRC-010 bid',
    from: p[2] ?? '',
    to: p[0] ?? '',
    amount: bid?.amount ?? '0',
    tokenId: bid?.token ?? null,
  };
}

const views = {
  sell: escrowView('MRC-010 sell', 'in'),
  reqsell: escrowView('MRC-010 buy request', 'in'),
  unsell: escrowView('MRC-010 sell cancel', 'out'),
  // What goes back is the escrowed payment: refund (index 4) in the pay token (index 5).
  unreqsell: escrowView('MRC-010 buy request cancel', 'out', 4, 5),
  auction: escrowView('MRC-010 auction', 'in'),
  unauction: escrowView('MRC-010 auction cancel', 'out'),
  auctionfailure: escrowView('MRC-010 auction failure', 'out'),
  buy: settlementView('MRC-010 buy', 1, 2, PAY.recvItem),
  acceptreqsell: settlementView('MRC-010 sell to buy request', 2, 1, PAY.sell, PAY.recvBuy),
  auctionwinning: settlementView('MRC-010 auction win', 1, 2, PAY.recvItem),
  auctionbuynow: settlementView('MRC-010 buy now', 1, 2, PAY.recvItem),
};

// ---------------------------------------------------------------- activities (per order record)

type Activities = (e: RawEntry) => KnownActivity[];

const sellActivity: Activities = (e) => {
  const o = order(e, 3);
  // "" in the call means 1 (CC-t Mrc010Sell); the record stores what was settled on.
  const unit = lenientAmount(o.field('min_trade_unit', 10));
  return [
    {
      kind: 'sell',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: str(o.field('seller', 1)),
      amount: lenientAmount(o.field('amount', 2)),
      price: lenientAmount(o.field('sell_price', 4)),
      payToken: int(o.field('sell_token', 5)),
      minTradeUnit: unit === '0' ? '1' : unit,
    },
  ];
};

const unsellActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'sellCancel',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: str(o.field('seller', 1)),
      // The remainder at cancellation (the record keeps it; job_args repeat it).
      amount: lenientAmount(o.p[2] ?? o.field('remain_amount')),
    },
  ];
};

const reqsellActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'buyRequest',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      buyer: str(o.field('buyer', 1)),
      amount: lenientAmount(o.field('amount', 2)),
      price: lenientAmount(o.field('buy_price', 4)),
      payToken: int(o.field('buy_token', 5)),
      escrow: lenientAmount(o.field('buy_price_total')),
    },
  ];
};

const unreqsellActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'buyRequestCancel',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      buyer: str(o.field('buyer', 1)),
      refund: lenientAmount(o.p[4] ?? o.field('buy_price_total')),
    },
  ];
};

const buyActivity: Activities = (e) => {
  const o = order(e, 4);
  const list = payments(e, 4);
  return [
    {
      kind: 'buy',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: str(o.field('seller', 1)),
      buyer: o.p[2] || str(o.v['buyer']),
      amount: traded(list, PAY.recvItem),
      payToken: int(o.field('sell_token')),
      payments: list,
    },
  ];
};

const acceptreqsellActivity: Activities = (e) => {
  const o = order(e, 4);
  const list = payments(e, 4);
  return [
    {
      kind: 'buyRequestAccept',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: o.p[2] || str(o.v['seller']),
      buyer: str(o.field('buyer', 1)),
      amount: traded(list, PAY.sell, PAY.recvBuy),
      payToken: int(o.field('buy_token')),
      payments: list,
    },
  ];
};

const auctionActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'auction',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: str(o.field('seller', 1)),
      amount: lenientAmount(o.field('amount', 2)),
      startPrice: lenientAmount(o.field('auction_start_price', 4)),
      buyNowPrice: lenientAmount(o.field('auction_buynow_price', 7)),
      payToken: int(o.field('sell_token', 5)),
      // The record holds the dates the chaincode settled on (defaults: now, start + 1 day).
      startDate: int(o.field('auction_start_date', 8)),
      endDate: int(o.field('auction_end_date', 9)),
    },
  ];
};

const unauctionActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'auctionCancel',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      seller: str(o.field('seller', 1)),
      amount: lenientAmount(o.field('amount', 2)),
    },
  ];
};

function bidActivity(e: RawEntry, list: Payment[]): KnownActivity {
  const o = order(e, 4);
  const bid = list.find((x) => x.type === PAY.bid);
  return {
    kind: 'bid',
    jobType: o.jobType,
    dexId: o.dexId,
    tokenId: o.tokenId,
    seller: str(o.field('seller', 1)),
    bidder: o.p[2] || str(o.v['auction_current_bidder']),
    price: bid?.amount ?? lenientAmount(o.v['auction_current_price']),
    payToken: int(o.field('sell_token')),
    payments: list,
  };
}

const auctionbidActivity: Activities = (e) => [bidActivity(e, payments(e, 4))];

/**
 * A winning or buy-now settlement. When a bid met the buy-now price, the bid settles in the same
 * transaction (the record's type is then `mrc010_auctionbuynow` and its PaymentInfo holds the bid):
 * that transaction yields the bid, then the finish, each with its own payouts.
 */
function finishActivity(outcome: 'winning' | 'buynow'): Activities {
  return (e) => {
    const o = order(e, 4);
    const list = payments(e, 4);
    const bidPart = list.filter((x) => BID_PAYMENTS.includes(x.type));
    const finishPart = list.filter((x) => !BID_PAYMENTS.includes(x.type));
    const finish: KnownActivity = {
      kind: 'auctionFinish',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      outcome,
      seller: str(o.field('seller', 1)),
      winner: o.p[2] || str(o.v['auction_current_bidder']),
      amount: traded(list, PAY.recvItem),
      price: lenientAmount(o.v['auction_current_price'] ?? bidPart.find((x) => x.type === PAY.bid)?.amount),
      payToken: int(o.field('sell_token')),
      payments: finishPart,
    };
    return bidPart.some((x) => x.type === PAY.bid) ? [bidActivity(e, bidPart), finish] : [finish];
  };
}

const auctionfailureActivity: Activities = (e) => {
  const o = order(e, 3);
  return [
    {
      kind: 'auctionFinish',
      jobType: o.jobType,
      dexId: o.dexId,
      tokenId: o.tokenId,
      outcome: 'failure',
      seller: str(o.field('seller', 1)),
      winner: '',
      amount: lenientAmount(o.p[2] ?? o.field('amount')),
      price: '0',
      payToken: int(o.field('sell_token')),
      payments: [],
    },
  ];
};

// ---------------------------------------------------------------- the table

function orderRecord(view: (e: RawEntry) => EntryView, activity: Activities): JobDecoder {
  return { priority: PRIORITY.main, view, activity: (e) => activity(e) };
}

/** A party's wallet entry: its own view; the activity comes from the order record. */
function wallet(view: (e: RawEntry) => EntryView, priority: number = PRIORITY.payout): JobDecoder {
  return { priority, view, activity: (e: RawEntry, tx: TxEntries) => (hasOrderRecord(tx) ? [] : [otherActivity(e)]) };
}

function hasOrderRecord(tx: TxEntries): boolean {
  return tx.find(...RECORD_TYPES) !== undefined;
}

export const dex010Family: Family = {
  name: 'MRC-010 DEX',
  jobs: {
    [DEX010.sell]: orderRecord(views.sell, sellActivity),
    [DEX010.unsell]: orderRecord(views.unsell, unsellActivity),
    [DEX010.buy]: orderRecord(views.buy, buyActivity),
    [DEX010.reqsell]: orderRecord(views.reqsell, reqsellActivity),
    [DEX010.unreqsell]: orderRecord(views.unreqsell, unreqsellActivity),
    [DEX010.acceptreqsell]: orderRecord(views.acceptreqsell, acceptreqsellActivity),
    [DEX010.auction]: orderRecord(views.auction, auctionActivity),
    [DEX010.unauction]: orderRecord(views.unauction, unauctionActivity),
    [DEX010.auctionbid]: orderRecord(bidView, auctionbidActivity),
    [DEX010.auctionwinning]: orderRecord(views.auctionwinning, finishActivity('winning')),
    [DEX010.auctionbuynow]: orderRecord(views.auctionbuynow, finishActivity('buynow')),
    [DEX010.auctionfailure]: orderRecord(views.auctionfailure, auctionfailureActivity),
    // The calling party's wallet: same job_args as the record.
    [DEX010.walletSell]: wallet(views.sell, PRIORITY.secondary),
    [DEX010.walletUnsell]: wallet(views.unsell, PRIORITY.secondary),
    [DEX010.walletReqsell]: wallet(views.reqsell, PRIORITY.secondary),
    [DEX010.walletUnreqsell]: wallet(views.unreqsell, PRIORITY.secondary),
    [DEX010.walletAuction]: wallet(views.auction, PRIORITY.secondary),
    [DEX010.walletUnauction]: wallet(views.unauction, PRIORITY.secondary),
    [DEX010.walletAuctionfailure]: wallet(views.auctionfailure, PRIORITY.secondary),
    // Payments in and payouts: the payment layout (money), or its trade slot (the asset).
    [DEX010.transferBuy]: wallet(paymentView('MRC-010 buy')),
    [DEX010.transferSell]: wallet(tradeView('MRC-010 sell to buy request')),
    [DEX010.transferBid]: wallet(paymentView('MRC-010 bid')),
    [DEX010.receiveSell]: wallet(paymentView('MRC-010 sale proceeds')),
    [DEX010.receiveBuy]: wallet(tradeView('MRC-010 bought by request')),
    [DEX010.receiveFee]: wallet(paymentView('MRC-010 fee')),
    [DEX010.receiveRefund]: wallet(paymentView('MRC-010 bid refund')),
    [DEX010.receiveItem]: wallet(tradeView('MRC-010 auction item')),
    [DEX010.receiveAuction]: wallet(paymentView('MRC-010 auction proceeds')),
    [DEX010.recvFeeRemain]: wallet(paymentView('MRC-010 fee refund'), PRIORITY.minor),
  } satisfies Record<Dex010JobType, JobDecoder>,
};
