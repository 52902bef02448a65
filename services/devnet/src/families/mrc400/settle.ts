import { sortedEntries, decimalOrZero } from '../../chaincode/util.ts';
import { MRC400, MRC400_PAYMENT as PAY } from '@mtc/domain';
import { getAddressInfo, setAddressInfo } from '../../chaincode/base.ts';
import { mrc010Add, mrc010Subtract } from '../mrc010/balance.ts';
import { dexFee, NO_AUCTION, NO_SALE, setMrc401 } from './chaincode.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Mrc400Collection, Mrc401Item } from './records.ts';
import type { Wallet } from '../mrc010/records.ts';
import type { Stub } from '../../world/stub.ts';
import { payment, type PaymentInfo } from '../dex/dex.ts';

export type TradeType = 'buy' | 'createtrade' | 'auction';

/** Payments whose amount leaves the `from` wallet (Go's SubtractJob; "mrc401_create" never occurs). */
const PAYS_IN: ReadonlySet<string> = new Set([PAY.bid, PAY.buy, 'mrc401_create', PAY.createtrade, PAY.createtradeBuy]);
const FEE_ROLE_PREFIX = 'mrc401_recv_fee_';

/** Go's RecvMapType: one wallet's payments, summed. */
interface Payout {
  fromAddr: string;
  toAddr: string;
  amount: bigint;
  tradeAmount: string;
  role: string;
  token: string;
}

/** The wallet job type of each payout role, and whether its wallet is the payment's `from`. */
const ROLE_WRITE: Readonly<Record<string, readonly [string, 'from' | 'to']>> = {
  [PAY.buy]: [MRC400.transferBuy, 'from'],
  [PAY.createtradeBuy]: [MRC400.transferCreatetrade, 'from'],
  // Never written under its own name: the payer of the reserve is always the creator (see below).
  [PAY.createtrade]: ['transfer_mrc401create', 'from'],
  [PAY.bid]: [MRC400.transferBid, 'from'],
  [PAY.recvSell]: [MRC400.receiveSell, 'to'],
  [PAY.recvAuction]: [MRC400.receiveAuction, 'to'],
  [PAY.recvRefund]: [MRC400.receiveRefund, 'to'],
  [PAY.recvFeeOwner]: [MRC400.receiveFee, 'to'],
  [PAY.recvFeePlatform]: [MRC400.receiveFee, 'to'],
  [PAY.recvFeeShareholder]: [MRC400.receiveFee, 'to'],
};

/**
 * CC-t `mrc400.go` mrc401DexProcess: settles a `buy`, a `createtrade` or an `auction` (a buy-now
 * bid or mrc401auctionfinish, whose bid is escrowed in the item already). From the price go, each
 * floor(price × rate / 100) and only when positive: the MRC-400 owner's `sell_fee`, the platform's
 * commission (if it has an address), each shareholder's; the seller gets the rest. `payments` arrive
 * with what the caller listed (reserve and buy of a createtrade, bid and refund) and get these appended.
 *
 * Each wallet is written once, with the sum of its payments, named after its strongest role: a fee
 * gives way to anything, a refund to anything, and the creator's reserve payment (amount not
 * summed: it was taken already) to its first other role. Quirks kept: a wallet whose payments sum to
 * zero is still written; the creator of a createtrade is written `mrc401createtrade` whatever its
 * role, and not at all when it paid no reserve and is not paid (its nonce rotation is then lost).
 * Writes carry [from, to, |sum|, payToken, sign, "0", tradeAmount, itemId, tkey] (the reserve role
 * [item, creator, …, reserveToken, …]). The item is written `mrc401_buy`, `mrc401_createtrade`,
 * `mrc401_auctionwinning` or `mrc401_auctionbuynow` [itemId, seller, buyer, PaymentInfo JSON], its
 * sale and auction cleared, the buyer its owner, the last trade recorded; the platform fields stay.
 */
export function mrc401DexProcess(
  stub: Stub,
  collection: Mrc400Collection,
  item: Mrc401Item,
  creatorWallet: Wallet | null,
  buyerWallet: Wallet,
  payments: PaymentInfo[],
  tradeType: TradeType,
  sign: string,
  tkey: string,
): void {
  const auction = tradeType === 'auction';
  const buyerAddress = auction ? item.auction_current_bidder : buyerWallet.id;
  const sellerRole = auction ? PAY.recvAuction : PAY.recvSell;
  const itemJobType = auction
    ? item.auction_current_price === item.auction_buynow_price
      ? MRC400.itemAuctionbuynow
      : MRC400.itemAuctionwinning
    : tradeType === 'buy'
      ? MRC400.itemBuy
      : MRC400.itemCreatetrade;
  const payToken = auction ? item.auction_token : item.sell_token;
  const price = decimalOrZero(auction ? item.auction_current_price : item.sell_price);
  recordTrade(stub, item, auction ? 'Auction' : 'Sell');

  let receive = price;
  const fee = (to: string, rate: string, role: string) => {
    const amount = dexFee(price, rate);
    if (amount === null) return;
    payments.push(payment(item.id, to, amount.toString(), payToken, '', '', role));
    receive -= amount;
  };
  fee(collection.owner, item.sell_fee, PAY.recvFeeOwner);
  if (isMtAddress(item.platform_address)) fee(item.platform_address, item.platform_commission, PAY.recvFeePlatform);
  for (const [address, rate] of sortedEntries(item.shareholder)) fee(address, rate, PAY.recvFeeShareholder);
  payments.push(payment(item.id, item.owner, receive.toString(), payToken, '', '', sellerRole));

  const payouts = new Map<string, Payout>();
  for (const pi of payments) {
    const paysIn = PAYS_IN.has(pi.type);
    const amount = paysIn ? -decimalOrZero(pi.amount) : decimalOrZero(pi.amount);
    const address = paysIn ? pi.from_addr : pi.to_addr;
    const reserve = isReserve(pi.type);
    const known = payouts.get(address);
    if (!known) {
      payouts.set(address, {
        fromAddr: pi.from_addr,
        toAddr: pi.to_addr,
        role: pi.type,
        tradeAmount: reserve ? '' : pi.trade_amount,
        amount: reserve ? 0n : amount,
        token: reserve ? pi.token : payToken,
      });
      continue;
    }
    const isFee = (role: string) => role.startsWith(FEE_ROLE_PREFIX);
    if (isReserve(known.role) || isFee(known.role) || !isFee(pi.type) || known.role === PAY.recvRefund) {
      known.role = pi.type;
      known.fromAddr = pi.from_addr;
      known.toAddr = pi.to_addr;
    }
    if (pi.trade_amount !== '' && known.tradeAmount === '') known.tradeAmount = pi.trade_amount;
    known.amount += amount;
  }

  for (const v of payouts.values()) {
    const write = ROLE_WRITE[v.role];
    if (!write) throw new Error(`no wallet job type for MRC-401 payment role ${v.role}`);
    let [jobType] = write;
    const address = write[1] === 'from' ? v.fromAddr : v.toAddr;
    let wallet: Wallet;
    if (address === buyerWallet.id || address === item.auction_current_bidder) wallet = buyerWallet;
    else if (creatorWallet && address === creatorWallet.id) {
      wallet = creatorWallet;
      if (tradeType === 'createtrade') jobType = MRC400.walletItemCreatetrade;
    } else wallet = getAddressInfo(stub, address);

    const magnitude = v.amount < 0n ? -v.amount : v.amount;
    if (v.amount < 0n) mrc010Subtract(stub, wallet, payToken, magnitude.toString(), 'normal');
    else if (v.amount > 0n) mrc010Add(stub, wallet, payToken, magnitude.toString(), 0);
    const [from, to, token] = isReserve(v.role) ? [v.toAddr, v.fromAddr, v.token] : [v.fromAddr, v.toAddr, payToken];
    setAddressInfo(stub, wallet, jobType, tradeArgs(from, to, magnitude, token, sign, item.id, tkey, v.tradeAmount));
  }

  Object.assign(item, NO_AUCTION);
  Object.assign(item, NO_SALE);
  const params = [item.id, item.owner, buyerAddress, JSON.stringify(payments)];
  item.owner = buyerAddress;
  setMrc401(stub, item.id, item, itemJobType, params);
}

/** The creator's payment of an item's initial reserve. */
function isReserve(role: string): boolean {
  return role === 'mrc401_create' || role === PAY.createtrade;
}

/** Records a sale or an auction as the item's last trade. */
export function recordTrade(stub: Stub, item: Mrc401Item, type: 'Sell' | 'Auction'): void {
  const auction = type === 'Auction';
  item.last_trade_date = stub.now;
  item.last_trade_amount = auction ? item.auction_current_price : item.sell_price;
  item.last_trade_token = auction ? item.auction_token : item.sell_token;
  item.last_trade_type = type;
}

/** A wallet write's arguments for a payment: [from, to, amount, token, sig, "0", tradeAmount, item, nonce]. */
export function tradeArgs(
  from: string,
  to: string,
  amount: bigint | string,
  token: string,
  sig: string,
  item: string,
  nonce: string,
  tradeAmount = '',
): string[] {
  return [from, to, amount.toString(), token, sig, '0', tradeAmount, item, nonce];
}

/** CC-m Mrc401Buy's and Mrc401AuctionFinish's payout: `fee` to the MRC-400 owner, the rest to the seller. */
export function payCCm(
  stub: Stub,
  c: Mrc400Collection,
  item: { id: string; seller: string; token: string; price: bigint; fee: bigint },
  payments: PaymentInfo[],
  sale: { jobType: string; role: string; creditFee: boolean },
  args: (fee: boolean, to: string, amount: bigint) => string[],
): void {
  const { id, seller, token, price, fee } = item;
  const receive = price - fee;
  if (fee > 0n) {
    payments.push(payment(id, c.owner, fee.toString(), token, '', '', PAY.recvFee));
    if (sale.creditFee) credit(stub, c.owner, token, fee, MRC400.receiveFee, args(true, c.owner, fee));
  }
  if (receive > 0n) {
    payments.push(payment(id, seller, receive.toString(), token, '', '', sale.role));
    credit(stub, seller, token, receive, sale.jobType, args(false, seller, receive));
  }
}

/** Pays `amount` of `token` to the wallet at `address` and writes it as `jobType`. */
export function credit(
  stub: Stub,
  address: string,
  token: string,
  amount: bigint | string,
  jobType: string,
  args: readonly string[],
): void {
  const wallet = getAddressInfo(stub, address);
  mrc010Add(stub, wallet, token, amount.toString(), 0);
  setAddressInfo(stub, wallet, jobType, args);
}
