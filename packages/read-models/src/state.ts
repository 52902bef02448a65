import type { BlockEvent, StateEvent, StateWrite, WalletVersion } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { mrc402Write, nftCollectionWrite, nftItemWrite } from './nfts/records.ts';
import { tokenWrites } from './tokens/tokens.ts';
import { walletWrite } from './wallets/wallets.ts';

/**
 * The state topic's projection: records as written, put if newer by chain position, so state events
 * may arrive in any order across entities (partitions) and repeat. Pure.
 */
export function projectState(events: readonly StateEvent[]): Write[] {
  return projectStateWrites(events.map((e) => e.write));
}

/**
 * The same projection fed from block events, which carry every state write too (`txs[].writes`):
 * the state as of a past height, which the compacted state topic no longer holds (snapshots). A
 * block event's wallet write may be a change to the wallet's previous one, so wallets come
 * resolved by the caller: each address's newest record of the batch (see `resolveWallets`).
 */
export function projectBlockState(events: readonly BlockEvent[], wallets: ReadonlyMap<string, WalletVersion>): Write[] {
  const writes: StateWrite[] = [];
  for (const e of events)
    for (const tx of e.txs)
      for (const w of tx.writes) if (w.kind !== 'wallet' && w.kind !== 'walletChange') writes.push(w);
  const records = projectStateWrites(writes);
  for (const [address, v] of wallets)
    records.push(
      walletWrite(v.pos, {
        address,
        regdate: v.regdate,
        addinfo: v.addinfo,
        balances: [...v.balances],
        mrc402: v.mrc402,
      }),
    );
  return records;
}

function projectStateWrites(writes: readonly StateWrite[]): Write[] {
  return newestOnly(recordWrites(writes));
}

/**
 * Of the puts-if-newer of one document, only the newest: the store would keep no other, and a
 * whale's wallet, written by most transactions of a batch and listing every asset it ever held,
 * would otherwise be serialised and written once per transaction.
 */
function newestOnly(writes: readonly Write[]): Write[] {
  const keyOf = (w: Write & { op: 'putIfNewer' }): string => `${w.collection}\u0000${String(w.doc._id)}`;
  const newest = new Map<string, Write & { op: 'putIfNewer' }>();
  for (const w of writes) {
    if (w.op !== 'putIfNewer') continue;
    const kept = newest.get(keyOf(w));
    if (!kept || kept.doc.pos < w.doc.pos) newest.set(keyOf(w), w);
  }
  return writes.filter((w) => w.op !== 'putIfNewer' || newest.get(keyOf(w)) === w);
}

function recordWrites(writes: readonly StateWrite[]): Write[] {
  const out: Write[] = [];
  for (const w of writes) {
    switch (w.kind) {
      case 'wallet':
        out.push(walletWrite(w.pos, w.wallet));
        break;
      case 'token':
        out.push(...tokenWrites(w.pos, w.token, w.jobType));
        break;
      case 'nftCollection':
        out.push(nftCollectionWrite(w.pos, w.jobType, w.collection));
        break;
      case 'nftItem':
        out.push(nftItemWrite(w.pos, w.jobType, w.item));
        break;
      case 'mrc402':
        out.push(mrc402Write(w.pos, w.jobType, w.mrc402));
        break;
      case 'other':
        // DEX orders and legacy records: no endpoint shows them as state.
        break;
    }
  }
  return out;
}
