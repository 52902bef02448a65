import { describe, expect, it } from 'vitest';
import { decodeTransaction, describeEntry } from '../decode.ts';
import { KnownActivity } from '../events.ts';
import type { RawEntry } from '../node.ts';
import { addr, entry, nodeOrder, POS, wallet, walletEntry } from './fixtures.ts';

/**
 * MRC-402 transactions as the devnet (a model of CC-t `mrc402.go`) writes them. The first three are
 * taken from a generated history (seed 1, block spacing 5 s) with their records as written; wallet
 * records keep only their `mrc402` map. Expected values are worked from the chaincode's rules in the
 * comments, not read off the decoder.
 */

// From the generated history.
const CREATOR = 'MTjt6elXd5SA7TcXHVZqCPr6ICm9e5cO3158ead3';
const SH_ZERO = 'MTUcKL0GLLiV31YmAqi2n3nJ4cYMuGzjfb622c94';
const SH_TWO = 'MTJi2VKJr7DHxL0qFCIa39HU3tUbbs9x387364de';
const PLATFORM = 'MTaqMHA33SOhYoVrLIIvVjAkSJOpSCPpde55896a';
const WINNER = 'MTvbPwbCBTZEVyhKfPNqJBgi0h06b2fUdc6534bd';
const OUTBID = 'MTSmiDBEq1ZAUeis8QEwNuYtUjjxBXsbbbf66182';
const MELTER = 'MTum0M4kmWrqBM2GFDzHYD2Sjjux8Bj842addb51';
const NFT = 'MRC402_a7876f07aeeedcffa9e193dc210223860';
const MELTED_NFT = 'MRC402_9b3d95413c629c878d700c63f1edf3590';
const DEX = 'DEX402_d0b4dd38b61d3a8c41166d5d612012d40';
const SIG = 'MEYCIQCcARSJWs6seC16KynlIa+OoBuVtduF/r7tvSA0sUXdUwIhAJx3mVJ8+4sXXc6VB2L6xa7WEKNKCT3Z+f4mZlvsfiMH';
const NONCE = 'vxobsezcAt4WO5JTpunApGViWxd65qSLph2vivlx';

/** An entry whose written record is `values` with its job fields. */
function recordEntry(type: string, key: string, params: string[], values: Record<string, unknown>): RawEntry {
  return entry(type, key, params, {
    ...values,
    job_type: type,
    job_args: JSON.stringify(params),
    jobdate: POS.timestamp,
  });
}

/** A wallet entry holding `mrc402` after the job. */
function holderEntry(
  type: string,
  address: string,
  params: string[],
  mrc402: Record<string, unknown> | null,
): RawEntry {
  return entry(type, address, params, { ...wallet(address, type, params, []), mrc402 });
}

const pi = (
  from: string,
  to: string,
  amount: string,
  token: string,
  tradeAmount: string,
  tradeId: string,
  type: string,
) => ({
  from_addr: from,
  to_addr: to,
  amount,
  token,
  trade_amount: tradeAmount,
  trade_id: tradeId,
  type,
});

const nftRecord = {
  id: NFT,
  creator: CREATOR,
  creatorcommission: '1.59',
  totalsupply: '5231',
  meltedamount: '0',
  decimal: 0,
  name: 'Ridge Ticket',
  expiredate: 0,
  image: 'http://127.0.0.1:20922/images/fwcFEjKvMh3P0OmS.jpg',
  url: 'https://nft.devnet.example/mrc402/ridge-ticket-33694',
  data: '',
  info: 'vale arena willow onyx cinder cedar helix vertex iris jade',
  socialmedia: '',
  copyright_registration_country: '',
  copyright_registrar: '',
  copyright_registration_number: '',
  shareholder: { [SH_TWO]: '2', [SH_ZERO]: '0' },
  initialreserve: { '2': '350368808350363837' },
};

describe('MRC-402 family', () => {
  it('decodes a create (from a devnet history): the supply to the creator, the record as an mrc402 write', () => {
    const p = [
      NFT,
      CREATOR,
      'Ridge Ticket',
      '1.59',
      '5231',
      '0',
      nftRecord.url,
      nftRecord.image,
      JSON.stringify({ [SH_ZERO]: '0', [SH_TWO]: '2' }),
      '{"2":"350368808350363837"}',
      '0',
      '',
      nftRecord.info,
      '',
      '',
      '',
      'MEYCIQ…',
      '6yvw8lH5dMPDniJKvkj6q4I7Z3dEZ9c79DDmq1cM',
    ];
    const entries = nodeOrder([
      recordEntry('mrc402_create', NFT, p, nftRecord),
      holderEntry('mrc402create', CREATOR, p, { [NFT]: { balance: '5231', saleamount: '0', auctionamount: '0' } }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['mrc402create', 'mrc402_create']);
    const tx = decodeTransaction(POS, entries);
    expect(tx.activity).toEqual([
      {
        kind: 'nftCreate',
        jobType: 'mrc402_create',
        protocol: 'MRC402',
        nftId: NFT,
        owner: CREATOR,
        creator: CREATOR,
        amount: '5231',
        name: 'Ridge Ticket',
        parent: '',
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc402_create', from: '', to: CREATOR, amount: '5231', token: '' });
    expect(tx.writes.map((w) => [w.kind, w.key])).toEqual([
      ['wallet', CREATOR],
      ['mrc402', NFT],
    ]);
    const w = tx.writes[0];
    expect(w?.kind === 'wallet' && w.wallet.mrc402).toEqual({
      [NFT]: { balance: '5231', saleamount: '0', auctionamount: '0' },
    });
    for (const e of entries) {
      expect(describeEntry(e)).toEqual({
        summary: 'MRC-402 create',
        from: '',
        to: CREATOR,
        amount: '5231',
        tokenId: null,
        nftId: NFT,
      });
    }
  });

  it('decodes a buy-now bid (from a devnet history) into the bid and the finish, each with its money payouts', () => {
    // 150,000,009 to buy 341 units now: creator 1.59 % = floor(2,385,000.14) = 2,385,000, platform
    // 9.26 % = 13,890,000, shareholder 2 % = 3,000,000 (the 0 % one gets nothing and is not listed),
    // seller 150,000,009 − 19,275,000 = 130,725,009; the outbid 20,392,380 is refunded. The seller
    // is the creator: its fee and proceeds make one receive_mrc402auction of 133,110,009.
    const info = [
      pi(DEX, OUTBID, '20392380', '0', '', '', 'mrc402_recv_refund'),
      pi(WINNER, DEX, '150000009', '0', '', '', 'mrc402_bid'),
      pi(DEX, WINNER, '', '', '341', NFT, 'mrc402_recv_item'),
      pi(DEX, CREATOR, '2385000', '0', '', '', 'mrc402_recv_fee_creator'),
      pi(DEX, PLATFORM, '13890000', '0', '', '', 'mrc402_recv_fee_platform'),
      pi(DEX, SH_TWO, '3000000', '0', '', '', 'mrc402_recv_fee_shareholder'),
      pi(DEX, CREATOR, '130725009', '0', '', '', 'mrc402_recv_auction'),
    ];
    const order = recordEntry('mrc402_auctionbuynow', DEX, [DEX, CREATOR, WINNER, JSON.stringify(info), NFT], {
      dexid: DEX,
      mrc402: NFT,
      seller: CREATOR,
      buyer: WINNER,
      amount: '341',
      remain_amount: '',
      platform_name: 'Quartz Bazaar',
      platform_url: 'https://quartz-bazaar.devnet.example/',
      platform_address: PLATFORM,
      platform_commission: '9.26',
      regdate: 1_700_003_750,
      sell_date: 1_700_004_366,
      cancel_date: 0,
      sell_price: '',
      sell_token: '0',
      auction_bid_count: 4,
      auction_start_date: 1_700_003_750,
      auction_end_date: 1_700_008_978,
      auction_settle_date: 1_700_004_366,
      auction_bidding_unit: '0',
      auction_start_price: '15000000',
      auction_buynow_price: '150000009',
      auction_current_price: '150000009',
      auction_current_bidder: WINNER,
    });
    const payout = (to: string, amount: string, trade = '') => [DEX, to, amount, '0', SIG, '0', trade, NFT, NONCE];
    const wallets = [
      holderEntry('transfer_mrc402bid', WINNER, [WINNER, DEX, '150000009', '0', SIG, '0', '341', NFT, NONCE], {
        [NFT]: { balance: '341', saleamount: '0', auctionamount: '0' },
      }),
      holderEntry('receive_mrc402auction', CREATOR, payout(CREATOR, '133110009'), {
        [NFT]: { balance: '928', saleamount: '1238', auctionamount: '2724' },
      }),
      holderEntry('receive_mrc402fee', PLATFORM, payout(PLATFORM, '13890000'), null),
      holderEntry('receive_mrc402refund', OUTBID, payout(OUTBID, '20392380'), null),
      holderEntry('receive_mrc402fee', SH_TWO, payout(SH_TWO, '3000000'), null),
    ];
    const money = (from: string, to: string, amount: string, type: string) => ({ from, to, amount, token: 0, type });
    const expected = [
      {
        kind: 'nftBid',
        jobType: 'mrc402_auctionbuynow',
        protocol: 'MRC402',
        dexId: DEX,
        nftId: NFT,
        seller: CREATOR,
        bidder: WINNER,
        price: '150000009',
        payToken: 0,
        payments: [money(DEX, OUTBID, '20392380', 'mrc402_recv_refund'), money(WINNER, DEX, '150000009', 'mrc402_bid')],
      },
      {
        kind: 'nftAuctionFinish',
        jobType: 'mrc402_auctionbuynow',
        protocol: 'MRC402',
        dexId: DEX,
        nftId: NFT,
        outcome: 'buynow',
        seller: CREATOR,
        winner: WINNER,
        amount: '341',
        price: '150000009',
        payToken: 0,
        payments: [
          money(DEX, CREATOR, '2385000', 'mrc402_recv_fee_creator'),
          money(DEX, PLATFORM, '13890000', 'mrc402_recv_fee_platform'),
          money(DEX, SH_TWO, '3000000', 'mrc402_recv_fee_shareholder'),
          money(DEX, CREATOR, '130725009', 'mrc402_recv_auction'),
        ],
      },
    ];
    for (const entries of [nodeOrder([order, ...wallets]), [order, ...wallets], [...wallets, order]]) {
      const tx = decodeTransaction(POS, entries);
      expect(tx.activity).toEqual(expected);
      for (const a of tx.activity) KnownActivity.parse(a);
      expect(tx.summary).toEqual({ type: 'mrc402_auctionbuynow', from: CREATOR, to: WINNER, amount: '341', token: '' });
    }
    expect(wallets.map(describeEntry)).toEqual([
      { summary: 'MRC-402 bid', from: WINNER, to: DEX, amount: '150000009', tokenId: 0, nftId: NFT },
      { summary: 'MRC-402 auction proceeds', from: DEX, to: CREATOR, amount: '133110009', tokenId: 0, nftId: NFT },
      { summary: 'MRC-402 fee', from: DEX, to: PLATFORM, amount: '13890000', tokenId: 0, nftId: NFT },
      { summary: 'MRC-402 bid refund', from: DEX, to: OUTBID, amount: '20392380', tokenId: 0, nftId: NFT },
      { summary: 'MRC-402 fee', from: DEX, to: SH_TWO, amount: '3000000', tokenId: 0, nftId: NFT },
    ]);
    expect(describeEntry(order)).toEqual({
      summary: 'MRC-402 buy now',
      from: CREATOR,
      to: WINNER,
      amount: '341',
      tokenId: null,
      nftId: NFT,
    });
  });

  it('decodes a melt (from a devnet history) with the reserve per unit paid back as its payments', () => {
    // 14 units × 5,430,594,570 MTC base units per unit = 76,028,323,980.
    const p = [MELTED_NFT, MELTER, '14', 'MEYCIQDF…', '0ARHinG3Udv0SDCdiUMh8Ynt3CHIGunSic6sk0Hg'];
    const tx = decodeTransaction(
      POS,
      nodeOrder([
        recordEntry('mrc402_melt', MELTED_NFT, p, {
          ...nftRecord,
          id: MELTED_NFT,
          totalsupply: '76',
          meltedamount: '14',
          expiredate: 1_685_312_141,
          initialreserve: { '0': '5430594570' },
        }),
        holderEntry('mrc402melt', MELTER, p, { [MELTED_NFT]: { balance: '0', saleamount: '0', auctionamount: '3' } }),
      ]),
    );
    expect(tx.activity).toEqual([
      {
        kind: 'nftMelt',
        jobType: 'mrc402_melt',
        protocol: 'MRC402',
        nftId: MELTED_NFT,
        owner: MELTER,
        amount: '14',
        payments: [{ from: MELTED_NFT, to: MELTER, amount: '76028323980', token: 0, type: 'mrc402_melt' }],
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc402_melt', from: MELTER, to: '', amount: '14', token: '' });
  });

  it('decodes a transfer once, from the sender’s entry, and names the NFT in both views', () => {
    const S = addr('Sender');
    const R = addr('Recipient');
    const p = [S, R, '7', NFT, 'tag', 'memo', 'sig', 'nonce'];
    const entries = nodeOrder([walletEntry('transfer_mrc402', S, p), walletEntry('receive_mrc402', R, p)]);
    const tx = decodeTransaction(POS, entries);
    expect(tx.activity).toEqual([
      { kind: 'nftTransfer', jobType: 'transfer_mrc402', protocol: 'MRC402', nftId: NFT, from: S, to: R, amount: '7' },
    ]);
    expect(tx.summary).toEqual({ type: 'transfer_mrc402', from: S, to: R, amount: '7', token: '' });
    expect(entries.map(describeEntry).map((v) => [v.summary, v.nftId])).toEqual([
      ['MRC-402 transfer', NFT],
      ['MRC-402 receive', NFT],
    ]);
  });

  it('decodes a failed auction and a mint and a burn from their records’ job_args', () => {
    const S = addr('Seller');
    const failure = decodeTransaction(POS, [
      recordEntry('mrc402_auctionfailure', DEX, [DEX, S, '20', NFT], {
        dexid: DEX,
        mrc402: NFT,
        seller: S,
        amount: '20',
        sell_token: '3',
      }),
      walletEntry('mrc402auctionfailure', S, [DEX, S, '20', NFT]),
    ]);
    expect(failure.activity).toEqual([
      {
        kind: 'nftAuctionFinish',
        jobType: 'mrc402_auctionfailure',
        protocol: 'MRC402',
        dexId: DEX,
        nftId: NFT,
        outcome: 'failure',
        seller: S,
        winner: '',
        amount: '20',
        price: '0',
        payToken: 3,
        payments: [],
      },
    ]);
    const mint = decodeTransaction(POS, [
      recordEntry('mrc402_mint', NFT, [NFT, CREATOR, '50', 'more', 's', 'n'], nftRecord),
    ]);
    expect(mint.activity).toEqual([
      {
        kind: 'nftMint',
        jobType: 'mrc402_mint',
        protocol: 'MRC402',
        nftId: NFT,
        owner: CREATOR,
        amount: '50',
        memo: 'more',
      },
    ]);
    const burn = decodeTransaction(POS, [
      recordEntry('mrc402_burn', NFT, [NFT, CREATOR, '5', '', 's', 'n'], nftRecord),
    ]);
    expect(burn.activity[0]).toMatchObject({ kind: 'nftBurn', owner: CREATOR, amount: '5', memo: '' });
    expect(burn.summary).toEqual({ type: 'mrc402_burn', from: CREATOR, to: '', amount: '5', token: '' });
  });

  it('reads malformed client input leniently: unparsable PaymentInfo, amounts and reserves, object parameters', () => {
    const S = addr('Seller');
    const B = addr('Buyer');
    const bad = decodeTransaction(POS, [
      recordEntry('mrc402_buy', DEX, [DEX, S, B, 'not json', NFT], {
        dexid: DEX,
        mrc402: NFT,
        seller: S,
        sell_token: 'x',
      }),
    ]);
    expect(bad.activity).toEqual([
      {
        kind: 'nftBuy',
        jobType: 'mrc402_buy',
        protocol: 'MRC402',
        dexId: DEX,
        nftId: NFT,
        seller: S,
        buyer: B,
        amount: '0',
        payToken: 0,
        payments: [],
      },
    ]);
    const melt = decodeTransaction(POS, [
      recordEntry('mrc402_melt', NFT, [NFT, B, 'lots'], {
        ...nftRecord,
        initialreserve: { x: '1', '1': 'many', '2': '3' },
      }),
    ]);
    expect(melt.activity).toEqual([
      { kind: 'nftMelt', jobType: 'mrc402_melt', protocol: 'MRC402', nftId: NFT, owner: B, amount: '0', payments: [] },
    ]);
    const odd: RawEntry = { ...walletEntry('receive_mrc402fee', B, []), parameters: { not: 'a list' } };
    expect(describeEntry(odd)).toEqual({ summary: 'MRC-402 fee', from: '', to: '', amount: '0', tokenId: null });
    // A wallet entry without its record (never written so) is generic activity, not dropped.
    expect(decodeTransaction(POS, [walletEntry('mrc402sell', S, [DEX, S, '1', NFT])]).activity).toEqual([
      { kind: 'other', jobType: 'mrc402sell', key: S },
    ]);
  });
});
