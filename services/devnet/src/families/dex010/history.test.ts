import { DEX010, DEX010_PAYMENT, MRC010, type RawEntry } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDevnet, type Devnet } from '../../chain/devnet.ts';
import { decimalOrZero } from '../../chaincode/util.ts';
import type { BalanceEntry, Dex010Order } from '../mrc010/records.ts';
import { tokenUpdateJob } from '../mrc010/token-update.ts';
import { DEX010_JOBS } from './index.ts';
import type { PaymentInfo } from '../dex/dex.ts';

/** Five-second blocks: the shortest history in chain time, so the hardest for auctions to end in. */
const options = { seed: 1, genesisTime: 1_700_000_000, historyBlocks: 3_000, blockIntervalSec: 5 };

/** Every transaction's entries in chain order. */
function chainTxs(devnet: Devnet): RawEntry[][] {
  const out: RawEntry[][] = [];
  for (let h = 1; h <= devnet.height(); h++) {
    for (const { id } of devnet.block(h)!.transaction) out.push(devnet.transaction(id)!);
  }
  return out;
}

const isDexKey = (key: string | undefined) => key?.startsWith('DEX010_') ?? false;

/**
 * What a record holds of each token: a wallet its balance, sale and auction amounts; an order the
 * bid it keeps in escrow, less the amount of an auction that failed (the chaincode paid that back
 * without lowering auctionamount, so the seller's auctionamount still counts it).
 */
function holdings(key: string, values: Record<string, unknown> | undefined): Map<number, bigint> {
  const out = new Map<number, bigint>();
  const add = (token: number, amount: bigint) => out.set(token, (out.get(token) ?? 0n) + amount);
  if (!values) return out;
  if (isDexKey(key)) {
    const order = values as unknown as Dex010Order;
    if (order.auction_current_bidder !== '' && order.auction_settle_date === 0) {
      add(Number(order.sell_token), BigInt(order.auction_current_price));
    }
    if (order.job_type === DEX010.auctionfailure) add(Number(order.mrc010), -BigInt(order.amount));
    return out;
  }
  for (const b of (values.balance ?? []) as Partial<BalanceEntry>[]) {
    add(b.token!, BigInt(b.balance!) + decimalOrZero(b.saleamount ?? '') + decimalOrZero(b.auctionamount ?? ''));
  }
  return out;
}

describe('MRC-010 DEX in a generated history', () => {
  let devnet: Devnet;
  let txs: RawEntry[][];

  beforeAll(() => {
    devnet = createDevnet(options);
    txs = chainTxs(devnet);
  });

  it('holds valid entries of every job type tokenUpdate and the DEX jobs write, in a 3,000-block seed-1 history', () => {
    const valid = new Map<string, number>();
    for (const e of txs.flat()) if (e.validationCode === 0) valid.set(e.type, (valid.get(e.type) ?? 0) + 1);
    const written = [...new Set([tokenUpdateJob, ...DEX010_JOBS].flatMap((job) => job.writes))];
    // Every DEX010 job type has a job that writes it; mrc010_recv_fee_remain is only a payment role.
    const dexTypes = Object.values(DEX010).filter((type) => type !== DEX010.recvFeeRemain);
    expect(written.sort()).toEqual([MRC010.tokenUpdate, ...dexTypes].sort());
    expect(written.filter((type) => !valid.has(type))).toEqual([]);
  });

  it('lists every payment role in the PaymentInfo of valid DEX entries, the unspent-fee refund included', () => {
    const roles = new Set<string>();
    for (const e of txs.flat()) {
      if (e.validationCode !== 0 || !isDexKey(e.datakey) || !Array.isArray(e.parameters)) continue;
      for (const p of e.parameters) {
        if (typeof p !== 'string' || !p.startsWith('[{')) continue;
        for (const item of JSON.parse(p) as PaymentInfo[]) roles.add(item.type);
      }
    }
    expect([...roles].sort()).toEqual(Object.values(DEX010_PAYMENT).sort());
  });

  it('conserves each token in every valid DEX transaction, fees to the platform included', () => {
    const state = new Map<string, Record<string, unknown>>();
    let checked = 0;
    for (const entries of txs) {
      const valid = entries.filter((e) => e.validationCode === 0 && e.datakey !== undefined);
      if (valid.some((e) => isDexKey(e.datakey))) {
        const delta = new Map<number, bigint>();
        for (const e of valid) {
          for (const [token, amount] of holdings(e.datakey!, e.values))
            delta.set(token, (delta.get(token) ?? 0n) + amount);
          for (const [token, amount] of holdings(e.datakey!, state.get(e.datakey!))) {
            delta.set(token, (delta.get(token) ?? 0n) - amount);
          }
        }
        for (const [token, change] of delta)
          expect({ tx: entries[0]!.id, token, change }).toEqual({ tx: entries[0]!.id, token, change: 0n });
        checked++;
      }
      for (const e of valid) state.set(e.datakey!, e.values!);
    }
    expect(checked).toBeGreaterThan(900);
  });

  it('serves every DEX010 order as on chain in worldState, keyed by its 40-character id', () => {
    const { dex010 } = devnet.worldState();
    const latest = new Map<string, Record<string, unknown>>();
    for (const e of txs.flat()) if (e.validationCode === 0 && isDexKey(e.datakey)) latest.set(e.datakey!, e.values!);
    expect(Object.keys(dex010).sort()).toEqual([...latest.keys()].sort());
    for (const [id, order] of Object.entries(dex010)) {
      expect(id).toMatch(/^DEX010_[0-9a-f]{32}[0-9]$/);
      expect(order).toEqual(latest.get(id));
    }
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
