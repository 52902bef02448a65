import { describe, expect, it } from 'vitest';
import { decodeTransaction, describeEntry } from '../decode.ts';
import type { RawEntry } from '../node.ts';
import { addr, entry, nodeOrder, POS, walletEntry } from './fixtures.ts';

/**
 * MRC-010 DEX transactions built by hand the way CC-t `token.go` writes them (metacoin-chain.md
 * §4.1): the DEX010 order record plus the parties' wallets, listed in reverse key order (the
 * wallets' `MT…` keys sort after `DEX010_…`, so the record comes last). Expected values are worked
 * out from the chaincode's arithmetic in the comments, not taken from the decoder.
 */
const S = addr('Seller');
const BU = addr('Buyer');
const P = addr('Platform');
const R = addr('Rival');
const DEX = `DEX010_${'0123456789abcdef'.repeat(2)}0`;

/** A DEX010 record (CC-t TMRC010DEX) for a sell order of 1000 of token 5 at 3 MTC per 10. */
function dexRecord(jobType: string, jobArgs: unknown[], fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dexid: DEX,
    mrc010: '5',
    seller: S,
    buyer: '',
    amount: '1000',
    remain_amount: '1000',
    min_trade_unit: '10',
    platform_name: 'pf',
    platform_url: 'https://pf.example',
    platform_address: P,
    platform_commission: '2.5',
    regdate: 1_699_999_000,
    sell_date: 0,
    cancel_date: 0,
    sell_price: '3',
    sell_token: '0',
    buy_price: '',
    buy_token: '',
    buy_price_total: '',
    auction_bid_count: 0,
    auction_start_date: 0,
    auction_end_date: 0,
    auction_settle_date: 0,
    auction_bidding_unit: '',
    auction_start_price: '',
    auction_buynow_price: '',
    auction_current_price: '',
    auction_current_bidder: '',
    job_type: jobType,
    job_args: JSON.stringify(jobArgs),
    jobdate: 1_700_000_000,
    ...fields,
  };
}

/** One TDexPaymentInfo as Go marshals it: every field, strings. */
function pi(
  from: string,
  to: string,
  amount: string,
  token: string,
  tradeAmount: string,
  tradeId: string,
  type: string,
) {
  return { from_addr: from, to_addr: to, amount, token, trade_amount: tradeAmount, trade_id: tradeId, type };
}

function dexEntry(type: string, params: string[], fields: Record<string, unknown> = {}): RawEntry {
  return entry(type, DEX, params, dexRecord(type, params, fields));
}

describe('MRC-010 DEX family', () => {
  it('decodes a sell order from the record, which holds the settled minimum trade unit', () => {
    // mrc010sell(S, 1000, 5, 3, 0, pf, url, P, 2.5, "", sig, nonce): "" means a unit of 1.
    const p = [DEX, S, '1000', '5', '3', '0', 'pf', 'https://pf.example', P, '2.5', '', 'sig', 'nonce'];
    const entries = nodeOrder([
      dexEntry('mrc010_sell', p, { min_trade_unit: '1' }),
      walletEntry('mrc010sell', S, p, [
        { balance: '500', token: 5, unlockdate: 0, saleamount: '1000', auctionamount: '' },
      ]),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['mrc010sell', 'mrc010_sell']);
    const tx = decodeTransaction(POS, entries);
    expect(tx.activity).toEqual([
      {
        kind: 'sell',
        jobType: 'mrc010_sell',
        dexId: DEX,
        tokenId: 5,
        seller: S,
        amount: '1000',
        price: '3',
        payToken: 0,
        minTradeUnit: '1',
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc010_sell', from: S, to: DEX, amount: '1000', token: '5' });
    expect(tx.writes.map((w) => [w.kind, w.key])).toEqual([
      ['wallet', S],
      ['other', DEX],
    ]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.balances[0]).toMatchObject({ balance: '500', saleamount: '1000' });
    expect(describeEntry(entries[0]!)).toEqual({
      summary: 'MRC-010 sell',
      from: S,
      to: DEX,
      amount: '1000',
      tokenId: 5,
    });
  });

  it('decodes a buy with its payouts, whatever the position of the order record', () => {
    // BU buys 200 of the 1000 at 3 MTC per 10: pays 200 / 10 × 3 = 60 MTC; the platform's 2.5 %
    // fee is floor(60 × 2.5 / 100) = 1; the seller gets 59.
    const info = [
      pi(BU, DEX, '60', '0', '', '', 'mrc010_buy'),
      pi(DEX, BU, '', '', '200', '5', 'mrc010_recv_item'),
      pi(DEX, P, '1', '0', '', '', 'mrc010_recv_fee_platform'),
      pi(DEX, S, '59', '0', '', '', 'mrc010_recv_sell'),
    ];
    const record = dexEntry('mrc010_buy', [DEX, S, BU, JSON.stringify(info), '5'], {
      buyer: BU,
      remain_amount: '800',
    });
    const wallets = [
      walletEntry('transfer_mrc010buy', BU, [BU, DEX, '60', '0', 'sig', '0', '200', '5', 'nonce']),
      walletEntry('receive_mrc010fee', P, [DEX, P, '1', '0', 'sig', '0', '', '5', 'nonce']),
      walletEntry('receive_mrc010sell', S, [DEX, S, '59', '0', 'sig', '0', '', '5', 'nonce']),
    ];
    const expected = {
      kind: 'buy',
      jobType: 'mrc010_buy',
      dexId: DEX,
      tokenId: 5,
      seller: S,
      buyer: BU,
      amount: '200',
      payToken: 0,
      payments: [
        { from: BU, to: DEX, amount: '60', token: 0, type: 'mrc010_buy' },
        { from: DEX, to: BU, amount: '200', token: 5, type: 'mrc010_recv_item' },
        { from: DEX, to: P, amount: '1', token: 0, type: 'mrc010_recv_fee_platform' },
        { from: DEX, to: S, amount: '59', token: 0, type: 'mrc010_recv_sell' },
      ],
    };
    for (const entries of [
      nodeOrder([record, ...wallets]),
      [record, ...wallets],
      [wallets[0]!, record, ...wallets.slice(1)],
    ]) {
      const tx = decodeTransaction(POS, entries);
      expect(tx.activity).toEqual([expected]);
      expect(tx.summary).toEqual({ type: 'mrc010_buy', from: S, to: BU, amount: '200', token: '5' });
      expect(tx.writes).toHaveLength(4);
    }
    expect(wallets.map(describeEntry)).toEqual([
      { summary: 'MRC-010 buy', from: BU, to: DEX, amount: '60', tokenId: 0 },
      { summary: 'MRC-010 fee', from: DEX, to: P, amount: '1', tokenId: 0 },
      { summary: 'MRC-010 sale proceeds', from: DEX, to: S, amount: '59', tokenId: 0 },
    ]);
  });

  it('decodes a request to buy and a seller filling part of it', () => {
    // mrc010reqsell(BU, 500, 5, 4, 0, pf, url, P, 1, 1, …): total 500 / 1 × 4 = 2000, fee
    // floor(2000 × 1 / 100) = 20, so BU escrows 2020.
    const p = [DEX, BU, '500', '5', '4', '0', 'pf', 'https://pf.example', P, '1', '1', 'sig', 'nonce'];
    const request = {
      seller: '',
      buyer: BU,
      amount: '500',
      remain_amount: '500',
      min_trade_unit: '1',
      platform_commission: '1',
      sell_price: '',
      sell_token: '',
      buy_price: '4',
      buy_token: '0',
      buy_price_total: '2020',
    };
    const placed = decodeTransaction(
      POS,
      nodeOrder([dexEntry('mrc010_reqsell', p, request), walletEntry('mrc010reqsell', BU, p)]),
    );
    expect(placed.activity).toEqual([
      {
        kind: 'buyRequest',
        jobType: 'mrc010_reqsell',
        dexId: DEX,
        tokenId: 5,
        buyer: BU,
        amount: '500',
        price: '4',
        payToken: 0,
        escrow: '2020',
      },
    ]);
    expect(placed.summary).toEqual({ type: 'mrc010_reqsell', from: BU, to: DEX, amount: '500', token: '5' });

    // mrc010acceptreqsell(DEX, S, 200): S is paid 200 × 4 = 800, the platform floor(800 × 1 / 100)
    // = 8 out of the escrow (2020 − 800 − 8 = 1212 left), BU receives the 200 tokens.
    const info = [
      pi(S, DEX, '', '', '200', '5', 'mrc010_sell'),
      pi(DEX, S, '800', '0', '', '', 'mrc010_send_item'),
      pi(DEX, P, '8', '0', '', '', 'mrc010_recv_fee_platform'),
      pi(DEX, BU, '', '', '200', '5', 'mrc010_recv_buy'),
    ];
    const accepted = nodeOrder([
      dexEntry('mrc010_acceptreqsell', [DEX, BU, S, JSON.stringify(info), '5'], {
        ...request,
        seller: S,
        remain_amount: '300',
        buy_price_total: '1212',
      }),
      walletEntry('transfer_mrc010sell', S, [S, DEX, '800', '0', 'sig', '0', '200', '5', 'nonce']),
      walletEntry('receive_mrc010fee', P, [DEX, P, '8', '0', 'sig', '0', '0', '5', 'nonce']),
      walletEntry('receive_mrc010buy', BU, [DEX, BU, '0', '0', 'sig', '0', '200', '5', 'nonce']),
    ]);
    const tx = decodeTransaction(POS, accepted);
    expect(tx.activity).toEqual([
      {
        kind: 'buyRequestAccept',
        jobType: 'mrc010_acceptreqsell',
        dexId: DEX,
        tokenId: 5,
        seller: S,
        buyer: BU,
        amount: '200',
        payToken: 0,
        payments: [
          { from: S, to: DEX, amount: '200', token: 5, type: 'mrc010_sell' },
          { from: DEX, to: S, amount: '800', token: 0, type: 'mrc010_send_item' },
          { from: DEX, to: P, amount: '8', token: 0, type: 'mrc010_recv_fee_platform' },
          { from: DEX, to: BU, amount: '200', token: 5, type: 'mrc010_recv_buy' },
        ],
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc010_acceptreqsell', from: S, to: BU, amount: '200', token: '5' });
    // The seller handed in 200 tokens; the buyer got 200 tokens (the trade slot of the layout).
    expect(describeEntry(accepted.find((e) => e.type === 'transfer_mrc010sell')!)).toEqual({
      summary: 'MRC-010 sell to buy request',
      from: S,
      to: DEX,
      amount: '200',
      tokenId: 5,
    });
    expect(describeEntry(accepted.find((e) => e.type === 'receive_mrc010buy')!)).toEqual({
      summary: 'MRC-010 bought by request',
      from: DEX,
      to: BU,
      amount: '200',
      tokenId: 5,
    });
  });

  it('decodes an auction with the dates the chaincode settled on, not the "0" of the call', () => {
    // start "0" → now (1_700_000_000), end "0" → start + 86400.
    const p = [DEX, S, '100', '5', '50', '0', '5', '200', '0', '0', 'pf', 'https://pf.example', P, '2', 'nonce'];
    const fields = {
      amount: '100',
      remain_amount: '100',
      min_trade_unit: '1',
      sell_price: '',
      auction_start_date: 1_700_000_000,
      auction_end_date: 1_700_086_400,
      auction_bidding_unit: '5',
      auction_start_price: '50',
      auction_buynow_price: '200',
    };
    const tx = decodeTransaction(
      POS,
      nodeOrder([dexEntry('mrc010_auction', p, fields), walletEntry('mrc010auction', S, p)]),
    );
    expect(tx.activity).toEqual([
      {
        kind: 'auction',
        jobType: 'mrc010_auction',
        dexId: DEX,
        tokenId: 5,
        seller: S,
        amount: '100',
        startPrice: '50',
        buyNowPrice: '200',
        payToken: 0,
        startDate: 1_700_000_000,
        endDate: 1_700_086_400,
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc010_auction', from: S, to: DEX, amount: '100', token: '5' });
  });

  const auction = {
    amount: '100',
    min_trade_unit: '1',
    sell_price: '',
    platform_commission: '2',
    auction_start_date: 1_700_000_000,
    auction_end_date: 1_700_086_400,
    auction_bidding_unit: '5',
    auction_start_price: '50',
    auction_buynow_price: '200',
  };

  it('decodes a bid that outbids and refunds the previous bidder', () => {
    // R held the bid at 60; BU bids 70 (≥ 60 + unit 5): R gets 60 back, BU escrows 70.
    const info = [pi(DEX, R, '60', '0', '', '', 'mrc010_recv_refund'), pi(BU, DEX, '70', '0', '', '', 'mrc010_bid')];
    const entries = nodeOrder([
      dexEntry('mrc010_auctionbid', [DEX, S, BU, JSON.stringify(info), 'sig', 'nonce'], {
        ...auction,
        auction_bid_count: 2,
        auction_current_price: '70',
        auction_current_bidder: BU,
      }),
      walletEntry('transfer_mrc010bid', BU, [BU, DEX, '70', '0', 'sig', '0', '', '5', 'nonce']),
      walletEntry('receive_mrc010refund', R, [DEX, R, '60', '0', 'sig', '0', '', '5', 'nonce']),
    ]);
    const tx = decodeTransaction(POS, entries);
    expect(tx.activity).toEqual([
      {
        kind: 'bid',
        jobType: 'mrc010_auctionbid',
        dexId: DEX,
        tokenId: 5,
        seller: S,
        bidder: BU,
        price: '70',
        payToken: 0,
        payments: [
          { from: DEX, to: R, amount: '60', token: 0, type: 'mrc010_recv_refund' },
          { from: BU, to: DEX, amount: '70', token: 0, type: 'mrc010_bid' },
        ],
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc010_auctionbid', from: BU, to: DEX, amount: '70', token: '0' });
    expect(entries.filter((e) => e.datakey !== DEX).map(describeEntry)).toEqual([
      { summary: 'MRC-010 bid refund', from: DEX, to: R, amount: '60', tokenId: 0 },
      { summary: 'MRC-010 bid', from: BU, to: DEX, amount: '70', tokenId: 0 },
    ]);
  });

  it('decodes a bid at the buy-now price as the bid, then the settlement, each with its own payouts', () => {
    // BU bids 200 = buy-now: R's 60 is refunded, BU gets the 100 tokens, the platform
    // floor(200 × 2 / 100) = 4, the seller 196. The record is written as mrc010_auctionbuynow.
    const info = [
      pi(DEX, R, '60', '0', '', '', 'mrc010_recv_refund'),
      pi(BU, DEX, '200', '0', '', '', 'mrc010_bid'),
      pi(DEX, BU, '', '', '100', '5', 'mrc010_recv_item'),
      pi(DEX, P, '4', '0', '', '', 'mrc010_recv_fee_platform'),
      pi(DEX, S, '196', '0', '', '', 'mrc010_recv_auction'),
    ];
    const tx = decodeTransaction(
      POS,
      nodeOrder([
        dexEntry('mrc010_auctionbuynow', [DEX, S, BU, JSON.stringify(info), '5'], {
          ...auction,
          buyer: BU,
          auction_current_price: '200',
          auction_current_bidder: BU,
          auction_settle_date: 1_700_000_000,
        }),
        walletEntry('transfer_mrc010bid', BU, [BU, DEX, '200', '0', 'sig', '0', '100', '5', 'nonce']),
        walletEntry('receive_mrc010refund', R, [DEX, R, '60', '0', 'sig', '0', '', '5', 'nonce']),
        walletEntry('receive_mrc010fee', P, [DEX, P, '4', '0', 'sig', '0', '', '5', 'nonce']),
        walletEntry('receive_mrc010auction', S, [DEX, S, '196', '0', 'sig', '0', '', '5', 'nonce']),
      ]),
    );
    expect(tx.activity).toEqual([
      {
        kind: 'bid',
        jobType: 'mrc010_auctionbuynow',
        dexId: DEX,
        tokenId: 5,
        seller: S,
        bidder: BU,
        price: '200',
        payToken: 0,
        payments: [
          { from: DEX, to: R, amount: '60', token: 0, type: 'mrc010_recv_refund' },
          { from: BU, to: DEX, amount: '200', token: 0, type: 'mrc010_bid' },
        ],
      },
      {
        kind: 'auctionFinish',
        jobType: 'mrc010_auctionbuynow',
        dexId: DEX,
        tokenId: 5,
        outcome: 'buynow',
        seller: S,
        winner: BU,
        amount: '100',
        price: '200',
        payToken: 0,
        payments: [
          { from: DEX, to: BU, amount: '100', token: 5, type: 'mrc010_recv_item' },
          { from: DEX, to: P, amount: '4', token: 0, type: 'mrc010_recv_fee_platform' },
          { from: DEX, to: S, amount: '196', token: 0, type: 'mrc010_recv_auction' },
        ],
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc010_auctionbuynow', from: S, to: BU, amount: '100', token: '5' });
  });

  it('decodes the end of an auction: won, or failed without bids', () => {
    // mrc010auctionfinish after BU's 70 won: platform floor(70 × 2 / 100) = 1, seller 69. Unsigned.
    const info = [
      pi(DEX, BU, '', '', '100', '5', 'mrc010_recv_item'),
      pi(DEX, P, '1', '0', '', '', 'mrc010_recv_fee_platform'),
      pi(DEX, S, '69', '0', '', '', 'mrc010_recv_auction'),
    ];
    const item = walletEntry('receive_mrc010item', BU, [DEX, BU, '0', '0', '', '0', '100', '5', '']);
    const won = decodeTransaction(
      POS,
      nodeOrder([
        dexEntry('mrc010_auctionwinning', [DEX, S, BU, JSON.stringify(info), '5'], {
          ...auction,
          buyer: BU,
          auction_current_price: '70',
          auction_current_bidder: BU,
          auction_settle_date: 1_700_100_000,
        }),
        item,
        walletEntry('receive_mrc010fee', P, [DEX, P, '1', '0', '', '0', '', '5', '']),
        walletEntry('receive_mrc010auction', S, [DEX, S, '69', '0', '', '0', '', '5', '']),
      ]),
    );
    expect(won.activity).toEqual([
      {
        kind: 'auctionFinish',
        jobType: 'mrc010_auctionwinning',
        dexId: DEX,
        tokenId: 5,
        outcome: 'winning',
        seller: S,
        winner: BU,
        amount: '100',
        price: '70',
        payToken: 0,
        payments: [
          { from: DEX, to: BU, amount: '100', token: 5, type: 'mrc010_recv_item' },
          { from: DEX, to: P, amount: '1', token: 0, type: 'mrc010_recv_fee_platform' },
          { from: DEX, to: S, amount: '69', token: 0, type: 'mrc010_recv_auction' },
        ],
      },
    ]);
    expect(describeEntry(item)).toEqual({
      summary: 'MRC-010 auction item',
      from: DEX,
      to: BU,
      amount: '100',
      tokenId: 5,
    });

    const p = [DEX, S, '100', '5'];
    const failed = decodeTransaction(
      POS,
      nodeOrder([dexEntry('mrc010_auctionfailure', p, auction), walletEntry('mrc010auctionfailure', S, p)]),
    );
    expect(failed.activity).toEqual([
      {
        kind: 'auctionFinish',
        jobType: 'mrc010_auctionfailure',
        dexId: DEX,
        tokenId: 5,
        outcome: 'failure',
        seller: S,
        winner: '',
        amount: '100',
        price: '0',
        payToken: 0,
        payments: [],
      },
    ]);
    expect(failed.summary).toEqual({ type: 'mrc010_auctionfailure', from: DEX, to: S, amount: '100', token: '5' });
  });

  it('decodes cancellations: what goes back to whom', () => {
    const unsell = [DEX, S, '800', '5', '3', '0', 'sig', 'nonce'];
    const a = decodeTransaction(
      POS,
      nodeOrder([
        dexEntry('mrc010_unsell', unsell, { remain_amount: '800', cancel_date: 1 }),
        walletEntry('mrc010unsell', S, unsell),
      ]),
    );
    expect(a.activity).toEqual([
      { kind: 'sellCancel', jobType: 'mrc010_unsell', dexId: DEX, tokenId: 5, seller: S, amount: '800' },
    ]);
    expect(a.summary).toEqual({ type: 'mrc010_unsell', from: DEX, to: S, amount: '800', token: '5' });

    // The buyer's escrow (what was left of buy_price_total) goes back in the pay token.
    const unreq = [DEX, BU, '300', '5', '1212', '0', 'sig', 'nonce'];
    const b = decodeTransaction(
      POS,
      nodeOrder([
        dexEntry('mrc010_unreqsell', unreq, {
          seller: '',
          buyer: BU,
          buy_price: '4',
          buy_token: '0',
          buy_price_total: '1212',
        }),
        walletEntry('mrc010unreqsell', BU, unreq),
      ]),
    );
    expect(b.activity).toEqual([
      { kind: 'buyRequestCancel', jobType: 'mrc010_unreqsell', dexId: DEX, tokenId: 5, buyer: BU, refund: '1212' },
    ]);
    expect(b.summary).toEqual({ type: 'mrc010_unreqsell', from: DEX, to: BU, amount: '1212', token: '0' });

    const unauction = [DEX, S, '100', '5', '', '0', 'sig', 'nonce'];
    const c = decodeTransaction(
      POS,
      nodeOrder([dexEntry('mrc010_unauction', unauction, auction), walletEntry('mrc010unauction', S, unauction)]),
    );
    expect(c.activity).toEqual([
      { kind: 'auctionCancel', jobType: 'mrc010_unauction', dexId: DEX, tokenId: 5, seller: S, amount: '100' },
    ]);
  });

  it('shows DEX wallet entries as generic activity when a transaction holds no order record', () => {
    const e = walletEntry('receive_mrc010fee', P, [DEX, P, '1', '0', 'sig', '0', '', '5', 'nonce']);
    expect(decodeTransaction(POS, [e]).activity).toEqual([{ kind: 'other', jobType: 'receive_mrc010fee', key: P }]);
  });

  it('reads an order record whose PaymentInfo is not JSON without throwing', () => {
    const tx = decodeTransaction(POS, [dexEntry('mrc010_buy', [DEX, S, BU, '{not json', '5'], { buyer: BU })]);
    expect(tx.activity).toEqual([expect.objectContaining({ kind: 'buy', amount: '0', payments: [] })]);
  });
});
