import { blockPos, slimEntry, type BlockEvent, type RawEntry } from '@mtc/domain';
import type { BlockTxCount, Write } from '@mtc/ports';
import {
  blocks,
  dailyTx,
  head,
  HEAD_ID,
  READ_MODELS_LAYOUT,
  txs,
  type BlockDoc,
  type HeadDoc,
  type TxDoc,
} from './docs.ts';
import { BatchValues } from '../shared-values.ts';

/**
 * The chain's facts: blocks and transactions put by their natural key, daily counts incremented
 * under the block's position, and the head. Pure; replaying a block changes nothing.
 */
export interface StatsOptions {
  /** Offset of the statistics day from UTC, in minutes (0 = UTC days). */
  statsUtcOffsetMinutes: number;
}

/** Large holdings maps of the entries go to `shared` (whose documents the caller writes). */
export function projectFacts(events: readonly BlockEvent[], options: StatsOptions, shared: BatchValues): Write[] {
  const out: Write[] = [];
  for (const e of events) {
    out.push({ op: 'put', collection: blocks.name, doc: blockDoc(e) });
    for (const tx of e.txs) {
      // Already slim on the block topic (v2 on); cut here too so the model's rule holds for any event.
      const { entries, refs } = shareMaps(tx.entries.map(slimEntry), shared);
      const doc: TxDoc = {
        _id: tx.id,
        seq: tx.seq,
        height: e.height,
        index: tx.index,
        timestamp: tx.timestamp,
        valid: tx.valid,
        summary: tx.summary,
        entries,
        ...(refs.length > 0 ? { maps: refs } : {}),
      };
      out.push({ op: 'put', collection: txs.name, doc });
    }
    // Statistics days follow the block's time (its first transaction's client clock): one rule for
    // the daily counts and the today-so-far counters, so the two always agree.
    if (e.txs.length > 0) {
      out.push({
        op: 'incIfNewer',
        collection: dailyTx.name,
        id: statsDay(e.timestamp, options.statsUtcOffsetMinutes),
        pos: blockPos(e.height),
        inc: { count: e.txs.length },
      });
    }
  }
  return out;
}

/** The entries with their large `values.mrc402` maps replaced by references to shared values. */
function shareMaps(
  entries: RawEntry[],
  shared: BatchValues,
): { entries: RawEntry[]; refs: { entry: number; id: string }[] } {
  const refs: { entry: number; id: string }[] = [];
  const out = entries.map((entry, index) => {
    const map = entry.values?.['mrc402'];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return entry;
    const id = shared.share(map);
    if (id === null) return entry;
    refs.push({ entry: index, id });
    const { mrc402: _apart, ...values } = entry.values!;
    return { ...entry, values };
  });
  return { entries: out, refs };
}

export function txCounts(events: readonly BlockEvent[]): BlockTxCount[] {
  return events.map((e) => ({ height: e.height, timestamp: e.timestamp, count: e.txs.length }));
}

export function headWrite(last: BlockEvent): Write {
  const doc: HeadDoc = {
    _id: HEAD_ID,
    pos: blockPos(last.height),
    height: last.height,
    hash: last.hash,
    timestamp: last.timestamp,
    txCount: last.firstTxSeq + last.txs.length,
    layout: READ_MODELS_LAYOUT,
  };
  return { op: 'putIfNewer', collection: head.name, doc };
}

/** The head rewritten to say a batch up to `height` is being written over it (non-atomic stores). */
export function writingWrite(current: HeadDoc | null, height: number): Write {
  const doc: HeadDoc = current
    ? { ...current, writing: height }
    : {
        _id: HEAD_ID,
        pos: '',
        height: 0,
        hash: '',
        timestamp: 0,
        txCount: 0,
        writing: height,
        layout: READ_MODELS_LAYOUT,
      };
  return { op: 'put', collection: head.name, doc };
}

function blockDoc(e: BlockEvent): BlockDoc {
  return {
    _id: String(e.height),
    height: e.height,
    hash: e.hash,
    timestamp: e.timestamp,
    txCount: e.txs.length,
    firstSeq: e.firstTxSeq,
    txs: e.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
  };
}

/** `YYYY-MM-DD` of a unix time in the statistics time zone. */
export function statsDay(unixSeconds: number, utcOffsetMinutes: number): string {
  return new Date((unixSeconds + utcOffsetMinutes * 60) * 1000).toISOString().slice(0, 10);
}
