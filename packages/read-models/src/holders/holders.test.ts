import { chainPos, type BalanceEntry } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { describe, expect, it } from 'vitest';
import { holdingsOf, projectHolders, type HolderDoc, type WalletWrite } from './holders.ts';

const A = 'MTholderA';
const B = 'MTholderB';
/** Unix seconds. */
const T_SPENT = 1_700_000_500;
const T_AHEAD = 1_800_000_000;

/** A balance entry as the chaincode writes it: escrow on the token's unlockdate-0 entry. */
const entry = (token: number, balance: string, over: Partial<BalanceEntry> = {}): BalanceEntry => ({
  token,
  balance,
  unlockdate: 0,
  saleamount: '0',
  auctionamount: '0',
  ...over,
});
/** The zero token-0 entry the chaincode keeps in every wallet. */
const MTC_ZERO = entry(0, '0');
const ZERO_RANK = '0'.repeat(40);

describe('holdingsOf', () => {
  it('keeps a holding at balance 0 when its whole amount is in sale or auction escrow', () => {
    const pos = chainPos(7, 1, 0);
    const held = holdingsOf(
      A,
      [MTC_ZERO, entry(5, '0', { saleamount: '300' }), entry(6, '0', { auctionamount: '40' })],
      pos,
    );
    expect([...held.keys()]).toEqual([5, 6]);
    expect(held.get(5)).toEqual<HolderDoc>({
      _id: `5:${A}`,
      token: 5,
      address: A,
      balance: '0',
      saleamount: '300',
      auctionamount: '0',
      rank: ZERO_RANK,
      locks: [],
      lockUntil: 0,
      pos,
    });
    expect(held.get(6)).toMatchObject<Partial<HolderDoc>>({ balance: '0', saleamount: '0', auctionamount: '40' });
  });

  it('lists as locks only the dated entries with a balance, not one spent to 0 that the chaincode keeps', () => {
    // MTC received locked until T_SPENT, then (once spendable) all put on sale: the dated token-0
    // entry stays in the wallet at 0 (token-0 entries are never removed), the escrow sits on the
    // unlockdate-0 entry. Token 5 has a live lock beside a spendable entry.
    const pos = chainPos(9);
    const held = holdingsOf(
      A,
      [
        entry(0, '0', { saleamount: '100' }),
        entry(0, '0', { unlockdate: T_SPENT, saleamount: '', auctionamount: '' }),
        entry(5, '250', { unlockdate: T_AHEAD, saleamount: '', auctionamount: '' }),
        entry(5, '10'),
      ],
      pos,
    );
    expect(held.get(0)).toMatchObject<Partial<HolderDoc>>({
      balance: '0',
      saleamount: '100',
      locks: [],
      lockUntil: 0,
    });
    expect(held.get(5)).toMatchObject<Partial<HolderDoc>>({
      balance: '260',
      locks: [{ amount: '250', unlockdate: T_AHEAD }],
      lockUntil: T_AHEAD,
    });
  });
});

describe('projectHolders', () => {
  it('counts a holder whose whole amount went into sale escrow, adding only balances to the total', () => {
    const [P1, P2b, P2a, P3] = [chainPos(1), chainPos(2, 0, 0), chainPos(2, 0, 1), chainPos(3)];
    const writes: WalletWrite[] = [
      // A receives 1000 of token 5; A sends 300 to B (receiver written first); B puts all 300 on sale.
      { pos: P1, address: A, balances: [MTC_ZERO, entry(5, '1000')] },
      { pos: P2b, address: B, balances: [MTC_ZERO, entry(5, '300')] },
      { pos: P2a, address: A, balances: [MTC_ZERO, entry(5, '700')] },
      { pos: P3, address: B, balances: [MTC_ZERO, entry(5, '0', { saleamount: '300' })] },
    ];
    const { stats, rows } = projectHolders(writes, { rows: [], stats: [] });
    expect(stats).toEqual<Write[]>([
      {
        op: 'putIfNewer',
        collection: 'holder_stats',
        doc: { _id: '5', token: 5, holders: 2, totalBalance: '700', pos: P3 },
      },
    ]);
    const puts = rows.flatMap((w) => (w.op === 'put' ? [w.doc as unknown as HolderDoc] : []));
    expect(rows).toHaveLength(2);
    expect(puts.find((r) => r.address === B)).toMatchObject<Partial<HolderDoc>>({
      _id: `5:${B}`,
      balance: '0',
      saleamount: '300',
      auctionamount: '0',
      rank: ZERO_RANK,
      pos: P3,
    });
  });
});
