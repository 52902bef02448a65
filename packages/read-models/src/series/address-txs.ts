import {
  chainPos,
  describeEntry,
  isAddress,
  MRC400,
  parseNftId,
  type BlockEvent,
  type EntryView,
  type RawEntry,
} from '@mtc/domain';
import { filterSuffixes, type Direction } from './filters.ts';
import { defineSeries, type Appended, type FiledKeys, type SeriesRow } from './series.ts';

/**
 * An address's activity, newest first: one row per write of its wallet by a valid transaction (what
 * the node files under ADDRESS:LOG), and one per valid transaction that moved an MRC-401 item to or
 * from it without writing its wallet (a transfer of an item with no reserve writes only the item:
 * ownership lives in the item record). from/to/amount/token come from the entry's arguments, read by
 * the decoder's table (`describeEntry`).
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
  /** The activity kind of the transaction's main action (`mtc.activity.v1`), `other` when it has none. */
  kind: string;
};

export const addressTxs = defineSeries<AddressTxDoc>('address_txs');

/** Item writes that leave the item with its owner without a move: creations, offers closed unsold. */
const TO_OWNER: ReadonlySet<string> = new Set([
  MRC400.itemCreate,
  MRC400.itemCreatetrade,
  MRC400.itemUnsell,
  MRC400.itemUnauction,
  MRC400.itemAuctionfailure,
]);

/**
 * The filtered lists a row is filed under (filters.ts): by the token it names, by whether the address
 * sends (`out`: it is the row's from) or receives (`in`: its to), and by the transaction's kind.
 */
export const addressTxFiledKeys: FiledKeys<AddressTxDoc> = (key, row) => {
  const direction: Direction[] = [];
  if (row.from === key) direction.push('out');
  if (row.to === key) direction.push('in');
  return filterSuffixes({ token: row.tokenId === null ? [] : [row.tokenId], direction, kind: [row.kind] });
};

/** The rows of every address, under its own key. */
export function addressTxItems(events: readonly BlockEvent[]): Appended<AddressTxDoc>[] {
  const out: Appended<AddressTxDoc>[] = [];
  for (const e of events) {
    for (const tx of e.txs) {
      if (!tx.valid) continue;
      const kind = tx.activity[0]?.kind ?? 'other';
      const walletsWritten = new Set(
        tx.entries.flatMap((x) => (x.values && isAddress(x.datakey ?? '') ? [x.datakey!] : [])),
      );
      const itemParties = new Set<string>();
      tx.entries.forEach((entry, i) => {
        const key = entry.datakey ?? '';
        if (!entry.values) return;
        const wallet = isAddress(key);
        if (!wallet && parseNftId(key)?.protocol !== 'MRC401') return;
        // One description and one row per entry, shared by every address it is filed under.
        const view = describeEntry(entry);
        const shared = rowOf(e.height, tx, entry, view, kind);
        const row = (address: string) => out.push({ key: address, pos: chainPos(e.height, tx.index, i), row: shared });
        if (wallet) return void row(key);
        // The item's parties as its arguments name them (block topic entries carry no record), and
        // its owner as written when it is created or an offer of it closes unsold: a partner of the
        // collection may do those for the MRC-400 owner, whose wallet the call does not write.
        const owner = TO_OWNER.has(entry.type)
          ? tx.writes.find((w) => w.kind === 'nftItem' && w.key === key)
          : undefined;
        for (const party of [view.from, view.to, owner?.kind === 'nftItem' ? owner.item.owner : '']) {
          if (!isAddress(party)) continue;
          if (walletsWritten.has(party) || itemParties.has(party)) continue;
          itemParties.add(party);
          row(party);
        }
      });
    }
  }
  return out;
}

function rowOf(
  height: number,
  tx: BlockEvent['txs'][number],
  entry: RawEntry,
  view: EntryView,
  kind: string,
): Appended<AddressTxDoc>['row'] {
  const jobdate = entry.values?.['jobdate'];
  return {
    txId: tx.id,
    height,
    timestamp: tx.timestamp,
    jobType: entry.type,
    jobdate: typeof jobdate === 'number' && Number.isSafeInteger(jobdate) ? jobdate : tx.timestamp,
    summary: view.summary,
    from: view.from,
    to: view.to,
    amount: view.amount,
    tokenId: view.tokenId,
    nftId: view.nftId || null,
    kind,
  };
}
