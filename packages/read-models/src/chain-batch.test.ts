import { createMemoryReadStore } from '@mtc/adapters';
import {
  addressChecksum,
  blockPos,
  chainPos,
  isStateWrite,
  PublishedWallets,
  slimEntry,
  walletChange,
  type BalanceEntry,
  type BlockEvent,
  type BlockWrite,
  type KnownActivity,
  type WalletState,
} from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import type { HolderDoc, HolderStatsDoc } from './holders/holders.ts';
import { holdersPage, lockedHolders } from './holders/holders.ts';
import { collectionHoldersPage } from './nfts/collection-holders.ts';
import { nftHoldersPage } from './nfts/holders.ts';
import { holdingLog, openModels } from './registry.ts';
import { seriesPage, seriesTotal } from './series/series.ts';
import { addressTxs } from './series/address-txs.ts';
import { tokenTxs } from './series/token-txs.ts';
import { chainBuilder, projectInto, token, type EntrySpec } from './testing/events.ts';
import { loadChainPrior, projectChainBatch, resolveWallets, type ChainBatch } from './chain-batch.ts';
import { contentId, sharedValues, StoredValues } from './shared-values.ts';
import { dumpReadModels } from './dump.ts';
import { assetSumAt, holdersAt, seriesCountAt } from './holders/at-height.ts';
import { holdingAsset } from './holders/changes.ts';
import { statsDay } from './chain/project.ts';

const addr = (c: string): string => `MT${c.repeat(30)}${addressChecksum(c.repeat(30))}`;
const A = addr('a');
const B = addr('b');
const C = addr('c');
const NFT = `MRC402_${'e'.repeat(32)}3`;
const COLL = `MRC400_${'f'.repeat(32)}1`;
const ITEM1 = `${COLL}_${'I1'.repeat(20)}`;
const ITEM2 = `${COLL}_${'I2'.repeat(20)}`;
const ITEM3 = `${COLL}_${'I3'.repeat(20)}`;
const DAY1 = Date.UTC(2026, 0, 1, 23, 0) / 1000;
const DAY2 = Date.UTC(2026, 0, 2, 1, 0) / 1000;

const transfer = (from: string, to: string, amount: string, tokenId: number): KnownActivity => ({
  kind: 'transfer',
  jobType: 'transfer',
  from,
  to,
  amount,
  tokenId,
  unlockdate: 0,
  tag: '',
  memo: '',
});

/**
 * A small history: token 5 reserved to A (with a lock) and B, A pays C, 500 more minted to B, an
 * invalid transaction that changes nothing, then A sends all it has left of token 5 to C (A stops
 * holding it). Holder count and total both change in the later blocks, so a delta applied twice or
 * computed from the wrong previous state shows.
 */
function history(): BlockEvent[] {
  const chain = chainBuilder(DAY1);
  return [
    chain.block(
      [
        {
          tokens: [token(5, { owner: A })],
          items: [
            { item: ITEM1, owner: A, jobType: 'mrc401_create' },
            { item: ITEM2, owner: A, jobType: 'mrc401_create' },
            { item: ITEM3, owner: B, jobType: 'mrc401_create' },
          ],
          wallets: [
            {
              address: A,
              balances: [
                [0, '0'],
                [5, '600'],
                [5, '100', DAY2 + 86_400],
              ],
              mrc402: { [NFT]: ['10'] },
            },
            {
              address: B,
              balances: [
                [0, '0'],
                [5, '300'],
              ],
            },
          ],
          activity: [
            {
              kind: 'tokenCreate',
              jobType: 'tokenRegister',
              tokenId: 5,
              owner: A,
              totalsupply: '1000',
              name: 'Token 5',
              symbol: 'T5',
              decimal: 8,
            },
            {
              kind: 'tokenReserve',
              jobType: 'token_reserve',
              tokenId: 5,
              from: A,
              to: A,
              amount: '700',
              unlockdate: 0,
            },
            {
              kind: 'tokenReserve',
              jobType: 'token_reserve',
              tokenId: 5,
              from: A,
              to: B,
              amount: '300',
              unlockdate: 0,
            },
          ],
        },
      ],
      DAY1,
    ),
    chain.block([], DAY1 + 60),
    chain.block(
      [
        {
          wallets: [
            {
              address: A,
              jobType: 'transfer',
              balances: [
                [0, '0'],
                [5, '400'],
                [5, '100', DAY2 + 86_400],
              ],
              // 4 sent to C, 2 put on sale (escrow counts in the total).
              mrc402: { [NFT]: ['4', '2'] },
            },
            {
              address: C,
              jobType: 'receive',
              balances: [
                [0, '0'],
                [5, '200'],
              ],
              mrc402: { [NFT]: ['4'] },
            },
          ],
          activity: [transfer(A, C, '200', 5)],
          items: [{ item: ITEM1, owner: C }],
        },
        {
          // The owner mints 500 to itself; B is sent nothing, so only the totals move.
          wallets: [
            {
              address: B,
              jobType: 'ownerIncrease',
              balances: [
                [0, '0'],
                [5, '800'],
              ],
            },
          ],
          activity: [{ kind: 'tokenMint', jobType: 'tokenIncrease', tokenId: 5, owner: B, amount: '500', memo: '' }],
        },
        {
          valid: false,
          wallets: [{ address: B, jobType: 'transfer', balances: [[0, '0']] }],
          activity: [transfer(B, C, '300', 5)],
        },
      ],
      DAY2,
    ),
    chain.block(
      [
        {
          wallets: [
            // A's last units are gone (sold, melted): its map keeps the id at zero.
            { address: A, jobType: 'transfer', balances: [[0, '0']], mrc402: { [NFT]: ['0'] } },
            {
              address: C,
              jobType: 'receive',
              balances: [
                [0, '0'],
                [5, '700'],
              ],
              mrc402: { [NFT]: ['4'] },
            },
          ],
          activity: [transfer(A, C, '500', 5)],
          // ITEM2 melted; ITEM3 rewritten with its owner unchanged (an update).
          items: [
            { item: ITEM2, owner: 'MELTED', jobType: 'mrc401_melt' },
            { item: ITEM3, owner: B, jobType: 'mrc401_update' },
          ],
        },
      ],
      DAY2 + 60,
    ),
  ];
}

async function projected(batches: BlockEvent[][], crashAfterWrites?: number) {
  const store = createMemoryReadStore();
  await projectInto(store, batches, crashAfterWrites === undefined ? {} : { crashAfterWrites });
  return store;
}

/** The history as the follower publishes it on mtc.blocks.v3: wallets written before as changes. */
function asV3(blocks: readonly BlockEvent[]): BlockEvent[] {
  const published = new PublishedWallets();
  return blocks.map((b) => {
    const v3 = published.toBlockEventV3({
      ...b,
      schemaVersion: 2,
      txs: b.txs.map((t) => ({ ...t, writes: t.writes.filter(isStateWrite) })),
    });
    return v3;
  });
}

describe('resolveWallets', () => {
  const entry = (
    tok: number,
    balance: string,
    more: Partial<{ unlockdate: number; sale: string; auction: string }> = {},
  ): BalanceEntry => ({
    token: tok,
    balance,
    unlockdate: more.unlockdate ?? 0,
    saleamount: more.sale ?? '',
    auctionamount: more.auction ?? '',
  });
  const stored = {
    _id: A,
    pos: chainPos(1, 0, 0),
    regdate: 0,
    addinfo: '',
    balances: [
      entry(0, '50'),
      entry(1, '100'),
      entry(2, '200'),
      entry(2, '5', { unlockdate: 99 }),
      entry(3, '300'),
      entry(4, '7', { unlockdate: 10 }),
    ],
    mrc402: {
      [NFT]: { balance: '1', saleamount: '', auctionamount: '' },
      X: { balance: '2', saleamount: '', auctionamount: '' },
    },
  };
  const wallet = (balances: BalanceEntry[], mrc402: WalletState['mrc402'], address = A): WalletState => ({
    address,
    regdate: 0,
    addinfo: '',
    balances,
    mrc402,
  });
  // token 1 put on sale, token 2 loses its locked entry, token 3 unchanged, token 4 relocked
  const w1 = wallet(
    [
      entry(0, '50'),
      entry(1, '100', { sale: '10' }),
      entry(2, '200'),
      entry(3, '300'),
      entry(4, '7', { unlockdate: 20 }),
    ],
    stored.mrc402,
  );
  // token 3 dropped (the chaincode drops all-zero entries), token 7 new, the MRC-402 in auction
  const w2 = wallet(
    [
      entry(0, '50'),
      entry(1, '100', { sale: '10' }),
      entry(2, '200'),
      entry(4, '7', { unlockdate: 20 }),
      entry(7, '1'),
    ],
    {
      [NFT]: { balance: '1', saleamount: '', auctionamount: '1' },
      X: { balance: '2', saleamount: '', auctionamount: '' },
    },
  );
  const p1 = chainPos(2, 0, 0);
  const p2 = chainPos(2, 1, 0);
  const whole = (pos: string, w: WalletState): BlockWrite => ({
    kind: 'wallet',
    key: w.address,
    pos,
    jobType: 'transfer',
    wallet: w,
  });
  const block = (...writes: BlockWrite[]): BlockEvent => ({
    schemaVersion: 3,
    eventId: 'block:2',
    height: 2,
    hash: 'h2',
    timestamp: DAY1,
    firstTxSeq: 0,
    txs: [
      {
        id: 't',
        index: 0,
        seq: 0,
        timestamp: DAY1,
        valid: true,
        summary: { type: 'transfer', from: '', to: '', amount: '0', token: '0' },
        entries: [],
        writes,
        activity: [],
      },
    ],
  });
  const covers = (r: ReturnType<typeof resolveWallets>) =>
    r.writes.map((w) => w.covers && { tokens: [...w.covers.tokens].sort(), nfts: [...w.covers.nfts] });
  const v = (pos: string, w: WalletState) => ({
    pos,
    regdate: w.regdate,
    addinfo: w.addinfo,
    balances: w.balances,
    mrc402: w.mrc402,
  });

  it('covers, write by write, the assets that differ from the wallet before it, escrow and locks included', () => {
    const r = resolveWallets([block(whole(p1, w1), whole(p2, w2))], [stored]);
    expect(covers(r)).toEqual([
      { tokens: [1, 2, 4], nfts: [] },
      { tokens: [3, 7], nfts: [NFT] },
    ]);
    // Only the covered tokens' entries go to the holder projection.
    expect(r.writes[1]!.balances).toEqual([entry(7, '1')]);
    expect(r.records.get(A)).toEqual(v(p2, w2));
    expect(r.whole.size).toBe(0);
  });

  it('takes changes as the block topic carries them, and applies them to the stored record', () => {
    const c1 = walletChange(A, p1, 'transfer', stored, v(p1, w1));
    const c2 = walletChange(A, p2, 'transfer', v(p1, w1), v(p2, w2));
    const r = resolveWallets([block(c1, c2)], [stored]);
    expect(covers(r)).toEqual([
      { tokens: [1, 2, 4], nfts: [] },
      { tokens: [3, 7], nfts: [NFT] },
    ]);
    expect(r.records.get(A)).toEqual(v(p2, w2));
    // A change to another record than the one at hand is a broken chain: it fails, naming both.
    expect(() => resolveWallets([block(c2)], [stored])).toThrow(/relative to the write at 00*2:/);
  });

  it('covers what a new wallet lists, and everything for a whole write older than the stored record', () => {
    const b = wallet([entry(0, '0'), entry(4, '1')], null, B);
    expect(covers(resolveWallets([block(whole(p1, b))], []))).toEqual([{ tokens: [0, 4], nfts: [] }]);
    // A crashed run put a newer record already: a whole write has nothing before it at hand…
    const newer = { ...stored, pos: chainPos(3, 0, 0) };
    const crashed = resolveWallets([block(whole(p1, w1))], [newer]);
    expect(crashed.writes[0]!.covers).toBeUndefined();
    expect([...crashed.whole]).toEqual([A]);
    expect(crashed.records.size).toBe(0);
    // …while a change still covers what it changed.
    const change = resolveWallets([block(walletChange(A, p1, 'transfer', stored, v(p1, w1)))], [newer]);
    expect(covers(change)).toEqual([{ tokens: [1, 2, 4], nfts: [] }]);
    expect(change.whole.size).toBe(0);
  });
});

describe('projectChainBatch', () => {
  it('writes blocks, transactions, daily counts and then the head', async () => {
    const m = openModels(await projected([history()]));
    expect(await m.blocks.count()).toBe(4);
    expect(await m.txs.count()).toBe(5);
    expect(await m.dailyTx.find({}, { sort: [['_id', 1]] })).toEqual([
      { _id: '2026-01-01', count: 1, pos: blockPos(1) },
      { _id: '2026-01-02', count: 4, pos: blockPos(4) },
    ]);
    expect(await m.head.get('indexed')).toMatchObject({ height: 4, txCount: 5 });
  });

  it('keeps one holder row per holding address, and drops it when the address stops holding', async () => {
    const m = openModels(await projected([history()]));
    const rows = (await holdersPage(m, 5, { skip: 0 }, 10))!.rows;
    // C 700 > B 300; A sent everything and its zero entry is gone.
    expect(rows.map((r) => [r.address, r.balance])).toEqual([
      [B, '800'],
      [C, '700'],
    ]);
    expect(await m.holders.get(`5:${A}`)).toBeNull();
    // A zero MTC entry (kept by the chaincode in every wallet) does not make a holder.
    expect(await m.holders.find({ token: 0 })).toEqual([]);
  });

  it('rewrites only the holdings a wallet write changed, each keeping the position it last changed at', async () => {
    const chain = chainBuilder(DAY1);
    const many: [number, string][] = [1, 2, 3, 4, 5, 6].map((t) => [t, String(100 * t)]);
    const wallet = (mtc: string) => ({ address: A, balances: [[0, mtc] as [number, string], ...many] });
    const first = chain.block([{ wallets: [wallet('50')] }]);
    const second = chain.block([{ wallets: [wallet('40')] }]);
    const store = createMemoryReadStore();
    await projectInto(store, [[first]]);
    const m = openModels(store);
    const prior = await loadChainPrior(m, [second]);
    // Only the changed holding's row and stats are read, not the whale's six others.
    expect(prior.holders.map((r) => r._id)).toEqual([`0:${A}`]);
    expect(prior.holderStats.map((r) => r._id)).toEqual(['0']);
    const { phases } = projectChainBatch([second], prior, { statsUtcOffsetMinutes: 0 });
    const rowWrites = phases.flat().filter((w) => w.collection === 'holders');
    expect(rowWrites.map((w) => (w.op === 'put' ? w.doc._id : w.op))).toEqual([`0:${A}`]);
    await projectInto(store, [[second]]);
    const heightOf = async (token: number) => Number((await m.holders.get(`${token}:${A}`))!.pos.split(':')[0]);
    expect(await heightOf(0)).toBe(2);
    expect(await heightOf(3)).toBe(1);
  });

  it("keeps MRC-402 holders from the wallets' maps, with the count and total (escrow included) per MRC-402", async () => {
    const h = history();
    const afterTransfer = openModels(await projected([h.slice(0, 3)]));
    expect(await afterTransfer.nftHolderStats.get(NFT)).toMatchObject({ holders: 2, total: '10' });
    expect(await afterTransfer.nftHolders.get(`${NFT}:${A}`)).toMatchObject({
      balance: '4',
      saleamount: '2',
      total: '6',
    });
    const m = openModels(await projected([h]));
    expect(await m.nftHolderStats.get(NFT)).toMatchObject({ holders: 1, total: '4' });
    expect(await m.nftHolders.get(`${NFT}:${A}`)).toBeNull();
    const rows = (await nftHoldersPage(m, NFT, { skip: 0 }, 10))!.rows;
    expect(rows.map((r) => [r.address, r.total])).toEqual([[C, '4']]);
    // C's holding did not change in the last block: its row keeps the position it changed at.
    expect(rows[0]!.pos).toBe((await afterTransfer.nftHolders.get(`${NFT}:${C}`))!.pos);
  });

  it('counts the items each address owns per MRC-400 collection from the item writes; melted items count for nobody', async () => {
    const h = history();
    const count = async (m: ReturnType<typeof openModels>) =>
      (await collectionHoldersPage(m, COLL, { skip: 0 }, 10))!.rows.map((r) => [r.address, r.count]);
    const afterTransfer = openModels(await projected([h.slice(0, 3)]));
    expect(await afterTransfer.collectionStats.get(COLL)).toMatchObject({ holders: 3, items: 3 });
    expect(await count(afterTransfer)).toEqual(
      [
        [A, 1],
        [B, 1],
        [C, 1],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    const m = openModels(await projected([h]));
    expect(await m.collectionStats.get(COLL)).toMatchObject({ holders: 2, items: 2 });
    expect(await count(m)).toEqual(
      [
        [B, 1],
        [C, 1],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    expect(await m.collectionHolders.get(`${COLL}:${A}`)).toMatchObject({ count: 0 });
    expect(await m.itemOwners.get(ITEM2)).toMatchObject({ owner: 'MELTED' });
  });

  it('maintains each token holder count and total balance from the previous state', async () => {
    const m = openModels(await projected([history()]));
    expect(await m.holderStats.get('5')).toMatchObject<Partial<HolderStatsDoc>>({
      holders: 2,
      totalBalance: '1500',
    });
    // Half way: A (600 + 100 locked), B and C all hold.
    const half = openModels(await projected([history().slice(0, 3)]));
    expect(await half.holderStats.get('5')).toMatchObject({ holders: 3, totalBalance: '1500' });
    expect(await half.holders.get(`5:${A}`)).toMatchObject<Partial<HolderDoc>>({
      balance: '500',
      locks: [{ amount: '100', unlockdate: DAY2 + 86_400 }],
      lockUntil: DAY2 + 86_400,
    });
  });

  it('finds the rows with a lock still ahead of the reader clock', async () => {
    const m = openModels(await projected([history().slice(0, 3)]));
    expect((await lockedHolders(m, 5, DAY2, 100))!.rows.map((r) => r.address)).toEqual([A]);
    expect((await lockedHolders(m, 5, DAY2 + 86_400, 100))!.rows).toEqual([]);
  });

  it("counts a series' rows at or before a chain position, as an export at a past height reads them", async () => {
    const m = openModels(await projected([history()]));
    // A's rows are at heights 1, 3 and 4 (the one of block 3 at its first write): at or before counts.
    const at = (pos: string) => seriesCountAt(m.addressTxs, m.seriesCounters, addressTxs, A, pos);
    expect(await at(blockPos(0))).toBe(0);
    expect(await at(blockPos(1))).toBe(1);
    expect(await at(blockPos(2))).toBe(1);
    expect(await at(chainPos(3, 0, 0))).toBe(2);
    expect(await at(blockPos(3))).toBe(2);
    expect(await at(blockPos(4))).toBe(3);
    expect(await at(blockPos(99))).toBe(3);
    expect(await seriesCountAt(m.addressTxs, m.seriesCounters, addressTxs, 'MTnobody', blockPos(99))).toBe(0);
  });

  it('numbers each address and token series in chain order and pages it newest first', async () => {
    const m = openModels(await projected([history()]));
    expect(await seriesTotal(m.seriesCounters, addressTxs, A)).toBe(3);
    expect(await seriesTotal(m.seriesCounters, addressTxs, B)).toBe(2); // the invalid tx wrote nothing
    const page1 = await seriesPage(m.addressTxs, A, 3, 1, 2);
    expect(page1.map((r) => [r.n, r.height, r.jobType])).toEqual([
      [3, 4, 'transfer'],
      [2, 3, 'transfer'],
    ]);
    expect((await seriesPage(m.addressTxs, A, 3, 2, 2)).map((r) => r.n)).toEqual([1]);
    expect(await seriesPage(m.addressTxs, A, 3, 3, 2)).toEqual([]);
    // Token 5: create, two reserves, a mint, two transfers (the invalid one is not activity).
    expect(await seriesTotal(m.seriesCounters, tokenTxs, '5')).toBe(6);
    expect((await m.tokenHistory.find({ key: '5' }, { sort: [['n', 1]] })).map((r) => r.type)).toEqual([
      'create',
      'reserve',
      'reserve',
      'mint',
    ]);
  });

  it('gives the same read models when the log is replayed, whole or in overlapping batches', async () => {
    const h = history();
    const once = await dumpReadModels(await projected([h]));
    expect(await dumpReadModels(await projected([h, h]))).toEqual(once);
    expect(await dumpReadModels(await projected([h.slice(0, 2), h.slice(1), h]))).toEqual(once);
    expect(await dumpReadModels(await projected([h.slice(0, 1), h.slice(0, 3), h.slice(2)]))).toEqual(once);
  });

  it('projects the same read models from mtc.blocks.v3 wallet changes as from whole wallet writes, crashes included', async () => {
    const h = history();
    const v3 = asV3(h);
    // Most wallet writes of the history are changes (else this would compare equal inputs).
    const kinds = v3.flatMap((b) => b.txs.flatMap((t) => t.writes.map((w) => w.kind)));
    expect(kinds.filter((k) => k === 'walletChange').length).toBeGreaterThan(
      kinds.filter((k) => k === 'wallet').length,
    );
    const once = await dumpReadModels(await projected([h]));
    expect(await dumpReadModels(await projected([v3]))).toEqual(once);
    expect(await dumpReadModels(await projected([v3.slice(0, 2), v3.slice(1), v3]))).toEqual(once);
    const { writes } = await projectInto(createMemoryReadStore(), [v3.slice(0, 1), v3.slice(1)]);
    for (let k = 0; k <= writes; k++) {
      const store = await projected([v3.slice(0, 1), v3.slice(1)], k);
      await projectInto(store, [v3.slice(1, 3), v3.slice(3)]);
      expect(await dumpReadModels(store), `crash after write ${k} of ${writes}`).toEqual(once);
    }
  });

  it('stores a large holdings map apart once, and leaves out the maps a projector knows are stored', async () => {
    const held = (i: number): [string, Record<string, string>] => [
      `MRC402_${String(i).padStart(33, '0')}`,
      { balance: `${i}`, saleamount: '0' },
    ];
    const big: Record<string, unknown> = Object.fromEntries(Array.from({ length: 12 }, (_, i) => held(i)));
    const small: Record<string, unknown> = Object.fromEntries([held(1)]);
    const events = history().map((b) => ({
      ...b,
      txs: b.txs.map((t, i) => ({
        ...t,
        entries: t.entries.map((e) => ({ ...e, values: { ...e.values, mrc402: i === 0 ? big : small } })),
      })),
    }));
    const prior = await loadChainPrior(openModels(createMemoryReadStore()), events);
    const options = { statsUtcOffsetMinutes: 0 };
    const mapPuts = (b: ChainBatch) => b.phases.flat().filter((w) => w.collection === sharedValues.name);
    const rest = (b: ChainBatch) => b.phases.flat().filter((w) => w.collection !== sharedValues.name);

    const fresh = projectChainBatch(events, prior, options);
    expect(mapPuts(fresh)).toEqual([
      { op: 'put', collection: sharedValues.name, doc: { _id: contentId(JSON.stringify(big)), value: big } },
    ]);
    expect(fresh.shared).toEqual([contentId(JSON.stringify(big))]);
    const known = new StoredValues();
    known.committed(fresh.shared);
    const again = projectChainBatch(events, prior, options, known);
    expect(mapPuts(again)).toEqual([]);
    expect(rest(again)).toEqual(rest(fresh));
    expect(again.shared).toEqual(fresh.shared);
  });

  it("logs a holder's large lock-up list once, and reads it back with the row as of any height", async () => {
    const locks = (n: number): [number, string, number][] =>
      Array.from({ length: n }, (_, i) => [5, String(100 + i), DAY2 + 86_400 * (i + 1)] as [number, string, number]);
    const chain = chainBuilder(DAY1);
    const wallet = (balance: string, n: number) => ({
      address: A,
      balances: [[0, '0'], [5, balance], ...locks(n)] as [number, string, number?][],
    });
    const blocks = [
      chain.block([{ tokens: [token(5, { owner: A })], wallets: [wallet('600', 14)] }]),
      chain.block([{ wallets: [wallet('500', 14)] }]),
      chain.block([{ wallets: [wallet('400', 15)] }]),
    ];
    const store = await projected([blocks.slice(0, 2), blocks.slice(2)]);
    const m = openModels(store);
    const rows = await m.holdingChanges.find({ asset: holdingAsset('mrc010', 5) }, { sort: [['pos', 1]] });
    expect(rows.map((r) => typeof r.row?.['locksRef'])).toEqual(['string', 'string', 'string']);
    expect(rows.every((r) => r.row !== null && !('locks' in r.row))).toBe(true);
    // The first two changes name one list; the third, one lock-up longer, another.
    expect(rows[0]!.row!['locksRef']).toBe(rows[1]!.row!['locksRef']);
    expect(rows[2]!.row!['locksRef']).not.toBe(rows[0]!.row!['locksRef']);
    expect(await m.sharedValues.count()).toBe(2);

    const current = (await m.holders.get(`5:${A}`))!;
    expect(current.locks).toHaveLength(15);
    const at = async (height: number) => {
      const pages: HolderDoc[][] = [];
      for await (const page of holdersAt({
        rows: m.holders,
        idPrefix: '5:',
        log: holdingLog(m),
        asset: holdingAsset('mrc010', 5),
        at: blockPos(height),
        pageSize: 10,
      }))
        pages.push(page);
      return pages.flat();
    };
    // As of block 2: the row a store that indexed only blocks 1 and 2 holds.
    const upTo2 = (await openModels(await projected([blocks.slice(0, 2)])).holders.get(`5:${A}`))!;
    expect(upTo2.locks).toHaveLength(14);
    expect(await at(2)).toEqual([upTo2]);
    expect(await at(3)).toEqual([current]);
  });

  it('projects the same read models from entries that keep only job_type, jobdate, mrc402', async () => {
    const full = history();
    const slim = full.map((b) => ({ ...b, txs: b.txs.map((t) => ({ ...t, entries: t.entries.map(slimEntry) })) }));
    // The history's entries carry whole written records (else this would compare equal inputs).
    expect(full.flatMap((b) => b.txs.flatMap((t) => t.entries)).filter((e) => 'balance' in e.values!)).not.toEqual([]);
    expect(slim.flatMap((b) => b.txs.flatMap((t) => t.entries)).filter((e) => 'balance' in e.values!)).toEqual([]);
    expect(await dumpReadModels(await projected([slim]))).toEqual(await dumpReadModels(await projected([full])));
  });

  it('stays exact after a crash at any write of a batch, replayed in other batch boundaries', async () => {
    const h = history();
    const once = await dumpReadModels(await projected([h]));
    // A crash hits a batch after any number of its writes (a store call need not be atomic); the
    // replay restarts at that batch's first block with other batch boundaries, as a consumer with
    // another maxBatch would: shorter batches than the crashed one, and a longer one.
    const cases = [
      { crashed: h.slice(1), replay: [h.slice(1, 3), h.slice(3)] },
      { crashed: h.slice(1, 3), replay: [h.slice(1)] },
    ];
    for (const [i, c] of cases.entries()) {
      const { writes } = await projectInto(createMemoryReadStore(), [h.slice(0, 1), c.crashed]);
      for (let k = 0; k <= writes; k++) {
        const store = await projected([h.slice(0, 1), c.crashed], k);
        await projectInto(store, c.replay);
        expect(await dumpReadModels(store), `case ${i}, crash after write ${k} of ${writes}`).toEqual(once);
      }
    }
  });

  it('logs each holding change once after a crash at any write, also a change that moves no count or total', async () => {
    const chain = chainBuilder(DAY1);
    const wallet = (mtc: string, sale = '0') => ({
      address: A,
      balances: [
        [0, mtc],
        [5, '100', 0, sale],
      ] as EntrySpec[],
    });
    const first = chain.block([{ wallets: [wallet('10')] }]);
    // Token 5 unchanged by the first write, then only its sale escrow moves: neither changes its
    // holder count or total, so only the stats' position can tell a replay the change was logged.
    const second = chain.block([{ wallets: [wallet('20')] }, { wallets: [wallet('20', '50')] }]);
    const once = await dumpReadModels(await projected([[first, second]]));
    const { writes } = await projectInto(createMemoryReadStore(), [[first], [second]]);
    for (let k = 0; k <= writes; k++) {
      const store = await projected([[first], [second]], k);
      await projectInto(store, [[second]]);
      expect(await dumpReadModels(store), `crash after write ${k} of ${writes}`).toEqual(once);
    }
  });

  it('counts transactions per day in the configured time zone', () => {
    expect(statsDay(DAY2, 0)).toBe('2026-01-02');
    expect(statsDay(DAY1, 540)).toBe('2026-01-02');
    expect(statsDay(DAY2, -120)).toBe('2026-01-01');
  });
});

describe('holdersAt', () => {
  /** Every holder row of the three kinds, by address, as the store holds them now. */
  async function rowsNow(store: Awaited<ReturnType<typeof projected>>) {
    const m = openModels(store);
    const byAddress = <R extends { address: string }>(rows: R[]) =>
      rows.sort((a, b) => (a.address < b.address ? -1 : 1));
    return {
      token: byAddress(await m.holders.find({ token: 5 })),
      nft: byAddress(await m.nftHolders.find({ nftId: NFT })),
      collection: byAddress(await m.collectionHolders.find({ collection: COLL, count: { $gt: 0 } })),
    };
  }

  async function rowsAt(store: Awaited<ReturnType<typeof projected>>, height: number, pageSize: number) {
    const m = openModels(store);
    const all = async <R>(pages: AsyncGenerator<R[]>) => {
      const out: R[] = [];
      for await (const page of pages) out.push(...page);
      return out;
    };
    const at = blockPos(height);
    return {
      token: await all(
        holdersAt({
          rows: m.holders,
          idPrefix: '5:',
          log: holdingLog(m),
          asset: holdingAsset('mrc010', 5),
          at,
          pageSize,
        }),
      ),
      nft: await all(
        holdersAt({
          rows: m.nftHolders,
          idPrefix: `${NFT}:`,
          log: holdingLog(m),
          asset: holdingAsset('mrc402', NFT),
          at,
          pageSize,
        }),
      ),
      collection: await all(
        holdersAt({
          rows: m.collectionHolders,
          idPrefix: `${COLL}:`,
          log: holdingLog(m),
          asset: holdingAsset('mrc400', COLL),
          at,
          pageSize,
          holds: (r) => r.count > 0,
        }),
      ),
    };
  }

  it('gives the holder rows as they stood at a height after later blocks changed and deleted them', async () => {
    const h = history();
    const early = await projected([h.slice(0, 2)]);
    const expected = await rowsNow(early);
    // Blocks 3 and 4 move token 5, the MRC-402 and the collection's items; A stops holding token 5.
    const store = await projected([h.slice(0, 2), h.slice(2)]);
    expect(await rowsNow(store)).not.toEqual(expected);
    for (const pageSize of [1, 2, 100]) expect(await rowsAt(store, 2, pageSize)).toEqual(expected);
    expect(await rowsAt(store, 4, 1)).toEqual(await rowsNow(store));
  });

  it("gives an asset's total at a height from its stats less the changes after it", async () => {
    const h = history();
    const early = openModels(await projected([h.slice(0, 2)]));
    const store = await projected([h.slice(0, 2), h.slice(2)]);
    const m = openModels(store);
    const now = (await m.nftHolderStats.get(NFT))!;
    const then = (await early.nftHolderStats.get(NFT))!;
    expect(now.total).not.toBe(then.total);
    const total = await assetSumAt<{ total: string }>(
      holdingLog(m),
      holdingAsset('mrc402', NFT),
      { sum: BigInt(now.total), pos: now.pos },
      blockPos(2),
      (row) => BigInt(row?.total ?? '0'),
    );
    expect(total).toBe(BigInt(then.total));
  });
});
