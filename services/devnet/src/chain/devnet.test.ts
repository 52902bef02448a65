import { isAddress, RawBlock, RawTransaction, type RawEntry } from '@mtc/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCollectionKey, isItemKey, MELTED } from '../families/mrc400/records.ts';
import { DEX402_PREFIX, MRC402_PREFIX } from '../families/mrc402/records.ts';
import { DEX010_PREFIX, type Mrc010Token, type Wallet } from '../families/mrc010/records.ts';
import { createDevnet, type Devnet } from './devnet.ts';

const GENESIS = 1_700_000_000;
const options = { seed: 4242, genesisTime: GENESIS, historyBlocks: 900, blockIntervalSec: 900 };
/** The legacy chaincode writes the first 10 % of a history (the default legacyShare). */
const LEGACY_END = 90;

interface ServedTx {
  height: number;
  id: string;
  entries: RawEntry[];
}

/** Every transaction as the node serves it, in chain order. */
function servedTxs(devnet: Devnet): ServedTx[] {
  const out: ServedTx[] = [];
  for (let height = 1; height <= devnet.height(); height++) {
    for (const { id } of devnet.block(height)!.transaction) out.push({ height, id, entries: devnet.transaction(id)! });
  }
  return out;
}

/** State rebuilt from entry values, last write wins per key: what an indexer replicates. */
function replay(txs: readonly ServedTx[], includeInvalid = false): Map<string, Record<string, unknown>> {
  const state = new Map<string, Record<string, unknown>>();
  for (const { entries } of txs) {
    for (const e of entries) {
      if (e.values && e.datakey && (includeInvalid || e.validationCode === 0)) state.set(e.datakey, e.values);
    }
  }
  return state;
}

const balanceEntries = (values: Record<string, unknown>) => (values.balance ?? []) as Wallet['balance'];

describe('createDevnet', () => {
  let devnet: Devnet;
  let txs: ServedTx[];

  beforeAll(() => {
    devnet = createDevnet(options);
    txs = servedTxs(devnet);
  });

  it('builds the same chain, hashes, ids and entries when given the same seed and options', () => {
    const again = createDevnet(options);
    expect(again.height()).toBe(devnet.height());
    for (let h = 1; h <= devnet.height(); h++) expect(again.block(h)).toEqual(devnet.block(h));
    for (const tx of txs) expect(JSON.stringify(again.transaction(tx.id))).toBe(JSON.stringify(tx.entries));
  });

  it('builds a different chain for another seed', () => {
    const other = createDevnet({ ...options, seed: 4243, historyBlocks: 20 });
    expect(other.block(1)!.id).not.toBe(devnet.block(1)!.id);
    expect(other.worldState().wallets).not.toEqual(
      createDevnet({ ...options, historyBlocks: 20 }).worldState().wallets,
    );
  });

  it('has a history of 2,000+ transactions', () => {
    expect(txs.length).toBeGreaterThanOrEqual(2_000);
    expect(devnet.worldState().counts.transactions).toBe(txs.length);
  });

  it('serves blocks and transactions that parse with the node schemas, keys in node order', () => {
    for (let h = 1; h <= devnet.height(); h++) {
      const block = devnet.block(h)!;
      expect(RawBlock.parse(block)).toEqual(block);
      expect(Object.keys(block)).toEqual(['id', 'sn', 'transaction', 'timestamp']);
      expect(block.sn).toBe(String(h));
    }
    for (const tx of txs) {
      expect(RawTransaction.parse(tx.entries)).toHaveLength(tx.entries.length);
      for (const e of tx.entries) {
        expect(e.id).toBe(tx.id);
        expect(e.db_sn).toBe(String(tx.height));
        expect(e.db_id).toBe(devnet.block(tx.height)!.id);
      }
    }
  });

  it("numbers blocks from 1 at their first tx's time, dating records by a peer clock that never goes back", () => {
    let lastPeer = 0;
    for (let h = 1; h <= devnet.height(); h++) {
      const block = devnet.block(h)!;
      if (block.transaction.length > 0) expect(block.timestamp).toBe(block.transaction[0]!.timestamp);
      // jobdate is the endorsing peer's clock: one value per block, never earlier than the last.
      const jobdates = new Set(
        txs.filter((t) => t.height === h).flatMap((t) => t.entries.map((e) => e.values?.jobdate)),
      );
      jobdates.delete(undefined);
      expect(jobdates.size).toBeLessThanOrEqual(1);
      for (const peer of jobdates as Set<number>) {
        expect(peer).toBeGreaterThanOrEqual(lastPeer);
        lastPeer = peer;
      }
    }
    expect(devnet.block(1)!.timestamp).toBe(GENESIS);
  });

  it('lists 0 to 6 transactions per block, with some empty blocks', () => {
    const sizes = Array.from({ length: devnet.height() }, (_, i) => devnet.block(i + 1)!.transaction.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(6);
    expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(0);
  });

  it('opens with the genesis wallets and MTC in block 1 and a chaincode lifecycle tx in block 2', () => {
    const types = devnet.block(1)!.transaction.map(({ id }) => devnet.transaction(id)!.map((e) => e.type));
    expect(types.slice(0, 5)).toEqual(Array<string[]>(5).fill(['NewWallet']));
    expect(types[5]).toEqual(['tokenRegister', ...Array<string>(5).fill('token_reserve')]);
    const mtc = devnet.worldState().tokens['0']!;
    expect(mtc).toMatchObject({ symbol: 'MTC', name: 'Metacoin', decimal: 8, token: 0, id: '0', type: '010' });
    expect(mtc.image).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);

    const lifecycle = devnet.transaction(devnet.block(2)!.transaction[0]!.id)!;
    expect(lifecycle).toHaveLength(1);
    expect(Object.keys(lifecycle[0]!)).toEqual(['timestamp', 'id', 'parameters', 'token', 'type', 'db_id', 'db_sn']);
    expect(lifecycle[0]).toMatchObject({ type: 'Chaincode Install or Update', parameters: [], token: '' });
  });

  it('gives tokenRegister entries the token object as parameters and the renamed record as values', () => {
    const register = txs.filter((t) => t.entries.some((e) => e.type === 'tokenRegister'));
    expect(register.filter((t) => t.height <= LEGACY_END).length).toBeGreaterThan(1);
    expect(register.filter((t) => t.height > LEGACY_END).length).toBeGreaterThan(5);
    for (const { height, entries } of register) {
      const e = entries.find((x) => x.type === 'tokenRegister')!;
      expect(Array.isArray(e.parameters)).toBe(false);
      const id = Number(e.datakey!.slice('TOKEN_DATA_'.length));
      expect(e.parameters).toMatchObject({ token: id, job_args: '' });
      // The legacy Token struct has no id (CC-22 mtc.go); TMRC010 has.
      if (height <= LEGACY_END) expect(e.parameters).not.toHaveProperty('id');
      else expect(e.parameters).toMatchObject({ id: String(id) });
      expect(e.values).toMatchObject({ balance: id });
      expect(e.values).not.toHaveProperty('token');
      expect(e.token).toBe('');
    }
  });

  it("writes only CRC-valid addresses, and an entry address only where the datakey is one (not on the bridge's second exchange entry)", () => {
    for (const address of Object.keys(devnet.worldState().wallets)) expect(isAddress(address)).toBe(true);
    for (const { entries } of txs) {
      const seen = new Set<string>();
      for (const e of entries) {
        if (e.datakey === undefined) continue;
        const second = seen.has(e.datakey);
        seen.add(e.datakey);
        expect(e.address).toBe(isAddress(e.datakey) && !second ? e.datakey : '');
      }
    }
  });

  it('orders the entries of each transaction by datakey, descending', () => {
    for (const { entries } of txs) {
      const keys = entries.map((e) => e.datakey ?? '');
      expect(keys).toEqual([...keys].sort().reverse());
    }
  });

  it('never writes a negative or malformed balance, and keeps one entry per (token, unlockdate)', () => {
    const wallets = txs.flatMap((t) => t.entries).filter((e) => e.address !== '' && e.values);
    for (const values of [...wallets.map((e) => e.values!), ...Object.values(devnet.worldState().wallets)]) {
      const entries = balanceEntries(values);
      expect(entries.some((b) => b.token === 0)).toBe(true);
      const legacy = !('id' in values);
      for (const b of entries) {
        expect(b.balance).toMatch(/^(0|[1-9][0-9]*)$/);
        // Legacy entries have three fields (CC-22 BalanceInfo); current ones five.
        if (legacy) expect(Object.keys(b)).toEqual(['balance', 'token', 'unlockdate']);
        else {
          // DEX escrow, signed: mrc010unauction can take saleamount below zero (families/dex010/auction.ts).
          expect(b.saleamount).toMatch(/^(|0|-?[1-9][0-9]*)$/);
          expect(b.auctionamount).toMatch(/^(|0|-?[1-9][0-9]*)$/);
        }
      }
      const pairs = entries.map((b) => `${b.token}@${b.unlockdate}`);
      expect(new Set(pairs).size).toBe(pairs.length);
    }
  });

  it('includes time-locked credits, some still locked and some expired', () => {
    const now = devnet.block(devnet.height())!.timestamp;
    const locks = Object.values(devnet.worldState().wallets).flatMap((w) => w.balance.filter((b) => b.unlockdate > 0));
    expect(locks.some((b) => b.unlockdate > now)).toBe(true);
    expect(locks.some((b) => b.unlockdate <= now)).toBe(true);
  });

  it('rebuilds the world state from the values of valid entries alone', () => {
    const world = devnet.worldState();
    const state = replay(txs);
    for (const [address, wallet] of Object.entries(world.wallets)) {
      const { tx_id: _t, db_sn: _s, db_id: _d, ...replayed } = state.get(address)!;
      expect(replayed).toEqual(wallet);
    }
    for (const [id, token] of Object.entries(world.tokens)) {
      const { balance, ...rest } = state.get(`TOKEN_DATA_${id}`)!;
      expect({ ...rest, token: balance }).toEqual(token);
    }
    expect([...state.keys()].filter(isAddress)).toHaveLength(world.counts.wallets);
  });

  it('holds every NFT record and DEX order as the JSON the last valid write of its key holds', () => {
    const world = devnet.worldState();
    const state = replay(txs);
    const families = {
      mrc400s: [world.mrc400s, isCollectionKey],
      mrc401s: [world.mrc401s, isItemKey],
      mrc402s: [world.mrc402s, (key: string) => key.startsWith(MRC402_PREFIX)],
      dex402: [world.dex402, (key: string) => key.startsWith(DEX402_PREFIX)],
      dex010: [world.dex010, (key: string) => key.startsWith(DEX010_PREFIX)],
    } as const;
    for (const [name, [records, isKey]] of Object.entries(families)) {
      const keys = [...state.keys()].filter(isKey);
      expect(keys.length, name).toBeGreaterThan(0);
      expect(Object.keys(records).sort(), name).toEqual(keys.sort());
      // Field for field and in order: the chain's JSON, not merely an equal object.
      for (const key of keys) expect(JSON.stringify(records[key]), key).toBe(JSON.stringify(state.get(key)));
    }
    // Both chaincode versions' shapes: CC-m items lack CC-t's creator.
    const items = Object.values(world.mrc401s);
    expect(items.some((item) => !('creator' in item))).toBe(true);
    expect(items.some((item) => 'creator' in item)).toBe(true);
    expect(items.some((item) => item.owner === MELTED)).toBe(true);
  });

  it('commits MVCC-conflicted transactions with full write sets that change nothing', () => {
    const invalid = txs.filter((t) => t.entries.some((e) => e.validationCode === 11));
    expect(invalid.length).toBeGreaterThan(0);
    expect(devnet.worldState().counts.invalidTransactions).toBe(invalid.length);
    for (const { entries } of invalid) {
      for (const e of entries) {
        expect(e.validationCode).toBe(11);
        expect(e.values).not.toHaveProperty('tx_id');
      }
    }
    // Applying them would change the state: they carry real writes.
    expect(replay(txs, true)).not.toEqual(replay(txs));
  });

  it('conserves every token: wallets, the DEXes and NFTs hold its reserves plus increases minus burns', () => {
    const world = devnet.worldState();
    const held = new Map<number, bigint>();
    const hold = (token: number, amount: bigint) => held.set(token, (held.get(token) ?? 0n) + amount);
    const signed = (amount: string | undefined) => (amount ? BigInt(amount) : 0n);
    for (const w of Object.values(world.wallets)) {
      for (const b of w.balance as Wallet['balance']) {
        hold(b.token, BigInt(b.balance) + signed(b.saleamount) + signed(b.auctionamount));
      }
    }
    // Bids sit in the DEX until settled. A failed auction's amount went back to the balance but
    // stays in auctionamount (chain quirk), so it is counted twice above.
    for (const order of Object.values(world.dex010)) {
      if (order.auction_current_bidder !== '' && order.auction_settle_date === 0) {
        hold(Number(order.sell_token), BigInt(order.auction_current_price));
      }
      if (order.job_type === 'mrc010_auctionfailure') hold(Number(order.mrc010), -BigInt(order.amount));
    }
    for (const order of Object.values(world.dex402)) {
      if (order.auction_current_bidder !== '' && order.auction_settle_date === 0) {
        hold(Number(order.sell_token), BigInt(order.auction_current_price));
      }
    }
    // An MRC-402 unit locks its reserve per unit, an item not melted its initial reserve; an item in
    // auction holds the highest bid.
    for (const w of Object.values(world.wallets)) {
      for (const [id, h] of Object.entries((w as Wallet).mrc402 ?? {})) {
        const units = BigInt(h.balance) + signed(h.saleamount) + signed(h.auctionamount);
        for (const [token, perUnit] of Object.entries(world.mrc402s[id]!.initialreserve ?? {})) {
          hold(Number(token), units * BigInt(perUnit));
        }
      }
    }
    for (const item of Object.values(world.mrc401s)) {
      if (item.owner !== 'MELTED') hold(Number(item.initial_token), signed(item.initial_reserve));
      if (item.auction_date > 0 && item.auction_current_bidder !== '') {
        hold(Number(item.auction_token), BigInt(item.auction_current_price));
      }
    }
    expect(Object.keys(world.mrc401s).length).toBeGreaterThan(0);
    const registered = txs
      .flatMap((t) => t.entries)
      .filter((e) => e.type === 'tokenRegister' && e.validationCode === 0)
      .map((e) => e.parameters as unknown as Mrc010Token);
    expect(registered).toHaveLength(world.counts.tokens);
    for (const initial of registered) {
      const token = world.tokens[initial.token]!;
      const reserved = initial.reserve!.reduce((sum, r) => sum + BigInt(r.value), 0n);
      const increased = BigInt(token.totalsupply) - BigInt(initial.totalsupply);
      const burned = BigInt(token.burnningamount);
      const inWallets = held.get(initial.token) ?? 0n;
      expect(inWallets).toBe(reserved + increased - burned);
      // Unreserved supply is never minted, so wallets hold at most totalsupply − burnningamount.
      expect(inWallets).toBe(BigInt(token.totalsupply) - burned - BigInt(initial.remainamount));
      expect(increased).toBeGreaterThanOrEqual(0n);
    }
    const mtc = world.tokens['0']!;
    expect(held.get(0)).toBe(BigInt(mtc.totalsupply) - BigInt(mtc.burnningamount));
  });

  it('finds blocks by height, decimal string or hash, and nothing for unknown ones', () => {
    const block = devnet.block(7)!;
    expect(devnet.block('7')).toEqual(block);
    expect(devnet.block(block.id)).toEqual(block);
    expect(devnet.block(0)).toBeUndefined();
    expect(devnet.block(devnet.height() + 1)).toBeUndefined();
    expect(devnet.block(block.id.toUpperCase())).toBeUndefined();
    expect(devnet.block('f'.repeat(64))).toBeUndefined();
    expect(devnet.transaction('0'.repeat(64))).toBeUndefined();
  });

  it('hands out copies, so a caller cannot change the chain', () => {
    const { height, id } = txs[10]!;
    const block = devnet.block(height)!;
    const listed = block.transaction.length;
    block.transaction.length = 0;
    const tx = devnet.transaction(id)!;
    (tx[0]!.values as Record<string, unknown>).id = 'changed';
    expect(devnet.block(height)!.transaction).toHaveLength(listed);
    expect(devnet.transaction(id)).toEqual(txs[10]!.entries);
  });
});

describe('cutBlock', () => {
  it("extends the chain with the peers' clock at max(now, the last block's), blocks at their clients' times", () => {
    const devnet = createDevnet({ ...options, historyBlocks: 50, emptyBlockRate: 0 });
    const peerTimes = (block: RawBlock) =>
      new Set(block.transaction.flatMap(({ id }) => devnet.transaction(id)!.map((e) => e.values?.jobdate)));
    const t = GENESIS + 10_000_000;
    const first = devnet.cutBlock(t);
    expect(first.sn).toBe('51');
    expect(peerTimes(first)).toEqual(new Set([t]));
    const early = devnet.cutBlock(t - 1_000);
    expect(peerTimes(early)).toEqual(new Set([t]));
    const late = devnet.cutBlock(t + 100);
    expect(peerTimes(late)).toEqual(new Set([t + 100]));
    // A client's clock is off by seconds, at most 15 minutes (clientSkew).
    expect(Math.abs(late.timestamp - (t + 100))).toBeLessThanOrEqual(900);
    expect(devnet.height()).toBe(53);
    expect(devnet.block(53)).toEqual(late);
    for (const { id } of late.transaction) expect(RawTransaction.parse(devnet.transaction(id))).toBeDefined();
  });

  it('continues deterministically for the same sequence of calls', () => {
    const a = createDevnet({ ...options, historyBlocks: 30 });
    const b = createDevnet({ ...options, historyBlocks: 30 });
    for (let i = 1; i <= 20; i++) expect(a.cutBlock(GENESIS + 1e6 + i)).toEqual(b.cutBlock(GENESIS + 1e6 + i));
  });

  it('starts the chain itself when there is no history', () => {
    const devnet = createDevnet({ ...options, historyBlocks: 0 });
    expect(devnet.height()).toBe(0);
    expect(devnet.cutBlock(GENESIS + 5)).toMatchObject({ sn: '1', timestamp: GENESIS + 5 });
    expect(devnet.worldState().counts.tokens).toBe(1);
  });
});

describe('createDevnet options', () => {
  it('rejects options the devnet cannot honour', () => {
    expect(() => createDevnet({ ...options, wallets: 2 })).toThrow();
    expect(() => createDevnet({ ...options, invalidTxRate: 2 })).toThrow();
    expect(() => createDevnet({ ...options, historyBlocks: -1 })).toThrow();
  });

  it('generates a 10,000-block history', () => {
    const devnet = createDevnet({ seed: 1, genesisTime: GENESIS, historyBlocks: 10_000, blockIntervalSec: 5 });
    const { counts } = devnet.worldState();
    expect(counts.blocks).toBe(10_000);
    expect(counts.transactions).toBeGreaterThan(25_000);
    // The population grows towards its default cap of 5,000 throughout.
    expect(counts.wallets).toBeGreaterThan(3_000);
    expect(counts.wallets).toBeLessThanOrEqual(5_000);
  });
});
