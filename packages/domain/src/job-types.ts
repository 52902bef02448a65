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
 * MRC-402 multi-supply NFTs and their DEX (CC-t `mrc402.go`): `MRC402_…` records, `DEX402_…` orders
 * and wallet writes.
 */
export const MRC402 = {
  // MRC402_… records
  create: 'mrc402_create',
  update: 'mrc402_update',
  mint: 'mrc402_mint',
  burn: 'mrc402_burn',
  melt: 'mrc402_melt',
  // DEX402_… order records
  sell: 'mrc402_sell',
  unsell: 'mrc402_unsell',
  buy: 'mrc402_buy',
  auction: 'mrc402_auction',
  unauction: 'mrc402_unauction',
  auctionbid: 'mrc402_auctionbid',
  auctionwinning: 'mrc402_auctionwinning',
  auctionbuynow: 'mrc402_auctionbuynow',
  auctionfailure: 'mrc402_auctionfailure',
  // wallet writes
  walletCreate: 'mrc402create',
  walletUpdate: 'mrc402update',
  walletMint: 'mrc402mint',
  walletBurn: 'mrc402burn',
  walletMelt: 'mrc402melt',
  transfer: 'transfer_mrc402',
  receive: 'receive_mrc402',
  walletSell: 'mrc402sell',
  walletUnsell: 'mrc402unsell',
  walletAuction: 'mrc402auction',
  walletUnauction: 'mrc402unauction',
  walletAuctionfailure: 'mrc402auctionfailure',
  transferBuy: 'transfer_mrc402buy',
  transferBid: 'transfer_mrc402bid',
  receiveSell: 'receive_mrc402sell',
  receiveAuction: 'receive_mrc402auction',
  receiveRefund: 'receive_mrc402refund',
  receiveFee: 'receive_mrc402fee',
  receiveItem: 'receive_mrc402item',
} as const;

/** The `type` of each PaymentInfo item of an MRC-402 settlement (payment roles, not entry types). */
export const MRC402_PAYMENT = {
  buy: 'mrc402_buy',
  bid: 'mrc402_bid',
  recvItem: 'mrc402_recv_item',
  recvSell: 'mrc402_recv_sell',
  recvAuction: 'mrc402_recv_auction',
  recvRefund: 'mrc402_recv_refund',
  recvFeeCreator: 'mrc402_recv_fee_creator',
  recvFeePlatform: 'mrc402_recv_fee_platform',
  recvFeeShareholder: 'mrc402_recv_fee_shareholder',
} as const;

/**
 * MRC-400 collections and MRC-401 items (CC-t `mrc400.go`, new layout; CC-m `mrc400.go`, old
 * layout): `MRC400_…` records, `MRC400_…_…` item records and wallet writes.
 */
export const MRC400 = {
  // MRC400_… collection records
  create: 'mrc400_create',
  update: 'mrc400_update',
  // MRC400_…_… item records
  itemCreate: 'mrc401_create',
  itemCreatetrade: 'mrc401_createtrade',
  itemUpdate: 'mrc401_update',
  itemTransfer: 'mrc401_transfer',
  itemSell: 'mrc401_sell',
  itemUnsell: 'mrc401_unsell',
  itemBuy: 'mrc401_buy',
  itemAuction: 'mrc401_auction',
  itemUnauction: 'mrc401_unauction',
  itemAuctionbid: 'mrc401_auctionbid',
  itemAuctionwinning: 'mrc401_auctionwinning',
  itemAuctionbuynow: 'mrc401_auctionbuynow',
  itemAuctionfailure: 'mrc401_auctionfailure',
  itemMelt: 'mrc401_melt',
  // wallet writes
  walletCreate: 'mrc400create',
  walletUpdate: 'mrc400update',
  walletItemCreate: 'mrc401create',
  /** The creator's wallet of an mrc401createtrade, whether it paid the reserve or was paid (CC-t). */
  walletItemCreatetrade: 'mrc401createtrade',
  walletItemUpdate: 'mrc401update',
  walletItemTransfer: 'mrc401transfer',
  walletItemSell: 'mrc401sell',
  walletItemUnsell: 'mrc401unsell',
  walletItemAuction: 'mrc401auction',
  walletItemUnauction: 'mrc401unauction',
  transferBuy: 'transfer_mrc401buy',
  transferCreatetrade: 'transfer_mrc401createtrade',
  transferBid: 'transfer_mrc401bid',
  receiveSell: 'receive_mrc401sell',
  receiveFee: 'receive_mrc401fee',
  receiveRefund: 'receive_mrc401refund',
  receiveAuction: 'receive_mrc401auction',
  receiveMelt: 'receive_melt',
  receiveMeltfee: 'receive_meltfee',
} as const;

/**
 * The `type` of each PaymentInfo item of an MRC-401 settlement or melt (payment roles, not entry
 * types): CC-m pays the MRC-400 owner one `mrc401_recv_fee`, CC-t splits fees into owner, platform
 * and shareholder roles and adds the create-and-sell roles (CC-t `mrc400.go` mrc401DexProcess; CC-m
 * Mrc401Buy, auctionFinish; both Mrc401AuctionBid, Mrc401Melt). As with DEX010, a wallet paid in
 * several roles gets one write named after the strongest.
 */
export const MRC400_PAYMENT = {
  buy: MRC400.itemBuy,
  bid: 'mrc401_bid',
  /** The creator's initial reserve locked into the item by mrc401createtrade. */
  createtrade: MRC400.itemCreatetrade,
  createtradeBuy: 'mrc401_createtrade_buy',
  /** CC-m: the MRC-400 owner's fee (the melting fee rate on a sale, the sell fee on an auction). */
  recvFee: 'mrc401_recv_fee',
  recvFeeOwner: 'mrc401_recv_fee_owner',
  recvFeePlatform: 'mrc401_recv_fee_platform',
  recvFeeShareholder: 'mrc401_recv_fee_shareholder',
  recvSell: 'mrc401_recv_sell',
  recvAuction: 'mrc401_recv_auction',
  recvRefund: 'mrc401_recv_refund',
  recvMeltfee: 'mrc401_recv_meltfee',
  recvMelt: 'mrc401_recv_melt',
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
export type Mrc402JobType = ValuesOf<typeof MRC402>;
export type Mrc400JobType = ValuesOf<typeof MRC400>;
export type KnownJobType =
  Mrc010JobType | Dex010JobType | Mrc402JobType | Mrc400JobType | LegacyJobType | typeof LIFECYCLE;
