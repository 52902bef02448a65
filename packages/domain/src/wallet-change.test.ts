import { describe, expect, it } from 'vitest';
import { BlockEvent, WalletChangeWrite, type BalanceEntry, type BlockEventV2, type WalletState } from './events.ts';
import { applySplices, applyWalletChange, diffList, PublishedWallets, walletChange } from './wallet-change.ts';

/** A small seeded generator (mulberry32): the same lists on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const entry = (token: number, balance: string, unlockdate = 0, saleamount = '0'): BalanceEntry => ({
  token,
  balance,
  unlockdate,
  saleamount,
  auctionamount: '0',
});

/** A wallet's next balance list, as the chaincode's writes change one: in place, appended, dropped. */
function mutate(list: readonly BalanceEntry[], rnd: () => number): BalanceEntry[] {
  const out = [...list];
  const edits = 1 + Math.floor(rnd() * 4);
  for (let e = 0; e < edits; e++) {
    const r = rnd();
    const i = Math.floor(rnd() * out.length);
    if (r < 0.4 && out.length > 0) out[i] = { ...out[i]!, balance: String(Math.floor(rnd() * 1000)) };
    else if (r < 0.6) out.push(entry(Math.floor(rnd() * 20), String(Math.floor(rnd() * 1000)), Math.floor(rnd() * 3)));
    else if (r < 0.75 && out.length > 0) out.splice(i, 1);
    else if (r < 0.85) out.splice(i, 0, entry(Math.floor(rnd() * 20), '7', 5));
    else if (out.length > 1) out.reverse(); // anything at all: the diff must still be exact
  }
  return out;
}

const tokensOf = (list: readonly BalanceEntry[]) => {
  const out = new Map<number, string>();
  for (const e of list) out.set(e.token, `${out.get(e.token) ?? ''}${JSON.stringify(e)};`);
  return out;
};

describe('diffList and applySplices', () => {
  const same = (a: BalanceEntry, b: BalanceEntry) => JSON.stringify(a) === JSON.stringify(b);
  const slot = (a: BalanceEntry, b: BalanceEntry) => a.token === b.token && a.unlockdate === b.unlockdate;

  it('turns any list into any other, exactly and in order', () => {
    const rnd = random(7);
    let list: BalanceEntry[] = [];
    for (let round = 0; round < 1000; round++) {
      const next = mutate(list, rnd);
      const { splices } = diffList(list, next, same, slot);
      expect(applySplices(list, splices, 'test')).toEqual(next);
      list = next;
    }
    expect(list.length).toBeGreaterThan(20);
  });

  it('keeps a change in place small in a long list: one entry, not the list', () => {
    const list = Array.from({ length: 900 }, (_, i) => entry(i % 30, String(i), i));
    const next = [...list];
    next[3] = entry(3, '1', 3);
    next.push(entry(31, '5'));
    next.splice(500, 2);
    const { splices, removed } = diffList(list, next, same, slot);
    expect(splices.flatMap((s) => s.insert)).toEqual([entry(3, '1', 3), entry(31, '5')]);
    expect(removed).toEqual([list[3], list[500], list[501]]);
  });

  it('refuses a splice that does not fit the list', () => {
    expect(() => applySplices([1, 2], [{ at: 1, remove: 2, insert: [] }], 'wallet X')).toThrow(
      'wallet X: a splice at 1 removing 2 does not fit a list of 2',
    );
  });
});

describe('walletChange and applyWalletChange', () => {
  it('names every token whose entries changed, carries all of their entries, and rebuilds the record', () => {
    const rnd = random(11);
    let base = { pos: '1', regdate: 5, addinfo: '', balances: [entry(0, '0')], mrc402: null as WalletState['mrc402'] };
    for (let round = 0; round < 1000; round++) {
      const nfts = Object.fromEntries(
        ['MRC402_a', 'MRC402_b', 'MRC402_c']
          .filter(() => rnd() < 0.5)
          .map((id) => [id, { balance: String(Math.floor(rnd() * 3)), saleamount: '0', auctionamount: '0' }]),
      );
      const next = {
        pos: String(round + 2),
        regdate: 5,
        addinfo: rnd() < 0.1 ? 'memo' : '',
        balances: mutate(base.balances, rnd),
        mrc402: rnd() < 0.1 ? null : nfts,
      };
      const change = walletChange('A', next.pos, 'transfer', base, next);
      WalletChangeWrite.parse(change);
      // Exactly the tokens whose entries differ (as a holder row sees them) are named, or more.
      const [was, is] = [tokensOf(base.balances), tokensOf(next.balances)];
      for (const t of new Set([...was.keys(), ...is.keys()]))
        if (was.get(t) !== is.get(t)) expect(change.tokens, `round ${round}, token ${t}`).toContain(t);
      expect(change.balances).toEqual(next.balances.filter((e) => change.tokens.includes(e.token)));
      for (const id of ['MRC402_a', 'MRC402_b', 'MRC402_c']) {
        const [o, n] = [base.mrc402?.[id], next.mrc402?.[id]];
        if (JSON.stringify(o) !== JSON.stringify(n)) {
          expect(change.nfts).toContain(id);
          expect(change.mrc402[id]).toEqual(n);
        }
      }
      expect(applyWalletChange(base, change)).toEqual(next);
      base = next;
    }
  });

  it('refuses a change to another write than the one at hand', () => {
    const base = { pos: '1', regdate: 0, addinfo: '', balances: [], mrc402: null };
    const change = walletChange('A', '3', 'transfer', { ...base, pos: '2' }, { ...base, pos: '3' });
    expect(() => applyWalletChange(base, change)).toThrow(
      'wallet A: the change at 3 is relative to the write at 2, but the record at hand is the one written at 1',
    );
  });
});

describe('PublishedWallets', () => {
  const A = 'MTaaaa';
  const block = (height: number, ...balances: string[]): BlockEventV2 => ({
    schemaVersion: 2,
    eventId: `block:${height}`,
    height,
    hash: `h${height}`,
    timestamp: 0,
    firstTxSeq: 0,
    txs: balances.map((b, index) => ({
      id: `t${height}.${index}`,
      index,
      seq: index,
      timestamp: 0,
      valid: true,
      summary: { type: 'transfer', from: '', to: '', amount: '0', token: '0' },
      entries: [],
      writes: [
        {
          kind: 'wallet',
          key: A,
          pos: `${height}:${index}`,
          jobType: 'transfer',
          wallet: { address: A, regdate: 0, addinfo: '', balances: [entry(0, b), entry(9, '1')], mrc402: null },
        },
      ],
      activity: [],
    })),
  });
  const kinds = (e: BlockEvent) => e.txs.map((t) => t.writes[0]!.kind);

  it('writes a wallet whole first, then as changes to the write before, within and across batches', () => {
    const p = new PublishedWallets();
    const first = p.toBlockEventV3(block(1, '10', '20'));
    BlockEvent.parse(first);
    expect(kinds(first)).toEqual(['wallet', 'walletChange']);
    const second = p.toBlockEventV3(block(2, '30'));
    expect(second.txs[0]!.writes[0]).toMatchObject({ kind: 'walletChange', base: '1:1', tokens: [0] });
  });

  it('forgets the least recently written wallets past its capacity: their next write goes whole', () => {
    const p = new PublishedWallets(1);
    const other = (height: number): BlockEventV2 => {
      const b = block(height, '1');
      const w = b.txs[0]!.writes[0]!;
      if (w.kind === 'wallet')
        b.txs[0]!.writes[0] = { ...w, key: 'MTbbbb', wallet: { ...w.wallet, address: 'MTbbbb' } };
      return b;
    };
    p.toBlockEventV3(block(1, '10'));
    p.toBlockEventV3(other(2));
    expect(kinds(p.toBlockEventV3(block(3, '30')))).toEqual(['wallet']);
  });
});
