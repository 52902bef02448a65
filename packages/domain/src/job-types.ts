/**
 * Every chaincode job type (the `type` of a node entry = the written record's `job_type`) that the
 * indexer knows, by family. These names are written once, here: the devnet writes them and the
 * decoder's table reads them, and a test proves that every type the devnet can write is decoded or
 * explicitly ignored. Sources: metacoin-chain.md §4 (CC-t `MetaCoin.go`, `base.go`, `token.go`;
 * legacy CC-22 for the old families).
 */

/** Base wallet and MRC-010 token jobs (CC-t `base.go`, `token.go`). */
export const MRC010 = {
  newWallet: 'NewWallet',
  transfer: 'transfer',
  receive: 'receive',
  multiTransfer: 'multi_transfer',
  tokenRegister: 'tokenRegister',
  tokenReserve: 'token_reserve',
  tokenUpdate: 'tokenUpdate',
  tokenIncrease: 'tokenIncrease',
  ownerIncrease: 'ownerIncrease',
  tokenBurning: 'tokenBurning',
  ownerBurning: 'ownerBurning',
} as const;

/** The MRC-010 DEX (CC-t `token.go` mrc010sell … mrc010auctionfinish): DEX010 records and wallets. */
export const DEX010 = {
  // DEX010_… order records
  sell: 'mrc010_sell',
  unsell: 'mrc010_unsell',
  buy: 'mrc010_buy',
  reqsell: 'mrc010_reqsell',
  unreqsell: 'mrc010_unreqsell',
  acceptreqsell: 'mrc010_acceptreqsell',
  auction: 'mrc010_auction',
  unauction: 'mrc010_unauction',
  auctionbid: 'mrc010_auctionbid',
  auctionwinning: 'mrc010_auctionwinning',
  auctionbuynow: 'mrc010_auctionbuynow',
  auctionfailure: 'mrc010_auctionfailure',
  // wallet writes
  walletSell: 'mrc010sell',
  walletUnsell: 'mrc010unsell',
  walletReqsell: 'mrc010reqsell',
  walletUnreqsell: 'mrc010unreqsell',
  walletAuction: 'mrc010auction',
  walletUnauction: 'mrc010unauction',
  walletAuctionfailure: 'mrc010auctionfailure',
  transferBuy: 'transfer_mrc010buy',
  transferSell: 'transfer_mrc010sell',
  transferBid: 'transfer_mrc010bid',
  receiveSell: 'receive_mrc010sell',
  receiveBuy: 'receive_mrc010buy',
  receiveFee: 'receive_mrc010fee',
  receiveRefund: 'receive_mrc010refund',
  receiveItem: 'receive_mrc010item',
  receiveAuction: 'receive_mrc010auction',
  /** Leftover request-to-sell fee refunded to the buyer when the order fills. */
  recvFeeRemain: 'mrc010_recv_fee_remain',
} as const;

/**
 * The `type` of each PaymentInfo item `{from_addr, to_addr, amount, token, trade_amount, trade_id,
 * type}` in the JSON a DEX010 write carries in its job_args (CC-t `token.go` mrc010DexProcess,
 * mrc010DexProcessReqSell, Mrc010AuctionBid). These are payment roles, not entry types; the
 * chaincode sums a wallet's payments and names its write after the strongest role (see DEX010).
 * `mrc010_recv_fee_remain` (the request's unspent fee back to the buyer on the fill) is one of them:
 * the buyer's wallet write of that fill is `receive_mrc010buy`.
 */
export const DEX010_PAYMENT = {
  buy: 'mrc010_buy',
  bid: 'mrc010_bid',
  sell: 'mrc010_sell',
  sendItem: 'mrc010_send_item',
  recvItem: 'mrc010_recv_item',
  recvBuy: 'mrc010_recv_buy',
  recvSell: 'mrc010_recv_sell',
  recvAuction: 'mrc010_recv_auction',
  recvRefund: 'mrc010_recv_refund',
  recvFeePlatform: 'mrc010_recv_fee_platform',
  recvFeeRemain: DEX010.recvFeeRemain,
} as const;

/**
 * Job types of families that only old history holds (dispatched until ≈ 2022-08, CC-22) or that an
 * explorer of fungible assets shows as generic activity (MRC-100 games, MRC-030 votes).
 */
export const LEGACY = {
  setBase: 'SetBase',
  tokenAddTarget: 'tokenAddTarget',
  tokenRemoveTarget: 'tokenRemoveTarget',
  tokenAddLogger: 'tokenAddLogger',
  tokenRemoveLogger: 'tokenRemoveLogger',
  exchange: 'exchange',
  exchangePair: 'exchangePair',
  exchangeFee: 'exchangeFee',
  exchangeFeePair: 'exchangeFeePair',
  mrc100Log: 'MRC100LOG',
  mrc100Payment: 'mrc100payment',
  mrc100PaymentRecv: 'mrc100paymentrecv',
  mrc030Reward: 'mrc030reward',
  mrc030Payment: 'mrc030payment',
} as const;

/** The entry type of a chaincode lifecycle commit (no values, no datakey). */
export const LIFECYCLE = 'Chaincode Install or Update';

type ValuesOf<T> = T[keyof T];
export type Mrc010JobType = ValuesOf<typeof MRC010>;
export type Dex010JobType = ValuesOf<typeof DEX010>;
export type LegacyJobType = ValuesOf<typeof LEGACY>;
export type KnownJobType = Mrc010JobType | Dex010JobType | LegacyJobType | typeof LIFECYCLE;
