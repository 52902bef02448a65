import { decodeTransaction, isAddress, KnownActivity, MRC400, MRC400_PAYMENT as PAY, type RawEntry } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDevnet, type Devnet } from '../../chain/devnet.ts';
import { eraAt, planEras } from '../../chain/eras.ts';
import { DevnetOptionsSchema } from '../../chain/options.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import type { BalanceEntry } from '../mrc010/records.ts';
import { MRC400_JOBS } from './index.ts';

/**
 * Twenty-second blocks: 3,000 of them span about 17 hours, of which CC-m runs 30 % of the
 * post-legacy part and CC-t the rest, long enough for the hour-long auctions most sellers start to
 * end and be finished (or fail) under CC-t. (CC-m opens no auction at all: mrc401auction.)
 */
const options = { seed: 1, genesisTime: 1_700_000_000, historyBlocks: 3_000, blockIntervalSec: 20 };
const eras = planEras(options.historyBlocks, DevnetOptionsSchema.parse(options).legacyShare);

type Layout = 'old' | 'new';
interface Tx {
  layout: Layout | null;
  height: number;
  id: string;
  timestamp: number;
  entries: RawEntry[];
}

const isNftKey = (key: string | undefined) => key?.startsWith('MRC400_') ?? false;
const isItemKey = (key: string | undefined) => isNftKey(key) && key!.length === 81;

/** Every transaction in chain order, with the layout its era's chaincode writes (null: legacy). */
function chainTxs(devnet: Devnet): Tx[] {
  const out: Tx[] = [];
  for (let height = 1; height <= devnet.height(); height++) {
    const version = eraAt(eras, height).version;
    const layout = version === 'v2.3' ? 'old' : version === 'current' ? 'new' : null;
    for (const { id, timestamp } of devnet.block(height)!.transaction) {
      out.push({ layout, height, id, timestamp, entries: devnet.transaction(id)! });
    }
  }
  return out;
}

/** Entry types CC-m never writes: mrc401createtrade does not exist there, and no auction ever opens. */
const NEW_ONLY: ReadonlySet<string> = new Set([
  MRC400.itemCreatetrade,
  MRC400.walletItemCreatetrade,
  MRC400.transferCreatetrade,
  MRC400.itemAuction,
  MRC400.walletItemAuction,
  MRC400.itemUnauction,
  MRC400.walletItemUnauction,
  MRC400.itemAuctionbid,
  MRC400.itemAuctionwinning,
  MRC400.itemAuctionbuynow,
  MRC400.itemAuctionfailure,
  MRC400.transferBid,
  MRC400.receiveRefund,
  MRC400.receiveAuction,
]);

/** The job_args length of record writes that differ between the layouts. */
const ARGS_LENGTH: Readonly<Record<string, Record<Layout, number>>> = {
  [MRC400.create]: { old: 13, new: 15 },
  [MRC400.update]: { old: 13, new: 15 },
  [MRC400.itemBuy]: { old: 6, new: 4 },
};

/**
 * What a record holds of each MRC-010 token: a wallet its balance with sale and auction escrow;
 * an item not melted its initial reserve, and the bid it holds in escrow while in auction.
 */
function holdings(key: string, values: Record<string, unknown> | undefined): Map<number, bigint> {
  const out = new Map<number, bigint>();
  const add = (token: number, amount: bigint) => out.set(token, (out.get(token) ?? 0n) + amount);
  if (!values) return out;
  if (isItemKey(key)) {
    if (values['owner'] !== 'MELTED')
      add(Number(values['initial_token']), decimalOrZero(values['initial_reserve'] as string));
    if ((values['auction_date'] as number) > 0 && isAddress(values['auction_current_bidder'] as string)) {
      add(Number(values['auction_token']), decimalOrZero(values['auction_current_price'] as string));
    }
    return out;
  }
  for (const b of (values['balance'] ?? []) as Partial<BalanceEntry>[]) {
    add(b.token!, BigInt(b.balance!) + decimalOrZero(b.saleamount ?? '') + decimalOrZero(b.auctionamount ?? ''));
  }
  return out;
}

describe('MRC-400/401 in a generated history', () => {
  let devnet: Devnet;
  let txs: Tx[];
  let nftTxs: Tx[];

  beforeAll(() => {
    devnet = createDevnet(options);
    txs = chainTxs(devnet);
    nftTxs = txs.filter((tx) => tx.entries.some((e) => isNftKey(e.datakey)));
  });

  it('has a job writing every MRC400 job type, and holds valid entries of each under every layout that can write it', () => {
    const written = new Set(MRC400_JOBS.flatMap((job) => job.writes));
    expect([...written].sort()).toEqual(Object.values(MRC400).sort());
    const seen = { old: new Map<string, number>(), new: new Map<string, number>() };
    for (const tx of nftTxs) {
      for (const e of tx.entries) {
        if (e.validationCode !== 0 || tx.layout === null) continue;
        seen[tx.layout].set(e.type, (seen[tx.layout].get(e.type) ?? 0) + 1);
        const length = ARGS_LENGTH[e.type]?.[tx.layout];
        if (length !== undefined)
          expect({ type: e.type, length: (e.parameters as unknown[]).length }).toEqual({ type: e.type, length });
      }
    }
    const all = Object.values(MRC400) as string[];
    expect(all.filter((t) => !seen.new.has(t))).toEqual([]);
    expect(all.filter((t) => !NEW_ONLY.has(t) && !seen.old.has(t))).toEqual([]);
    expect([...seen.old.keys()].filter((t) => NEW_ONLY.has(t))).toEqual([]);
  });

  it("lists each version's payment roles in the PaymentInfo of valid item writes", () => {
    const roles = { old: new Set<string>(), new: new Set<string>() };
    for (const tx of nftTxs) {
      for (const e of tx.entries) {
        if (e.validationCode !== 0 || !isItemKey(e.datakey) || tx.layout === null) continue;
        for (const p of e.parameters as string[]) {
          if (typeof p !== 'string' || !p.startsWith('[{')) continue;
          for (const item of JSON.parse(p) as { type: string }[]) roles[tx.layout].add(item.type);
        }
      }
    }
    expect([...roles.old].sort()).toEqual([PAY.buy, PAY.recvFee, PAY.recvSell, PAY.recvMelt, PAY.recvMeltfee].sort());
    expect([...roles.new].sort()).toEqual(
      Object.values(PAY)
        .filter((role) => role !== PAY.recvFee)
        .sort(),
    );
  });

  it('makes the family 5–9 % of the transactions', () => {
    const share = nftTxs.length / txs.length;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.09);
  });

  it('conserves each MRC-010 token in every valid MRC-400/401 transaction, counting reserves and bids held by items', () => {
    const state = new Map<string, Record<string, unknown>>();
    let checked = 0;
    for (const tx of txs) {
      const valid = tx.entries.filter((e) => e.validationCode === 0 && e.datakey !== undefined);
      if (valid.some((e) => isNftKey(e.datakey))) {
        const delta = new Map<number, bigint>();
        for (const e of valid) {
          for (const [token, amount] of holdings(e.datakey!, e.values))
            delta.set(token, (delta.get(token) ?? 0n) + amount);
          for (const [token, amount] of holdings(e.datakey!, state.get(e.datakey!))) {
            delta.set(token, (delta.get(token) ?? 0n) - amount);
          }
        }
        for (const [token, change] of delta)
          expect({ tx: tx.id, token, change }).toEqual({ tx: tx.id, token, change: 0n });
        checked++;
      }
      for (const e of valid) state.set(e.datakey!, e.values!);
    }
    expect(checked).toBeGreaterThan(400);
  });

  it('moves each item only from the holder its previous write left, to a wallet, and never writes it again once melted', () => {
    const owner = new Map<string, string>();
    const melted = new Set<string>();
    const wallets = new Set<string>();
    let moves = 0;
    for (const tx of txs) {
      for (const e of tx.entries) {
        if (e.validationCode !== 0 || !e.datakey) continue;
        if (isAddress(e.datakey)) wallets.add(e.datakey);
        if (!isItemKey(e.datakey)) continue;
        const key = e.datakey;
        expect(melted.has(key), `${key} written after its melt`).toBe(false);
        const before = owner.get(key);
        const after = e.values!['owner'] as string;
        if (before !== undefined && after !== before) {
          // Whoever the item left is the party the write names as sender or seller.
          const p = e.parameters as string[];
          const from = e.type === MRC400.itemAuctionwinning && tx.layout === 'old' ? null : p[1];
          if (from !== null) expect({ key, type: e.type, from }).toEqual({ key, type: e.type, from: before });
          moves++;
        }
        if (after === 'MELTED') melted.add(key);
        else expect(wallets.has(after), `${key} owned by ${after}`).toBe(true);
        owner.set(key, after);
      }
    }
    expect(moves).toBeGreaterThan(150);
    expect(melted.size).toBeGreaterThan(20);
  });

  it('holds items created, created-and-sold and listed by MRC-400 partners under CC-t, and Bound items', () => {
    const owners = new Map<string, string>();
    const seen = { create: 0, createtrade: 0, listing: 0, bound: 0 };
    for (const tx of nftTxs) {
      for (const e of tx.entries) {
        if (e.validationCode !== 0 || !e.datakey) continue;
        const v = e.values!;
        if (!isItemKey(e.datakey)) {
          if (isNftKey(e.datakey)) owners.set(e.datakey, v['owner'] as string);
          continue;
        }
        const collectionOwner = owners.get(e.datakey.slice(0, 40));
        if (e.type === MRC400.itemCreate && v['creator'] && v['creator'] !== collectionOwner) seen.create++;
        if (e.type === MRC400.itemCreatetrade && v['creator'] !== collectionOwner) seen.createtrade++;
        const caller = (e.parameters as string[])[1];
        if ((e.type === MRC400.itemSell || e.type === MRC400.itemAuction) && caller !== v['owner']) seen.listing++;
        if (e.type === MRC400.itemCreate && v['transferable'] === 'Bound') seen.bound++;
      }
    }
    expect(
      Object.values(seen).every((n) => n > 0),
      JSON.stringify(seen),
    ).toBe(true);
  });

  it('decodes every MRC-400/401 transaction of both layouts into valid NFT activities, one per record written', () => {
    const kinds = new Map<string, Set<string>>();
    let seq = 0;
    for (const tx of nftTxs) {
      if (tx.entries.some((e) => e.validationCode !== 0)) continue;
      const event = decodeTransaction(
        { height: tx.height, index: 0, seq: seq++, id: tx.id, timestamp: tx.timestamp },
        tx.entries,
      );
      for (const a of event.activity) expect(KnownActivity.safeParse(a).success, JSON.stringify(a)).toBe(true);
      for (const a of event.activity) {
        if (!kinds.has(a.jobType)) kinds.set(a.jobType, new Set());
        kinds.get(a.jobType)!.add(a.kind);
      }
      const records = tx.entries.filter((e) => isNftKey(e.datakey));
      const extra = records.filter(
        (e) => e.type === MRC400.itemCreatetrade || e.type === MRC400.itemAuctionbuynow,
      ).length;
      expect(event.activity.filter((a) => 'nftId' in a)).toHaveLength(records.length + extra);
    }
    const expected: Record<string, string[]> = {
      [MRC400.create]: ['nftCreate'],
      [MRC400.update]: ['nftUpdate'],
      [MRC400.itemCreate]: ['nftCreate'],
      [MRC400.itemCreatetrade]: ['nftBuy', 'nftCreate'],
      [MRC400.itemUpdate]: ['nftUpdate'],
      [MRC400.itemTransfer]: ['nftTransfer'],
      [MRC400.itemSell]: ['nftSell'],
      [MRC400.itemUnsell]: ['nftSellCancel'],
      [MRC400.itemBuy]: ['nftBuy'],
      [MRC400.itemAuction]: ['nftAuction'],
      [MRC400.itemUnauction]: ['nftAuctionCancel'],
      [MRC400.itemAuctionbid]: ['nftBid'],
      [MRC400.itemAuctionwinning]: ['nftAuctionFinish'],
      [MRC400.itemAuctionbuynow]: ['nftAuctionFinish', 'nftBid'],
      [MRC400.itemAuctionfailure]: ['nftAuctionFinish'],
      [MRC400.itemMelt]: ['nftMelt'],
    };
    expect(Object.fromEntries([...kinds].map(([type, set]) => [type, [...set].sort()]))).toEqual(expected);
  });

  it('keeps planning only calls the chaincode accepts for other seeds and block spacings', () => {
    for (const [seed, blockIntervalSec] of [
      [2, 2],
      [3, 60],
      [4, 900],
    ] as const) {
      expect(() => createDevnet({ ...options, seed, blockIntervalSec, historyBlocks: 2_000 })).not.toThrow();
    }
  });
});
