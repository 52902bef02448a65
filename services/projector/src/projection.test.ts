import { blockPos, chainPos, SCHEMA_VERSION, type BlockEvent, type StateEvent, type TxEvent } from '@mtc/domain';
import { createMemoryReadStore } from '@mtc/adapters';
import { COLLECTION_SPECS, COLLECTIONS, type TokenDoc, type WalletDoc } from '@mtc/read-models';
import { describe, expect, it } from 'vitest';
import { projectBlocks, projectState, statsDay } from './projection.ts';

const A = 'MTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA00000000';
const DAY1 = Date.UTC(2026, 0, 1, 23, 0) / 1000;
const DAY2 = Date.UTC(2026, 0, 2, 1, 0) / 1000;

function wallet(pos: string, balance: string): TxEvent['writes'][number] {
  return {
    kind: 'wallet',
    key: A,
    pos,
    jobType: 'receive',
    wallet: {
      address: A,
      regdate: 1,
      addinfo: '',
      balances: [{ token: 0, balance, unlockdate: 0, saleamount: '0', auctionamount: '0' }],
      mrc402: null,
    },
  };
}

function tx(height: number, index: number, seq: number, writes: TxEvent['writes']): TxEvent {
  return {
    id: `${height}-${index}`.padEnd(64, '0'),
    index,
    seq,
    timestamp: DAY1,
    valid: true,
    summary: { type: 'receive', from: '', to: A, amount: '1', token: '0' },
    entries: [],
    writes,
    activity: [],
  };
}

function block(height: number, timestamp: number, firstTxSeq: number, txs: TxEvent[]): BlockEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    eventId: `block:${height}`,
    height,
    hash: String(height).padStart(64, 'f'),
    timestamp,
    firstTxSeq,
    txs,
  };
}

const events: BlockEvent[] = [
  block(1, DAY1, 0, [tx(1, 0, 0, [wallet(chainPos(1, 0, 0), '10')]), tx(1, 1, 1, [wallet(chainPos(1, 1, 0), '20')])]),
  block(2, DAY1 + 60, 2, []),
  block(3, DAY2, 2, [
    tx(3, 0, 2, [
      wallet(chainPos(3, 0, 0), '30'),
      {
        kind: 'token',
        key: 'TOKEN_DATA_0',
        pos: chainPos(3, 0, 1),
        jobType: 'tokenIncrease',
        token: {
          token: 0,
          id: '0',
          owner: A,
          name: 'Metacoin',
          symbol: 'MTC',
          type: '010',
          decimal: 8,
          createdate: 1,
          totalsupply: '5',
          reservedamount: '5',
          remainamount: '0',
          burnningamount: '0',
          softcap: '0',
          hardcap: '0',
          url: '',
          information: '',
          image: '',
          status: 'normal',
        },
      },
    ]),
  ]),
];

/** What the follower publishes on the state topic for these blocks. */
function stateEvents(blocks: BlockEvent[]): StateEvent[] {
  return blocks.flatMap((b) =>
    b.txs.flatMap((t) =>
      t.writes.map((write) => ({
        schemaVersion: SCHEMA_VERSION,
        eventId: `state:${write.pos}`,
        height: b.height,
        txId: t.id,
        write,
      })),
    ),
  );
}

async function project(batches: BlockEvent[][]) {
  const store = createMemoryReadStore();
  await store.ensureCollections(COLLECTION_SPECS);
  for (const batch of batches) {
    const { data, head } = projectBlocks(batch, { statsUtcOffsetMinutes: 0 });
    await store.write(projectState(stateEvents(batch)));
    await store.write(data);
    await store.write(head);
  }
  return store;
}

async function dump(store: Awaited<ReturnType<typeof project>>) {
  const out: Record<string, unknown> = {};
  for (const { name } of COLLECTION_SPECS) out[name] = await store.collection(name).find({}, { sort: [['_id', 1]] });
  return out;
}

describe('projectBlocks', () => {
  it('writes blocks, transactions, the latest wallet and token state, daily counts and the head', async () => {
    const store = await project([events]);
    expect(await store.collection(COLLECTIONS.blocks).count()).toBe(3);
    expect(await store.collection(COLLECTIONS.txs).count()).toBe(3);
    const w = await store.collection<WalletDoc>(COLLECTIONS.wallets).get(A);
    expect(w?.balances[0]?.balance).toBe('30');
    const t = await store.collection<TokenDoc>(COLLECTIONS.tokens).get('0');
    expect(t).toMatchObject({ symbolKey: 'mtc', nameKey: 'metacoin', totalsupply: '5' });
    expect(await store.collection(COLLECTIONS.dailyTx).find({}, { sort: [['_id', 1]] })).toEqual([
      { _id: '2026-01-01', count: 2, pos: blockPos(1) },
      { _id: '2026-01-02', count: 1, pos: blockPos(3) },
    ]);
    expect(await store.collection(COLLECTIONS.head).get('indexed')).toMatchObject({ height: 3, txCount: 3 });
  });

  it('gives the same read models when the log is replayed, whole or in overlapping batches', async () => {
    const once = await dump(await project([events]));
    expect(await dump(await project([events, events]))).toEqual(once);
    expect(await dump(await project([events.slice(0, 2), events.slice(1), events]))).toEqual(once);
  });

  it('never lets an older wallet write overwrite a newer one', async () => {
    const store = await project([events, events.slice(0, 1)]);
    expect((await store.collection<WalletDoc>(COLLECTIONS.wallets).get(A))?.balances[0]?.balance).toBe('30');
    expect(await store.collection(COLLECTIONS.head).get('indexed')).toMatchObject({ height: 3 });
  });

  it('reaches the same state whatever order the state events of different batches arrive in', async () => {
    const store = createMemoryReadStore();
    await store.write(projectState(stateEvents(events).reverse()));
    expect((await store.collection<WalletDoc>(COLLECTIONS.wallets).get(A))?.balances[0]?.balance).toBe('30');
    expect((await store.collection<TokenDoc>(COLLECTIONS.tokens).get('0'))?.totalsupply).toBe('5');
  });

  it('counts transactions per day in the configured time zone', () => {
    expect(statsDay(DAY2, 0)).toBe('2026-01-02');
    expect(statsDay(DAY1, 540)).toBe('2026-01-02');
    expect(statsDay(DAY2, -120)).toBe('2026-01-01');
  });
});
