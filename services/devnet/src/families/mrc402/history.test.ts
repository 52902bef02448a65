import { decodeTransaction, describeEntry, KnownActivity, MRC402, MRC402_PAYMENT, type RawEntry } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDevnet, type Devnet } from '../../chain/devnet.ts';
import { planEras } from '../../chain/eras.ts';
import { DevnetOptionsSchema } from '../../chain/options.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import type { Dex402Order, Mrc402Token } from './records.ts';
import type { BalanceEntry, NftBalance } from '../mrc010/records.ts';
import { MRC402_JOBS } from './index.ts';
import type { PaymentInfo } from '../dex/dex.ts';

/** Five-second blocks: the shortest history in chain time, so the hardest for auctions to end in. */
const options = { seed: 1, genesisTime: 1_700_000_000, historyBlocks: 3_000, blockIntervalSec: 5 };

interface Tx {
  height: number;
  index: number;
  id: string;
  timestamp: number;
  entries: RawEntry[];
}

function chainTxs(devnet: Devnet): Tx[] {
  const out: Tx[] = [];
  for (let height = 1; height <= devnet.height(); height++) {
    devnet.block(height)!.transaction.forEach(({ id, timestamp }, index) => {
      out.push({ height, index, id, timestamp, entries: devnet.transaction(id)! });
    });
  }
  return out;
}

const NFT_TYPES: ReadonlySet<string> = new Set(Object.values(MRC402));
const isNftTx = (tx: Tx) => tx.entries.some((e) => NFT_TYPES.has(e.type));
const valid = (tx: Tx) => tx.entries.every((e) => e.validationCode === 0);
const key = (e: RawEntry) => e.datakey ?? '';
const isNftKey = (k: string) => k.startsWith('MRC402_');
const isDexKey = (k: string) => k.startsWith('DEX402_');
const amountOf = (e: RawEntry, index: number) => BigInt((e.parameters as string[])[index]!);

/** The last valid value written under each key of `prefix`. */
function latest<T>(txs: readonly Tx[], test: (k: string) => boolean): Map<string, T> {
  const out = new Map<string, T>();
  for (const tx of txs) if (valid(tx)) for (const e of tx.entries) if (test(key(e))) out.set(key(e), e.values as T);
  return out;
}

/** A holding's units: spendable balance plus what sits in sale and auction escrow. */
const units = (h: NftBalance) => BigInt(h.balance) + BigInt(h.saleamount) + BigInt(h.auctionamount);

describe('MRC-402 in a generated history', () => {
  let devnet: Devnet;
  let txs: Tx[];
  let nfts: Map<string, Mrc402Token>;
  let orders: Map<string, Dex402Order>;

  beforeAll(() => {
    devnet = createDevnet(options);
    txs = chainTxs(devnet);
    nfts = latest<Mrc402Token>(txs, isNftKey);
    orders = latest<Dex402Order>(txs, isDexKey);
  });

  it('holds valid entries of every MRC402 job type, each listed by a job that writes it', () => {
    const counts = new Map<string, number>();
    for (const tx of txs) if (valid(tx)) for (const e of tx.entries) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
    const written = [...new Set(MRC402_JOBS.flatMap((job) => job.writes))];
    expect(written.sort()).toEqual(Object.values(MRC402).sort());
    expect(written.filter((type) => !counts.has(type))).toEqual([]);
    // Creates are rarer than transfers and trades.
    expect(counts.get(MRC402.create)!).toBeLessThan(counts.get(MRC402.transfer)!);
    expect(counts.get(MRC402.create)!).toBeLessThan(counts.get(MRC402.sell)! + counts.get(MRC402.auction)!);
  });

  it('lists every MRC402 payment role in the PaymentInfo of valid DEX402 entries', () => {
    const roles = new Set<string>();
    for (const tx of txs) {
      if (!valid(tx)) continue;
      for (const e of tx.entries) {
        if (!isDexKey(key(e))) continue;
        for (const p of e.parameters as string[]) {
          if (p.startsWith('[{')) for (const item of JSON.parse(p) as PaymentInfo[]) roles.add(item.type);
        }
      }
    }
    expect([...roles].sort()).toEqual(Object.values(MRC402_PAYMENT).sort());
  });

  it('makes the family 6–8 % of the transactions of the non-legacy eras', () => {
    const { historyBlocks, legacyShare } = DevnetOptionsSchema.parse(options);
    const from = planEras(historyBlocks, legacyShare).find((e) => e.version === 'v2.3')!.from;
    const later = txs.filter((tx) => tx.height >= from);
    const share = later.filter(isNftTx).length / later.length;
    expect(share).toBeGreaterThan(0.06);
    expect(share).toBeLessThan(0.08);
    // None before: the family exists from the non-legacy chaincodes on.
    expect(txs.filter((tx) => tx.height < from && isNftTx(tx))).toEqual([]);
  });

  it('conserves every MRC-010 token in each valid MRC-402 transaction, bids in escrow and reserves locked in NFT units included', () => {
    const reserveOf = (id: string) => Object.entries(nfts.get(id)?.initialreserve ?? {});
    /** What a written value holds of each MRC-010 token (reserves count at their per-unit amount). */
    const holdings = (k: string, values: Record<string, unknown> | undefined) => {
      const out = new Map<number, bigint>();
      const add = (token: number, amount: bigint) => out.set(token, (out.get(token) ?? 0n) + amount);
      if (!values || isNftKey(k)) return out;
      if (isDexKey(k)) {
        const o = values as unknown as Dex402Order;
        if (o.auction_current_bidder !== '' && o.auction_settle_date === 0)
          add(Number(o.sell_token), BigInt(o.auction_current_price));
        return out;
      }
      for (const b of (values['balance'] ?? []) as BalanceEntry[]) {
        add(b.token, BigInt(b.balance) + decimalOrZero(b.saleamount) + decimalOrZero(b.auctionamount));
      }
      for (const [id, h] of Object.entries((values['mrc402'] ?? {}) as Record<string, NftBalance>)) {
        for (const [token, perUnit] of reserveOf(id)) add(Number(token), units(h) * BigInt(perUnit));
      }
      return out;
    };
    const state = new Map<string, Record<string, unknown>>();
    let checked = 0;
    for (const tx of txs) {
      if (!valid(tx)) continue;
      if (isNftTx(tx)) {
        const delta = new Map<number, bigint>();
        for (const e of tx.entries) {
          if (!e.datakey) continue;
          for (const [t, a] of holdings(e.datakey, e.values)) delta.set(t, (delta.get(t) ?? 0n) + a);
          for (const [t, a] of holdings(e.datakey, state.get(e.datakey))) delta.set(t, (delta.get(t) ?? 0n) - a);
        }
        for (const [token, change] of delta)
          expect({ tx: tx.id, token, change }).toEqual({ tx: tx.id, token, change: 0n });
        checked++;
      }
      for (const e of tx.entries) if (e.datakey && e.values) state.set(e.datakey, e.values);
    }
    expect(checked).toBeGreaterThan(400);
  });

  it('keeps each MRC-402’s circulation equal to creates + mints − burns − melts and its totalsupply as the burn quirk computes it', () => {
    const circulation = new Map<string, bigint>();
    const supply = new Map<string, bigint>();
    const melted = new Map<string, bigint>();
    for (const tx of txs) {
      if (!valid(tx)) continue;
      for (const e of tx.entries) {
        const id = key(e);
        const get = (m: Map<string, bigint>) => m.get(id) ?? 0n;
        if (e.type === MRC402.create) {
          const total = BigInt((e.values as unknown as Mrc402Token).totalsupply);
          circulation.set(id, total);
          supply.set(id, total);
        } else if (e.type === MRC402.mint) {
          circulation.set(id, get(circulation) + amountOf(e, 2));
          supply.set(id, get(supply) + amountOf(e, 2));
        } else if (e.type === MRC402.burn) {
          circulation.set(id, get(circulation) - amountOf(e, 2));
          supply.set(id, get(supply) - get(melted) - amountOf(e, 2));
        } else if (e.type === MRC402.melt) {
          circulation.set(id, get(circulation) - amountOf(e, 2));
          melted.set(id, get(melted) + amountOf(e, 2));
        }
      }
    }
    const held = new Map<string, bigint>();
    for (const wallet of Object.values(devnet.worldState().wallets)) {
      for (const [id, h] of Object.entries(wallet.mrc402 ?? {})) {
        for (const part of [h.balance, h.saleamount, h.auctionamount]) expect(BigInt(part)).toBeGreaterThanOrEqual(0n);
        held.set(id, (held.get(id) ?? 0n) + units(h));
      }
    }
    let quirky = 0;
    for (const [id, nft] of nfts) {
      expect({ id, held: held.get(id) ?? 0n }).toEqual({ id, held: circulation.get(id) });
      expect({ id, totalsupply: nft.totalsupply, meltedamount: nft.meltedamount }).toEqual({
        id,
        totalsupply: String(supply.get(id)),
        meltedamount: String(melted.get(id) ?? 0n),
      });
      if (BigInt(nft.totalsupply) - BigInt(nft.meltedamount) !== circulation.get(id)) quirky++;
    }
    // Burns after melts happened: for those NFTs the record no longer implies the circulation.
    expect(quirky).toBeGreaterThan(0);
  });

  it('keeps every seller’s escrow equal to its open orders: saleamount to unsold remainders, auctionamount to unsettled auctions', () => {
    const expected = new Map<string, { sale: bigint; auction: bigint }>();
    for (const o of orders.values()) {
      const slot = expected.get(`${o.seller} ${o.mrc402}`) ?? { sale: 0n, auction: 0n };
      if (o.cancel_date !== 0) continue;
      if (o.auction_start_date === 0 && o.sell_date === 0) slot.sale += BigInt(o.remain_amount);
      if (o.auction_start_date !== 0 && o.auction_settle_date === 0) slot.auction += BigInt(o.amount);
      expected.set(`${o.seller} ${o.mrc402}`, slot);
    }
    let open = 0;
    for (const [address, wallet] of Object.entries(devnet.worldState().wallets)) {
      for (const [id, h] of Object.entries(wallet.mrc402 ?? {})) {
        const want = expected.get(`${address} ${id}`) ?? { sale: 0n, auction: 0n };
        expect({ address, id, sale: BigInt(h.saleamount), auction: BigInt(h.auctionamount) }).toEqual({
          address,
          id,
          ...want,
        });
        if (want.sale + want.auction > 0n) open++;
      }
    }
    expect(open).toBeGreaterThan(10);
  });

  it('creates NFTs with zero, past and future expiry dates and melts only those whose date has come', () => {
    const kinds = new Set<string>();
    for (const tx of txs) {
      if (!valid(tx)) continue;
      for (const e of tx.entries) {
        const nft = e.values as unknown as Mrc402Token;
        if (e.type === MRC402.create) {
          kinds.add(nft.expiredate === 0 ? 'zero' : nft.expiredate <= nft.jobdate ? 'past' : 'future');
        }
        if (e.type === MRC402.melt) expect(nft.expiredate === 0 || nft.expiredate <= nft.jobdate).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(['future', 'past', 'zero']);
  });

  it('decodes every valid MRC-402 transaction into valid NFT activity of protocol MRC402 that names the record’s NFT and order', () => {
    const expectedKinds: Record<string, string[]> = {
      [MRC402.create]: ['nftCreate'],
      [MRC402.update]: ['nftUpdate'],
      [MRC402.mint]: ['nftMint'],
      [MRC402.burn]: ['nftBurn'],
      [MRC402.melt]: ['nftMelt'],
      [MRC402.sell]: ['nftSell'],
      [MRC402.unsell]: ['nftSellCancel'],
      [MRC402.buy]: ['nftBuy'],
      [MRC402.auction]: ['nftAuction'],
      [MRC402.unauction]: ['nftAuctionCancel'],
      [MRC402.auctionbid]: ['nftBid'],
      [MRC402.auctionwinning]: ['nftAuctionFinish'],
      [MRC402.auctionbuynow]: ['nftBid', 'nftAuctionFinish'],
      [MRC402.auctionfailure]: ['nftAuctionFinish'],
      [MRC402.transfer]: ['nftTransfer'],
    };
    let decoded = 0;
    for (const tx of txs) {
      if (!valid(tx) || !isNftTx(tx)) continue;
      const event = decodeTransaction({ ...tx, seq: 0 }, tx.entries);
      const main = tx.entries.find((e) => expectedKinds[e.type] !== undefined)!;
      expect({ tx: tx.id, kinds: event.activity.map((a) => a.kind) }).toEqual({
        tx: tx.id,
        kinds: expectedKinds[main.type],
      });
      const record = main.values as Record<string, unknown>;
      const nftId = isNftKey(key(main))
        ? key(main)
        : isDexKey(key(main))
          ? record['mrc402']
          : (main.parameters as string[])[3];
      for (const a of event.activity) {
        KnownActivity.parse(a);
        expect(a).toMatchObject({ protocol: 'MRC402', nftId });
        if (isDexKey(key(main))) expect(a).toMatchObject({ dexId: key(main) });
      }
      const first = event.activity[0] as KnownActivity | undefined;
      if (first?.kind === 'nftCreate') expect(first.amount).toBe(record['totalsupply']);
      if (first?.kind === 'nftMelt') {
        const reserve = Object.entries((record['initialreserve'] ?? {}) as Record<string, string>);
        expect(first.payments.map((p) => [String(p.token), p.amount])).toEqual(
          reserve.map(([token, perUnit]) => [token, (BigInt(perUnit) * BigInt(first.amount)).toString()]),
        );
      }
      for (const e of tx.entries) {
        if (!NFT_TYPES.has(e.type)) continue;
        const view = describeEntry(e);
        expect(view.summary).toMatch(/^MRC-402 /);
        expect(view.nftId).toBe(nftId);
      }
      decoded++;
    }
    expect(decoded).toBeGreaterThan(400);
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
