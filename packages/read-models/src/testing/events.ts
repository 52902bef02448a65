import {
  chainPos,
  decodeItem,
  BLOCKS_SCHEMA_VERSION,
  isStateWrite,
  SCHEMA_VERSION,
  type BalanceEntry,
  type BlockEvent,
  type KnownActivity,
  type RawEntry,
  type StateEvent,
  type StateWrite,
  type TokenState,
  type TxEvent,
} from '@mtc/domain';
import type { ReadStore } from '@mtc/ports';
import { loadChainPrior, projectChainBatch } from '../chain-batch.ts';
import { COLLECTION_SPECS, openModels } from '../registry.ts';

/**
 * Builders of the events the follower publishes, for specifying projections as "given these
 * events, the read models are …" (and for seeding API tests the same way). Hashes and positions
 * are derived from heights and indexes, so tests stay short.
 */
export const hex64 = (text: string): string => Buffer.from(text).toString('hex').padEnd(64, '0').slice(0, 64);

/** A balance entry: [token, balance, unlockdate = 0, sale = '0', auction = '0']. */
export type EntrySpec = [token: number, balance: string, unlockdate?: number, sale?: string, auction?: string];

export const entry = ([token, balance, unlockdate = 0, sale = '0', auction = '0']: EntrySpec): BalanceEntry => ({
  token,
  balance,
  unlockdate,
  saleamount: sale,
  auctionamount: auction,
});

export interface WalletWriteSpec {
  address: string;
  balances: EntrySpec[];
  jobType?: string;
  /** The entry's parameters (the payment layout for transfers). */
  params?: string[];
  regdate?: number;
  addinfo?: string;
  /** MRC-402 holdings: id → [balance, sale = '0', auction = '0']; unset: the wallet never held one. */
  mrc402?: Record<string, [balance: string, sale?: string, auction?: string]>;
}

/** An MRC-401 item written with `owner` (an address or MELTED), e.g. by a create, transfer or melt. */
export interface ItemWriteSpec {
  item: string;
  owner: string;
  jobType?: string;
}

export interface TxSpec {
  wallets?: WalletWriteSpec[];
  tokens?: TokenState[];
  items?: ItemWriteSpec[];
  activity?: KnownActivity[];
  valid?: boolean;
  /** Defaults to the block's timestamp. */
  timestamp?: number;
}

export function token(id: number, fields: Partial<TokenState> = {}): TokenState {
  return {
    token: id,
    id: String(id),
    owner: '',
    name: `Token ${id}`,
    symbol: `T${id}`,
    type: '010',
    decimal: 8,
    createdate: 1_700_000_000,
    totalsupply: '1000',
    reservedamount: '1000',
    remainamount: '0',
    burnningamount: '0',
    softcap: '0',
    hardcap: '0',
    url: '',
    information: '',
    image: '',
    status: 'normal',
    ...fields,
  };
}

/** A chain of blocks built one after another: heights from 1, seq running on. */
export function chainBuilder(startTs = 1_700_000_000) {
  let height = 0;
  let seq = 0;
  return {
    block(txs: TxSpec[], timestamp = startTs + 60 * (height + 1)): BlockEvent {
      height++;
      const firstTxSeq = seq;
      const built = txs.map((spec, index) => buildTx(height, index, seq++, spec, timestamp));
      return {
        schemaVersion: BLOCKS_SCHEMA_VERSION,
        eventId: `block:${height}`,
        height,
        hash: hex64(`block${height}`),
        timestamp: built[0]?.timestamp ?? timestamp,
        firstTxSeq,
        txs: built,
      };
    },
  };
}

function buildTx(height: number, index: number, seq: number, spec: TxSpec, blockTs: number): TxEvent {
  const id = hex64(`tx${height}x${index}`);
  const timestamp = spec.timestamp ?? blockTs;
  const valid = spec.valid ?? true;
  const entries: RawEntry[] = [];
  const writes: StateWrite[] = [];
  for (const w of spec.wallets ?? []) {
    const i = entries.length;
    const jobType = w.jobType ?? 'receive';
    const balances = w.balances.map(entry);
    const mrc402 = w.mrc402
      ? Object.fromEntries(
          Object.entries(w.mrc402).map(([id, [balance, sale = '0', auction = '0']]) => [
            id,
            { balance, saleamount: sale, auctionamount: auction },
          ]),
        )
      : null;
    entries.push({
      timestamp,
      id,
      parameters: w.params ?? [],
      token: '',
      type: jobType,
      values: {
        id: w.address,
        regdate: w.regdate ?? 1,
        addinfo: w.addinfo ?? '',
        balance: balances,
        mrc402,
        jobdate: timestamp,
      },
      validationCode: valid ? 0 : 11,
      address: w.address,
      datakey: w.address,
      db_id: hex64(`block${height}`),
      db_sn: String(height),
    });
    if (valid)
      writes.push({
        kind: 'wallet',
        key: w.address,
        pos: chainPos(height, index, i),
        jobType,
        wallet: { address: w.address, regdate: w.regdate ?? 1, addinfo: w.addinfo ?? '', balances, mrc402 },
      });
  }
  for (const t of spec.tokens ?? []) {
    const i = entries.length;
    const key = `TOKEN_DATA_${t.token}`;
    entries.push({
      timestamp,
      id,
      parameters: [],
      token: '',
      type: 'tokenUpdate',
      values: { ...t, balance: t.token, jobdate: timestamp },
      validationCode: valid ? 0 : 11,
      address: '',
      datakey: key,
      db_id: hex64(`block${height}`),
      db_sn: String(height),
    });
    if (valid) writes.push({ kind: 'token', key, pos: chainPos(height, index, i), jobType: 'tokenUpdate', token: t });
  }
  for (const it of spec.items ?? []) {
    const i = entries.length;
    const jobType = it.jobType ?? 'mrc401_transfer';
    const values = { id: it.item, mrc400: it.item.slice(0, 40), owner: it.owner, jobdate: timestamp };
    entries.push({
      timestamp,
      id,
      parameters: [it.item],
      token: '',
      type: jobType,
      values,
      validationCode: valid ? 0 : 11,
      address: '',
      datakey: it.item,
      db_id: hex64(`block${height}`),
      db_sn: String(height),
    });
    if (valid)
      writes.push({
        kind: 'nftItem',
        key: it.item,
        pos: chainPos(height, index, i),
        jobType,
        item: decodeItem(it.item, values),
      });
  }
  return {
    id,
    index,
    seq,
    timestamp,
    valid,
    summary: { type: entries[0]?.type ?? '', from: '', to: '', amount: '0', token: '' },
    entries,
    writes,
    activity: valid ? (spec.activity ?? []) : [],
  };
}

/** The state topic's messages for these blocks, as the follower publishes them. */
export function stateEventsOf(blocks: readonly BlockEvent[]): StateEvent[] {
  return blocks.flatMap((b) =>
    b.txs.flatMap((t) =>
      t.writes.filter(isStateWrite).map((write) => ({
        schemaVersion: SCHEMA_VERSION,
        eventId: `state:${write.pos}`,
        height: b.height,
        txId: t.id,
        write,
      })),
    ),
  );
}

/**
 * Runs the block topic's projection over `batches` into `store`, as the projector does on a store
 * whose calls are not atomic: the phases in order, each phase one store call. `crashAfterWrites`
 * simulates a crash during the last batch after that many of its block-topic writes (a store call
 * that is not atomic across documents, as on MongoDB, may stop anywhere).
 */
export async function projectInto(
  store: ReadStore,
  batches: readonly (readonly BlockEvent[])[],
  options: { statsUtcOffsetMinutes?: number; crashAfterWrites?: number } = {},
): Promise<{ /** Block-topic writes of the last batch. */ writes: number }> {
  await store.ensureCollections(COLLECTION_SPECS);
  const models = openModels(store);
  let writes = 0;
  for (const [b, batch] of batches.entries()) {
    writes = 0;
    const prior = await loadChainPrior(models, batch);
    const { phases } = projectChainBatch(batch, prior, { statsUtcOffsetMinutes: options.statsUtcOffsetMinutes ?? 0 });
    const budget = b === batches.length - 1 ? options.crashAfterWrites : undefined;
    for (const phase of phases) {
      if (budget !== undefined && writes + phase.length > budget) {
        await store.write(phase.slice(0, budget - writes));
        return { writes: budget };
      }
      await store.write(phase);
      writes += phase.length;
    }
  }
  return { writes };
}
