import { isAddress, type RawEntry } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDevnet, type Devnet } from './devnet.ts';

/**
 * A 3,000-block history (seed 1) held to the rules of metacoin-chain.md and the chaincode history:
 * its first 10 % is written by the legacy chaincode, the rest by the current one.
 */
const BLOCKS = 3_000;
const LEGACY_END = 300;
const STAMPS = new Set(['tx_id', 'db_sn', 'db_id']);
const LEGACY_ONLY = [
  'SetBase',
  'tokenAddTarget',
  'tokenRemoveTarget',
  'tokenAddLogger',
  'tokenRemoveLogger',
  'exchange',
  'exchangePair',
  'exchangeFee',
  'exchangeFeePair',
  'MRC100LOG',
];

interface Tx {
  height: number;
  timestamp: number;
  entries: RawEntry[];
}

/** A wallet entry's own keys: the record's, without the node's stamps. */
const ownKeys = (e: RawEntry) => Object.keys(e.values!).filter((k) => !STAMPS.has(k));
const isWalletEntry = (e: RawEntry) => e.values !== undefined && e.datakey !== undefined && isAddress(e.datakey);

describe('a 3,000-block history (seed 1)', () => {
  let devnet: Devnet;
  let txs: Tx[];
  let legacy: RawEntry[];
  let current: RawEntry[];

  beforeAll(() => {
    devnet = createDevnet({ seed: 1, genesisTime: 1_600_000_000, historyBlocks: BLOCKS, blockIntervalSec: 30 });
    txs = [];
    for (let height = 1; height <= devnet.height(); height++) {
      for (const { id, timestamp } of devnet.block(height)!.transaction) {
        txs.push({ height, timestamp, entries: devnet.transaction(id)! });
      }
    }
    legacy = txs.filter((t) => t.height <= LEGACY_END).flatMap((t) => t.entries);
    current = txs.filter((t) => t.height > LEGACY_END).flatMap((t) => t.entries);
  });

  describe('legacy era', () => {
    it('holds a few hundred transactions', () => {
      expect(txs.filter((t) => t.height <= LEGACY_END).length).toBeGreaterThan(300);
    });

    it('writes every wallet without id or mrc010 and with three-field balance entries (MetaWallet, BalanceInfo)', () => {
      const wallets = legacy.filter(isWalletEntry);
      expect(wallets.length).toBeGreaterThan(500);
      for (const e of wallets) {
        expect(e.values).not.toHaveProperty('id');
        expect(e.values).not.toHaveProperty('mrc010');
        for (const b of e.values!.balance as object[])
          expect(Object.keys(b)).toEqual(['balance', 'token', 'unlockdate']);
      }
    });

    it('holds each legacy wallet layout: list under `token`, no nonce, nonce "", mrc800 without mrc402, mrc402', () => {
      const wallets = legacy.filter(isWalletEntry);
      // Pre-2.0: the list was under `token`; the bridge's rename puts `balance` last.
      const renamed = wallets.filter((e) => ownKeys(e).at(-1) === 'balance');
      const noNonce = wallets.filter((e) => !('nonce' in e.values!));
      const emptyNonce = wallets.filter((e) => e.values!.nonce === '');
      const mrc800Only = wallets.filter((e) => 'mrc800' in e.values! && !('mrc402' in e.values));
      const withMrc402 = wallets.filter((e) => 'mrc402' in e.values!);
      expect(renamed.length).toBeGreaterThanOrEqual(5);
      expect(noNonce.length).toBeGreaterThan(20);
      expect(emptyNonce.length).toBeGreaterThan(5);
      expect(mrc800Only.length).toBeGreaterThan(20);
      expect(withMrc402.length).toBeGreaterThan(20);
    });

    it('writes token records without id (CC-22 Token)', () => {
      const tokens = legacy.filter((e) => e.datakey?.startsWith('TOKEN_DATA_'));
      expect(tokens.length).toBeGreaterThan(20);
      for (const e of tokens) expect(e.values).not.toHaveProperty('id');
    });

    it('holds every legacy-only job type, and the current era none', () => {
      for (const type of LEGACY_ONLY) {
        expect(legacy.filter((e) => e.type === type).length, type).toBeGreaterThanOrEqual(3);
        expect(current.filter((e) => e.type === type).length, type).toBe(0);
      }
    });

    it('gives tokenIncrease and tokenBurning four parameters (no memo) in the legacy era and five after', () => {
      const supply = (entries: RawEntry[]) =>
        entries.filter((e) => ['tokenIncrease', 'tokenBurning', 'ownerIncrease', 'ownerBurning'].includes(e.type));
      expect(supply(legacy).length).toBeGreaterThan(10);
      for (const e of supply(legacy)) expect(e.parameters).toHaveLength(4);
      for (const e of supply(current)) expect(e.parameters).toHaveLength(5);
    });

    it('serves MRC-100 logs with an integer token and parameters [key, token, logger, log, "", ""]', () => {
      const logs = legacy.filter((e) => e.type === 'MRC100LOG');
      for (const e of logs) {
        expect(e.datakey).toMatch(/^MRC100_[0-9]+_[0-9]+_[0-9a-f]{32}$/);
        expect(typeof e.token).toBe('number');
        expect(e.address).toBe('');
        expect(e.parameters).toEqual([e.datakey, e.values!.token, e.values!.logger, e.values!.job_args, '', '']);
      }
    });

    it('adds the bridge\'s second entry, address "", for each exchange role lost to a key written twice', () => {
      const rules: [written: string, lost: string, a: number, b: number][] = [
        ['exchangePair', 'exchange', 0, 12],
        ['exchangeFee', 'exchangePair', 9, 3],
        ['exchangeFeePair', 'exchangeFee', 3, 12],
      ];
      const fired = new Map<string, number>();
      for (const { entries } of txs.filter((t) => t.entries.some((e) => e.type.startsWith('exchange')))) {
        for (const [i, e] of entries.entries()) {
          if (e.address === '') continue; // a second entry itself
          const rule = rules.find(([written]) => written === e.type);
          if (!rule) continue;
          const p = e.parameters as string[];
          const next = entries[i + 1];
          if (p[rule[2]] === p[rule[3]]) {
            fired.set(rule[1], (fired.get(rule[1]) ?? 0) + 1);
            expect(next).toMatchObject({ datakey: e.datakey, type: rule[1], address: '', values: e.values });
          } else {
            expect(next?.datakey === e.datakey).toBe(false);
          }
        }
      }
      for (const [, lost] of rules) expect(fired.get(lost) ?? 0, lost).toBeGreaterThanOrEqual(1);
    });

    it('installs each chaincode version with a lifecycle transaction: v2.3 first in block 301, the current one in 1,111', () => {
      const lifecycle = txs.filter((t) => t.entries[0]!.type === 'Chaincode Install or Update');
      // 2.0, 2.1, 2.1 with MRC-800, 2.2, 2.3 and the current one (v1 is the genesis' own).
      expect(lifecycle.length).toBe(6);
      // v2.3 runs 30 % of the 2,700 blocks after the legacy ones: 301 … 1,110.
      for (const height of [2, LEGACY_END + 1, LEGACY_END + 811]) {
        expect(lifecycle.map((t) => t.height)).toContain(height);
        expect(txs.find((t) => t.height === height)!.entries[0]!.type).toBe('Chaincode Install or Update');
      }
    });
  });

  describe('current era', () => {
    it('writes wallets as TWallet: id = the address, five-field entries, mrc010 null', () => {
      const wallets = current.filter(isWalletEntry);
      for (const e of wallets) {
        expect(e.values!.id).toBe(e.datakey);
        expect(e.values!.mrc010).toBeNull();
        for (const b of e.values!.balance as object[]) {
          expect(Object.keys(b)).toEqual(['balance', 'token', 'unlockdate', 'saleamount', 'auctionamount']);
        }
      }
    });
  });

  describe('clocks', () => {
    it("dates every record of a block by one peer clock while its transactions carry their clients' times", () => {
      let blocksWithSpread = 0;
      for (let h = 3; h <= devnet.height(); h++) {
        const block = devnet.block(h)!;
        if (new Set(block.transaction.map((t) => t.timestamp)).size > 1) blocksWithSpread++;
        const peers = new Set(
          txs
            .filter((t) => t.height === h)
            .flatMap((t) => t.entries.map((e) => e.values?.jobdate ?? e.values?.regdate)),
        );
        peers.delete(undefined);
        expect(peers.size).toBeLessThanOrEqual(1);
        const [peer] = peers as Set<number>;
        if (peer !== undefined)
          for (const t of block.transaction) expect(Math.abs(t.timestamp - peer)).toBeLessThanOrEqual(900);
      }
      expect(blocksWithSpread).toBeGreaterThan(500);
    });

    it('lets a block start earlier than the block before it now and then', () => {
      let backwards = 0;
      for (let h = 2; h <= devnet.height(); h++) {
        if (devnet.block(h)!.timestamp < devnet.block(h - 1)!.timestamp) backwards++;
      }
      expect(backwards).toBeGreaterThan(10);
    });
  });

  describe('proportions', () => {
    it('puts the most active 1 % of wallets in at least 30 % of transactions', () => {
      const perWallet = new Map<string, number>();
      const walletsOf = txs
        .map((t) => new Set(t.entries.filter((e) => e.address).map((e) => e.address!)))
        .filter((s) => s.size > 0);
      for (const set of walletsOf) for (const a of set) perWallet.set(a, (perWallet.get(a) ?? 0) + 1);
      const ranked = [...perWallet].sort((x, y) => y[1] - x[1]);
      const top = new Set(ranked.slice(0, Math.ceil(ranked.length / 100)).map(([a]) => a));
      const share = walletsOf.filter((set) => [...set].some((a) => top.has(a))).length / walletsOf.length;
      expect(share).toBeGreaterThanOrEqual(0.3);
    });

    it('leaves most MTC with the top 1 % of wallets, and most value in a tenth of the transfers', () => {
      const holdings = Object.values(devnet.worldState().wallets)
        .map((w) => w.balance.filter((b) => b.token === 0).reduce((s, b) => s + BigInt(b.balance), 0n))
        .sort((x, y) => (y > x ? 1 : -1));
      const total = holdings.reduce((s, v) => s + v, 0n);
      const top = holdings.slice(0, Math.ceil(holdings.length / 100)).reduce((s, v) => s + v, 0n);
      expect(Number((top * 1000n) / total) / 1000).toBeGreaterThanOrEqual(0.5);

      const amounts = txs
        .flatMap((t) => t.entries)
        .filter((e) => e.type === 'transfer' && (e.parameters as string[])[3] === '0')
        .map((e) => BigInt((e.parameters as string[])[2]!))
        .sort((x, y) => (x > y ? 1 : -1));
      const sum = amounts.reduce((s, v) => s + v, 0n);
      const biggest = amounts.slice(Math.floor(amounts.length * 0.9)).reduce((s, v) => s + v, 0n);
      expect(Number((biggest * 1000n) / sum) / 1000).toBeGreaterThanOrEqual(0.8);
    });
  });
});
