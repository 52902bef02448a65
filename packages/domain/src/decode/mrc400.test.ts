import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeTransaction, describeEntry } from '../decode.ts';
import { KnownActivity } from '../events.ts';
import type { RawEntry } from '../node.ts';
import { addr, entry, POS, walletEntry } from './fixtures.ts';

/**
 * Transactions taken from a generated devnet (seed 1, 3,000 blocks of 20 s, MRC-400/401 jobs
 * added: services/devnet/src/families/mrc400/history.test.ts's options), one per case, as the node
 * served them, except that wallet entries keep only the job fields of their values (the views
 * read job_args, and whale wallets hold hundreds of balance entries). Blocks 301–1110 ran CC-m
 * ("old"), later ones CC-t ("new"). Expected values are worked out from the chaincode's rules in
 * the comments, not taken from the decoder.
 */
interface Sample {
  tag: string;
  height: number;
  entries: RawEntry[];
}
const samples = JSON.parse(readFileSync(new URL('./mrc400.samples.json', import.meta.url), 'utf8')) as Sample[];

function sample(tag: string) {
  const found = samples.find((s) => s.tag === tag);
  if (!found) throw new Error(`no sample ${tag}`);
  const tx = decodeTransaction(POS, found.entries);
  const of = (type: string) => found.entries.find((e) => e.type === type)!;
  return { entries: found.entries, tx, of, record: found.entries.find((e) => e.datakey!.startsWith('MRC400_'))! };
}

const valid = (activity: unknown[]) => activity.every((a) => KnownActivity.safeParse(a).success);

describe('MRC-400/401 family on devnet transactions', () => {
  it('reads a collection created under either layout: owner, name and the wallet row', () => {
    for (const [tag, name] of [
      ['old mrc400_create', 'Pine'],
      ['new mrc400_create', 'Hazel'],
    ] as const) {
      const { tx, of, record } = sample(tag);
      const id = record.datakey!;
      const owner = record.values!['owner'] as string;
      expect(tx.activity).toEqual([
        {
          kind: 'nftCreate',
          jobType: 'mrc400_create',
          protocol: 'MRC400',
          nftId: id,
          owner,
          creator: owner,
          amount: '0',
          name,
          parent: '',
        },
      ]);
      expect(describeEntry(of('mrc400create'))).toEqual({
        summary: 'MRC-400 create',
        from: owner,
        to: id,
        amount: '0',
        tokenId: null,
        nftId: id,
      });
    }
  });

  it('names the owner of an update: job_args[1] in the old layout, the wallet written in the new (whose job_args hold the id twice)', () => {
    for (const tag of ['old mrc400_update', 'new mrc400_update']) {
      const { tx, of, record } = sample(tag);
      const owner = of('mrc400update').datakey!;
      expect(tx.activity).toEqual([
        { kind: 'nftUpdate', jobType: 'mrc400_update', protocol: 'MRC400', nftId: record.datakey, owner },
      ]);
      expect(describeEntry(of('mrc400update')).from).toBe(owner);
    }
  });

  it('creates one MRC-401 NFT per item written, held by the MRC-400 owner, and shows the count on the creator row', () => {
    const { tx, of, entries } = sample('old mrc401_create');
    const items = entries.filter((e) => e.type === 'mrc401_create');
    const collection = items[0]!.datakey!.slice(0, 40);
    const owner = items[0]!.values!['owner'] as string;
    expect(tx.activity).toEqual(
      items.map((e) => ({
        kind: 'nftCreate',
        jobType: 'mrc401_create',
        protocol: 'MRC401',
        nftId: e.datakey,
        owner,
        // CC-m records no creator: the caller, the MRC-400 owner, is in job_args[1].
        creator: owner,
        amount: '1',
        name: '',
        parent: collection,
      })),
    );
    // Both items lock no reserve: the row counts the items of the collection.
    expect(describeEntry(of('mrc401create'))).toEqual({
      summary: 'MRC-401 create',
      from: owner,
      to: collection,
      amount: '2',
      tokenId: null,
      nftId: collection,
    });
  });

  it('reads a CC-m purchase, whose MRC-400 owner fee is the melting-fee rate, and its payment rows', () => {
    const { tx, of, record } = sample('old mrc401_buy fee');
    const [id, seller, buyer] = record.parameters as string[];
    const owner = of('receive_mrc401fee').datakey!;
    // 7,090,000 at melting_fee 2.5 %: 177,250 to the MRC-400 owner, 6,912,750 to the seller.
    expect(tx.activity).toEqual([
      {
        kind: 'nftBuy',
        jobType: 'mrc401_buy',
        protocol: 'MRC401',
        nftId: id,
        dexId: id,
        seller,
        buyer,
        amount: '1',
        payToken: 0,
        payments: [
          { from: buyer, to: id, amount: '7090000', token: 0, type: 'mrc401_buy' },
          { from: id, to: owner, amount: '177250', token: 0, type: 'mrc401_recv_fee' },
          { from: id, to: seller, amount: '6912750', token: 0, type: 'mrc401_recv_sell' },
        ],
      },
    ]);
    expect(tx.summary).toEqual({ type: 'mrc401_buy', from: seller, to: buyer, amount: '1', token: '' });
    expect(describeEntry(of('transfer_mrc401buy'))).toEqual({
      summary: 'MRC-401 buy',
      from: buyer,
      to: id,
      amount: '7090000',
      tokenId: 0,
      nftId: id,
    });
    // CC-m names the seller as the fee's payer: [seller, owner, fee, …].
    expect(describeEntry(of('receive_mrc401fee'))).toMatchObject({ from: seller, to: owner, amount: '177250' });
  });

  it('reads a CC-t purchase with a platform commission (2.42 % of 73,600 = 1,781) and no sell fee', () => {
    const { tx, record, of } = sample('new mrc401_buy fee');
    const [id, seller, buyer] = record.parameters as string[];
    const platform = of('receive_mrc401fee').datakey!;
    expect(tx.activity).toMatchObject([
      {
        kind: 'nftBuy',
        seller,
        buyer,
        payments: [
          { from: buyer, amount: '73600', type: 'mrc401_buy' },
          { to: platform, amount: '1781', type: 'mrc401_recv_fee_platform' },
          { to: seller, amount: '71819', type: 'mrc401_recv_sell' },
        ],
      },
    ]);
    expect(describeEntry(of('receive_mrc401sell'))).toEqual({
      summary: 'MRC-401 sale proceeds',
      from: id,
      to: seller,
      amount: '71819',
      tokenId: 0,
      nftId: id,
    });
  });

  it('reads a create-and-sell as the creation (held by the MRC-400 owner) then the purchase', () => {
    const { tx, record, of } = sample('new mrc401_createtrade creator');
    const [id, seller, buyer] = record.parameters as string[];
    const creator = record.values!['creator'] as string;
    expect(tx.activity.map((a) => a.kind)).toEqual(['nftCreate', 'nftBuy']);
    expect(tx.activity[0]).toEqual({
      kind: 'nftCreate',
      jobType: 'mrc401_createtrade',
      protocol: 'MRC401',
      nftId: id,
      owner: seller,
      creator,
      amount: '1',
      name: '',
      parent: id!.slice(0, 40),
    });
    // 467,000,000: sell fee 7 % → 32,690,000 and shareholder 2.51 % → 11,721,700; the seller (here
    // the creator, the MRC-400 owner) gets 422,588,300, one write of 455,278,300 with its fee.
    expect(tx.activity[1]).toMatchObject({
      kind: 'nftBuy',
      seller,
      buyer,
      payToken: 0,
      payments: [
        { from: creator, type: 'mrc401_createtrade' },
        { from: buyer, amount: '467000000', type: 'mrc401_createtrade_buy' },
        { amount: '32690000', type: 'mrc401_recv_fee_owner' },
        { amount: '11721700', type: 'mrc401_recv_fee_shareholder' },
        { amount: '422588300', type: 'mrc401_recv_sell' },
      ],
    });
    expect(describeEntry(of('mrc401createtrade'))).toEqual({
      summary: 'MRC-401 create and sell',
      from: id,
      to: creator,
      amount: '455278300',
      tokenId: 0,
      nftId: id,
    });
  });

  it('reads an auction from its record: the dates and prices the chaincode settled on', () => {
    const { tx, record, of } = sample('new mrc401_auction');
    const [id, seller] = record.parameters as string[];
    expect(tx.activity).toEqual([
      {
        kind: 'nftAuction',
        jobType: 'mrc401_auction',
        protocol: 'MRC401',
        nftId: id,
        dexId: id,
        seller,
        amount: '1',
        startPrice: '617',
        buyNowPrice: '0',
        payToken: 7,
        startDate: record.values!['auction_date'],
        endDate: 1_700_030_160,
      },
    ]);
    expect(describeEntry(of('mrc401auction'))).toEqual({
      summary: 'MRC-401 auction',
      from: seller,
      to: id,
      amount: '1',
      tokenId: null,
      nftId: id,
    });
  });

  it('reads a bid with the refund of the previous one, and a buy-now bid as the bid then the finish', () => {
    const bid = sample('new mrc401_auctionbid refund');
    const [id, bidder] = bid.record.parameters as string[];
    expect(bid.tx.activity).toMatchObject([
      {
        kind: 'nftBid',
        nftId: id,
        bidder,
        seller: bid.record.values!['owner'],
        price: '825',
        payToken: 7,
        payments: [
          { amount: '657', type: 'mrc401_recv_refund' },
          { amount: '825', type: 'mrc401_bid' },
        ],
      },
    ]);
    expect(describeEntry(bid.record)).toMatchObject({
      summary: 'MRC-401 bid',
      from: bidder,
      amount: '825',
      tokenId: 7,
    });

    const now = sample('new mrc401_auctionbuynow');
    const [item, seller, winner] = now.record.parameters as string[];
    // 14,195,000 of token 13 at sell fee 8.9 %: 1,263,355 to the MRC-400 owner, 12,931,645 to the seller.
    expect(now.tx.activity).toMatchObject([
      {
        kind: 'nftBid',
        bidder: winner,
        seller,
        price: '14195000',
        payments: [{ type: 'mrc401_recv_refund' }, { type: 'mrc401_bid' }],
      },
      {
        kind: 'nftAuctionFinish',
        nftId: item,
        outcome: 'buynow',
        seller,
        winner,
        price: '14195000',
        payToken: 13,
        payments: [
          { amount: '1263355', type: 'mrc401_recv_fee_owner' },
          { amount: '12931645', type: 'mrc401_recv_auction' },
        ],
      },
    ]);
  });

  it('reads a won auction (7.8786 % of 977 = 76 to the MRC-400 owner) and a failed one', () => {
    const won = sample('new mrc401_auctionwinning');
    const [id, seller, winner] = won.record.parameters as string[];
    expect(won.tx.activity).toMatchObject([
      {
        kind: 'nftAuctionFinish',
        outcome: 'winning',
        seller,
        winner,
        price: '977',
        payToken: 7,
        payments: [{ amount: '76' }, { to: seller, amount: '901' }],
      },
    ]);
    expect(describeEntry(won.record)).toEqual({
      summary: 'MRC-401 auction win',
      from: seller,
      to: winner,
      amount: '1',
      tokenId: null,
      nftId: id,
    });
    const failed = sample('new mrc401_auctionfailure');
    expect(failed.tx.activity).toEqual([
      {
        kind: 'nftAuctionFinish',
        jobType: 'mrc401_auctionfailure',
        protocol: 'MRC401',
        nftId: failed.record.datakey,
        dexId: failed.record.datakey,
        outcome: 'failure',
        seller: (failed.record.parameters as string[])[1],
        winner: '',
        amount: '1',
        price: '0',
        payToken: 0,
        payments: [],
      },
    ]);
  });

  it('reads melts: the reserve paid out (10 % fee of 43,204,602,194,890 = 4,320,460,219,489), or nothing listed as "[]" or "null"', () => {
    const { tx, record } = sample('old mrc401_melt fee');
    expect(tx.activity).toMatchObject([
      {
        kind: 'nftMelt',
        owner: (record.parameters as string[])[1],
        amount: '1',
        payments: [
          { amount: '4320460219489', type: 'mrc401_recv_meltfee' },
          { amount: '38884141975401', type: 'mrc401_recv_melt' },
        ],
      },
    ]);
    for (const tag of ['old mrc401_melt zero', 'new mrc401_melt zero']) {
      expect(sample(tag).tx.activity).toMatchObject([{ kind: 'nftMelt', payments: [] }]);
    }
  });

  it('yields only schema-valid activities for every sample', () => {
    for (const s of samples) expect(valid(decodeTransaction(POS, s.entries).activity), s.tag).toBe(true);
  });
});

describe('MRC-400/401 family on hand-built entries', () => {
  const C = `MRC400_${'ab'.repeat(16)}0`;
  const ITEM = `${C}_${'x'.repeat(40)}`;
  const OWNER = addr('Owner');
  const SELLER = addr('Seller');
  const WINNER = addr('Winner');
  const pi = (from: string, to: string, amount: string, token: string, type: string) => ({
    from_addr: from,
    to_addr: to,
    amount,
    token,
    trade_amount: '',
    trade_id: '',
    type,
  });

  it('reads CC-m\'s winning layout [id, winner, PaymentInfo, "", ""], finding the seller in the payouts', () => {
    const payments = [
      pi(ITEM, OWNER, '2', '1', 'mrc401_recv_fee'),
      pi(ITEM, SELLER, '198', '1', 'mrc401_recv_auction'),
    ];
    const p = [ITEM, WINNER, JSON.stringify(payments), '', ''];
    const e = entry('mrc401_auctionwinning', ITEM, p, {
      owner: WINNER,
      last_trade_amount: '200',
      last_trade_token: '1',
      job_args: JSON.stringify(p),
    });
    expect(decodeTransaction(POS, [e]).activity).toEqual([
      {
        kind: 'nftAuctionFinish',
        jobType: 'mrc401_auctionwinning',
        protocol: 'MRC401',
        nftId: ITEM,
        dexId: ITEM,
        outcome: 'winning',
        seller: SELLER,
        winner: WINNER,
        amount: '1',
        price: '200',
        payToken: 1,
        payments: [
          { from: ITEM, to: OWNER, amount: '2', token: 1, type: 'mrc401_recv_fee' },
          { from: ITEM, to: SELLER, amount: '198', token: 1, type: 'mrc401_recv_auction' },
        ],
      },
    ]);
    expect(describeEntry(e)).toMatchObject({ from: SELLER, to: WINNER, nftId: ITEM });
  });

  it('reads an old-layout create without values from its job_args (name at index 2, owner at 1)', () => {
    const p = [
      C,
      OWNER,
      'Quartz',
      'https://q.example/',
      'https://q.example/i.png',
      '0',
      'art',
      'words',
      '',
      '',
      '',
      's',
      'n',
    ];
    const [create] = decodeTransaction(POS, [entry('mrc400_create', C, p, {})]).activity;
    expect(create).toMatchObject({ kind: 'nftCreate', nftId: C, owner: OWNER, name: 'Quartz' });
  });

  it('shows a creator row of one reserve token as the MRC-010 payment it is', () => {
    const log = [
      { id: 'a'.repeat(40), amount: '70', token: '5' },
      { id: 'b'.repeat(40), amount: '30', token: '5' },
      { id: 'c'.repeat(40), amount: '0', token: '0' },
    ];
    expect(describeEntry(walletEntry('mrc401create', OWNER, [C, OWNER, JSON.stringify(log), 's', 'n']))).toEqual({
      summary: 'MRC-401 create',
      from: OWNER,
      to: C,
      amount: '100',
      tokenId: 5,
      nftId: C,
    });
  });

  it('never throws on malformed parameters, and shows a lone wallet write as generic activity', () => {
    const odd: RawEntry[] = [
      entry('mrc401_buy', ITEM, {}, {}),
      entry('mrc401_auctionbid', ITEM, [ITEM, 42, '[{"amount":-5}]'], {
        owner: 7,
      }),
      entry('mrc401_melt', ITEM, [ITEM, OWNER, '{not json'], {}),
      entry('mrc401_auctionwinning', ITEM, [], {}),
      entry('mrc400_update', C, [C, C], {}),
    ];
    for (const e of odd) {
      expect(() => describeEntry(e)).not.toThrow();
      const tx = decodeTransaction(POS, [e]);
      expect(valid(tx.activity), e.type).toBe(true);
    }
    const lone = walletEntry('receive_mrc401fee', OWNER, [ITEM, OWNER, '5', '0', 's', '0', '', ITEM, 'n']);
    expect(decodeTransaction(POS, [lone]).activity).toEqual([
      { kind: 'other', jobType: 'receive_mrc401fee', key: OWNER },
    ]);
  });
});
