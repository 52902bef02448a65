import { blockPos, type BlockEvent, type StateEvent, type StateWrite } from '@mtc/domain';
import type { BlockTxCount, Write } from '@mtc/ports';
import {
  COLLECTIONS,
  HEAD_ID,
  type BlockDoc,
  type HeadDoc,
  type TokenDoc,
  type TxDoc,
  type WalletDoc,
} from '@mtc/read-models';

/**
 * The projections: events in, store writes out. Pure. Facts (blocks, transactions) are put by
 * their natural key; daily counts are incremented guarded by the block's position; state (from
 * the state topic) is put-if-newer by chain position. Replaying any event therefore changes
 * nothing, and state events may be applied in any order across entities.
 */
export interface ProjectionOptions {
  /** Offset of the statistics day from UTC, in minutes (0 = UTC days). */
  statsUtcOffsetMinutes: number;
}

export interface ProjectedBatch {
  /** Writes of the blocks' documents. */
  data: Write[];
  /** The head marker, written after `data` is durable so readers never see a half-written block. */
  head: Write[];
  counts: BlockTxCount[];
}

export function projectBlocks(events: readonly BlockEvent[], options: ProjectionOptions): ProjectedBatch {
  const data: Write[] = [];
  const counts: BlockTxCount[] = [];
  for (const e of events) {
    data.push({ op: 'put', collection: COLLECTIONS.blocks, doc: blockDoc(e) });
    for (const tx of e.txs) {
      const doc: TxDoc = {
        _id: tx.id,
        seq: tx.seq,
        height: e.height,
        index: tx.index,
        timestamp: tx.timestamp,
        valid: tx.valid,
        summary: tx.summary,
        entries: tx.entries,
      };
      data.push({ op: 'put', collection: COLLECTIONS.txs, doc });
    }
    if (e.txs.length > 0) {
      data.push({
        op: 'incIfNewer',
        collection: COLLECTIONS.dailyTx,
        id: statsDay(e.timestamp, options.statsUtcOffsetMinutes),
        pos: blockPos(e.height),
        inc: { count: e.txs.length },
      });
    }
    counts.push({ height: e.height, timestamp: e.timestamp, count: e.txs.length });
  }
  const last = events.at(-1);
  const head: Write[] = last ? [{ op: 'putIfNewer', collection: COLLECTIONS.head, doc: headDoc(last) }] : [];
  return { data, head, counts };
}

function blockDoc(e: BlockEvent): BlockDoc {
  return {
    _id: String(e.height),
    height: e.height,
    hash: e.hash,
    timestamp: e.timestamp,
    txCount: e.txs.length,
    txs: e.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
  };
}

function headDoc(e: BlockEvent): HeadDoc {
  return {
    _id: HEAD_ID,
    pos: blockPos(e.height),
    height: e.height,
    hash: e.hash,
    timestamp: e.timestamp,
    txCount: e.firstTxSeq + e.txs.length,
  };
}

export function projectState(events: readonly StateEvent[]): Write[] {
  return events.flatMap((e) => stateWrite(e.write));
}

function stateWrite(w: StateWrite): Write[] {
  switch (w.kind) {
    case 'wallet': {
      const { address, ...rest } = w.wallet;
      const doc: WalletDoc = { _id: address, pos: w.pos, ...rest };
      return [{ op: 'putIfNewer', collection: COLLECTIONS.wallets, doc }];
    }
    case 'token': {
      const doc: TokenDoc = {
        _id: String(w.token.token),
        pos: w.pos,
        ...w.token,
        nameKey: w.token.name.toLowerCase(),
        symbolKey: w.token.symbol.toLowerCase(),
      };
      return [{ op: 'putIfNewer', collection: COLLECTIONS.tokens, doc }];
    }
    case 'other':
      // NFT and DEX records get their read models with their endpoints.
      return [];
  }
}

/** `YYYY-MM-DD` of a unix time in the statistics time zone. */
export function statsDay(unixSeconds: number, utcOffsetMinutes: number): string {
  return new Date((unixSeconds + utcOffsetMinutes * 60) * 1000).toISOString().slice(0, 10);
}
