/**
 * The fields TMRC010DEX and TMRC402DEX share (the item field and a few of TMRC010DEX's aside); the
 * order Go writes them in is zeroOrder's (order-record.ts).
 */
export interface DexOrder {
  dexid: string;
  seller: string;
  buyer: string;
  amount: string;
  remain_amount: string;
  platform_name: string;
  platform_url: string;
  platform_address: string;
  platform_commission: string;
  regdate: number;
  sell_date: number;
  cancel_date: number;
  sell_price: string;
  sell_token: string;
  auction_bid_count: number;
  auction_start_date: number;
  auction_end_date: number;
  auction_settle_date: number;
  auction_bidding_unit: string;
  auction_start_price: string;
  auction_buynow_price: string;
  auction_current_price: string;
  auction_current_bidder: string;
  job_type: string;
  job_args: string;
  jobdate: number;
}
