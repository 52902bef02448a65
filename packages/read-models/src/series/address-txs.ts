import { chainPos, describeEntry, isAddress, type BlockEvent } from '@mtc/domain';
import { defineSeries, type Appended, type SeriesRow } from './series.ts';

/**
 * An address's activity: one row per write of its wallet by a valid transaction (what the node
 * files under ADDRESS:LOG), newest first. from/to/amount/token come from the entry's arguments,
 * read by the decoder's table (`describeEntry`).
 */
export type AddressTxDoc = SeriesRow & {
  txId: string;
  height: number;
  /** The transaction's timestamp (client clock). */
  timestamp: number;
  jobType: string;
  /** The written record's jobdate (the peer's clock). */
  jobdate: number;
  summary: string;
  from: string;
  to: string;
  amount: string;
  tokenId: number | null;
  /** The NFT the entry concerns (an MRC-400, MRC-401 or MRC-402 id); null for fungible activity. */
  nftId: string | null;
};

export const addressTxs = defineSeries<AddressTxDoc>('address_txs');

export function addressTxItems(events: readonly BlockEvent[]): Appended<AddressTxDoc>[] {
  const out: Appended<AddressTxDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      tx.entries.forEach((entry, i) => {
        const key = entry.datakey ?? '';
        if (!entry.values || !isAddress(key)) return;
        const view = describeEntry(entry);
        const jobdate = entry.values['jobdate'];
        out.push({
          key,
          pos: chainPos(e.height, tx.index, i),
          row: {
            txId: tx.id,
            height: e.height,
            timestamp: tx.timestamp,
            jobType: entry.type,
            jobdate: typeof jobdate === 'number' && Number.isSafeInteger(jobdate) ? jobdate : tx.timestamp,
            summary: view.summary,
            from: view.from,
            to: view.to,
            amount: view.amount,
            tokenId: view.tokenId,
            nftId: view.nftId || null,
          },
        });
      });
    }
  }
  return out;
}
