import { chainPos, isKnownActivity, type BlockEvent, type KnownActivity } from '@mtc/domain';
import { defineSeries, type Appended, type SeriesRow } from './series.ts';

/** A token's lifecycle: its creation, reserves, mints and burns, in chain order. */
export type TokenHistoryDoc = SeriesRow & {
  token: number;
  txId: string;
  height: number;
  timestamp: number;
  /** `create`, `reserve`, `mint` or `burn`. */
  type: 'create' | 'reserve' | 'mint' | 'burn';
  jobType: string;
  from: string;
  /** "" when there is no recipient. */
  to: string;
  amount: string;
  memo: string;
};

export const tokenHistory = defineSeries<TokenHistoryDoc>('token_history');

/** The lifecycle row of an activity, or null when it is not a lifecycle event. */
function lifecycleRow(
  a: KnownActivity,
): Pick<TokenHistoryDoc, 'token' | 'type' | 'from' | 'to' | 'amount' | 'memo'> | null {
  if (a.kind === 'tokenCreate')
    return { token: a.tokenId, type: 'create', from: a.owner, to: '', amount: a.totalsupply, memo: '' };
  if (a.kind === 'tokenReserve')
    return { token: a.tokenId, type: 'reserve', from: a.from, to: a.to, amount: a.amount, memo: '' };
  if (a.kind === 'tokenMint')
    return { token: a.tokenId, type: 'mint', from: a.owner, to: a.owner, amount: a.amount, memo: a.memo };
  if (a.kind === 'tokenBurn')
    return { token: a.tokenId, type: 'burn', from: a.owner, to: '', amount: a.amount, memo: a.memo };
  return null;
}

export function tokenHistoryItems(events: readonly BlockEvent[]): Appended<TokenHistoryDoc>[] {
  const out: Appended<TokenHistoryDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a)) return;
        const row = lifecycleRow(a);
        if (!row) return;
        out.push({
          key: String(row.token),
          pos: chainPos(e.height, tx.index, i),
          row: { ...row, txId: tx.id, height: e.height, timestamp: tx.timestamp, jobType: a.jobType },
        });
      });
    }
  }
  return out;
}
