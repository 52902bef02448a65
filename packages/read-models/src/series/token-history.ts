import { chainPos, isKnownActivity, type BlockEvent } from '@mtc/domain';
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

export function tokenHistoryItems(events: readonly BlockEvent[]): Appended<TokenHistoryDoc>[] {
  const out: Appended<TokenHistoryDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      tx.activity.forEach((a, i) => {
        if (!isKnownActivity(a)) return;
        const base = { txId: tx.id, height: e.height, timestamp: tx.timestamp, jobType: a.jobType };
        const pos = chainPos(e.height, tx.index, i);
        switch (a.kind) {
          case 'tokenCreate':
            out.push({
              key: String(a.tokenId),
              pos,
              row: {
                ...base,
                token: a.tokenId,
                type: 'create',
                from: a.owner,
                to: '',
                amount: a.totalsupply,
                memo: '',
              },
            });
            break;
          case 'tokenReserve':
            out.push({
              key: String(a.tokenId),
              pos,
              row: { ...base, token: a.tokenId, type: 'reserve', from: a.from, to: a.to, amount: a.amount, memo: '' },
            });
            break;
          case 'tokenMint':
            out.push({
              key: String(a.tokenId),
              pos,
              row: {
                ...base,
                token: a.tokenId,
                type: 'mint',
                from: a.owner,
                to: a.owner,
                amount: a.amount,
                memo: a.memo,
              },
            });
            break;
          case 'tokenBurn':
            out.push({
              key: String(a.tokenId),
              pos,
              row: { ...base, token: a.tokenId, type: 'burn', from: a.owner, to: '', amount: a.amount, memo: a.memo },
            });
            break;
          default:
            break;
        }
      });
    }
  }
  return out;
}
