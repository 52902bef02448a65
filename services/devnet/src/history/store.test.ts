import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawBlock, RawEntry } from '@mtc/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileHistory, HISTORY_FILES } from './file-history.ts';
import { MIN_CHUNKED } from './list-chunks.ts';
import { createMemoryHistory, type HistoryStore, type HistoryTx } from './store.ts';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mtc-history-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Balance {
  balance: string;
  token: number;
  unlockdate: number;
  saleamount: string;
  auctionamount: string;
}

/**
 * A wallet whose balance list changes the ways the chaincode changes one: amounts replaced, entries
 * appended, entries of spent tokens removed, and (legacy era) every entry rebuilt as a new object
 * with the same content; one entry written with its keys in another order.
 */
function* walletSnapshots(steps: number): Generator<Balance[]> {
  let list: Balance[] = Array.from({ length: 3 * MIN_CHUNKED }, (_, i) => ({
    balance: String(1_000 + i),
    token: i % 7,
    unlockdate: i * 60,
    saleamount: '',
    auctionamount: '',
  }));
  for (let step = 0; step < steps; step++) {
    yield list;
    list = [...list];
    switch (step % 5) {
      case 0:
        list[step % list.length] = { ...list[step % list.length]!, balance: String(step) };
        break;
      case 1:
        list.push({ balance: '7', token: 100 + step, unlockdate: 0, saleamount: '', auctionamount: '' });
        break;
      case 2:
        list.splice(step % list.length, 1);
        break;
      case 3:
        list = list.map((e) => ({ ...e }));
        break;
      case 4: {
        const { balance, token, unlockdate, saleamount, auctionamount } = list[1]!;
        list[1] = { token, balance, unlockdate, saleamount, auctionamount };
        break;
      }
    }
  }
}

function entry(txId: string, height: number, datakey: string, values: Record<string, unknown>): RawEntry {
  return {
    timestamp: 1_700_000_000 + height,
    id: txId,
    parameters: [datakey, 'tab\tnew\nline "quoted" ünïcödé 🙂'],
    token: '',
    type: 'transfer',
    values,
    validationCode: 0,
    address: datakey,
    datakey,
    db_id: hex(`block ${height}`),
    db_sn: String(height),
  };
}

interface Appended {
  block: RawBlock;
  txs: HistoryTx[];
}

/** A history with short and long lists, a list of non-objects, an empty block, two wallets per tx. */
function fixture(blocks: number): Appended[] {
  const whale = walletSnapshots(blocks);
  const other = walletSnapshots(blocks);
  const out: Appended[] = [];
  for (let height = 1; height <= blocks; height++) {
    const txs: HistoryTx[] = [];
    const count = height % 4;
    for (let slot = 0; slot < count; slot++) {
      const id = hex(`tx ${height} ${slot}`);
      const entries = [
        entry(id, height, 'MTwhale', { id: 'MTwhale', balance: whale.next().value!, nonce: 'n' }),
        entry(id, height, 'MTshort', { balance: [{ balance: '1', token: 0, unlockdate: 0 }] }),
        entry(id, height, 'MTother', { balance: other.next().value!, pending: null }),
        entry(id, height, 'ODD', { balance: Array.from({ length: MIN_CHUNKED }, (_, i) => i) }),
        entry(id, height, 'TOKEN_DATA_5', { balance: 5, name: 'x' }),
      ];
      txs.push({ id, entries });
    }
    const block: RawBlock = {
      id: hex(`block ${height}`),
      sn: String(height),
      transaction: txs.map((tx) => ({ id: tx.id, timestamp: 1_700_000_000 + height })),
      timestamp: 1_700_000_000 + height,
    };
    out.push({ block, txs });
  }
  return out;
}

const stores: [string, () => HistoryStore][] = [
  ['memory', createMemoryHistory],
  ['file', () => createFileHistory(tempDir())],
];

describe.each(stores)('HistoryStore (%s)', (_name, create) => {
  const appended = fixture(120);
  // Serialized at append time: what every read must give back.
  const expected = appended.map(({ block, txs }) => ({
    block: JSON.stringify(block),
    txs: txs.map((tx) => [tx.id, JSON.stringify(tx.entries)] as const),
  }));
  const store = create();
  for (const { block, txs } of appended) store.append(block, txs);

  it('gives back every block and transaction byte for byte, by height, hash and id', () => {
    expect(store.height()).toBe(appended.length);
    expected.forEach(({ block, txs }, i) => {
      expect(store.blockJson(i + 1)).toBe(block);
      expect(store.heightOf(appended[i]!.block.id)).toBe(i + 1);
      for (const [id, json] of txs) expect(store.transactionJson(id)).toBe(json);
    });
  });

  it('answers in any order, the same every time', () => {
    const all = expected.flatMap(({ txs }) => txs);
    const [first, last] = [all[0]!, all.at(-1)!];
    expect(store.transactionJson(last[0])).toBe(last[1]);
    expect(store.transactionJson(first[0])).toBe(first[1]);
    expect(store.transactionJson(last[0])).toBe(last[1]);
  });

  it('knows nothing of heights, hashes and ids never appended', () => {
    for (const height of [0, -1, 1.5, appended.length + 1, Number.NaN]) expect(store.blockJson(height)).toBeUndefined();
    expect(store.heightOf(hex('no such block'))).toBeUndefined();
    expect(store.heightOf('not-hex')).toBeUndefined();
    expect(store.transactionJson(hex('no such tx'))).toBeUndefined();
    expect(store.transactionJson(appended[1]!.txs[0]!.id.toUpperCase())).toBeUndefined();
  });

  it('refuses reads once closed', () => {
    const closing = create();
    closing.append(appended[1]!.block, appended[1]!.txs);
    closing.close();
    expect(() => closing.transactionJson(appended[1]!.txs[0]!.id)).toThrow(/closed/);
  });
});

describe('createFileHistory', () => {
  it('writes one line per block and transaction, and long balance lists once per change', () => {
    const dir = tempDir();
    const store = createFileHistory(dir);
    const appended = fixture(400);
    let served = 0;
    for (const { block, txs } of appended) {
      store.append(block, txs);
      for (const tx of txs) served += JSON.stringify(tx.entries).length;
    }
    store.close();
    const lines = (file: string) => readFileSync(join(dir, file), 'utf8').split('\n').length - 1;
    expect(lines(HISTORY_FILES.blocks)).toBe(400);
    expect(lines(HISTORY_FILES.transactions)).toBe(appended.reduce((n, { txs }) => n + txs.length, 0));
    const stored = Object.values(HISTORY_FILES).reduce((n, file) => n + statSync(join(dir, file)).size, 0);
    expect(stored).toBeLessThan(served / 3);
  });

  it('replaces the files a previous run left, while a history still open on them keeps reading its own', () => {
    const dir = tempDir();
    const [one, two] = fixture(3).slice(1);
    const first = createFileHistory(dir);
    first.append(one!.block, one!.txs);
    const second = createFileHistory(dir);
    second.append(two!.block, two!.txs);
    expect(first.transactionJson(one!.txs[0]!.id)).toBe(JSON.stringify(one!.txs[0]!.entries));
    expect(second.transactionJson(one!.txs[0]!.id)).toBeUndefined();
    first.close();
    second.close();
    expect(readFileSync(join(dir, HISTORY_FILES.blocks), 'utf8')).toBe(
      `${two!.block.id}\t${JSON.stringify(two!.block)}\n`,
    );
    expect(existsSync(join(dir, HISTORY_FILES.chunks))).toBe(true);
  });

  it('holds under 40 bytes of index per transaction in memory', () => {
    const store = createFileHistory(tempDir());
    const txs = 100_000;
    const perBlock = 10;
    for (let height = 1; height <= txs / perBlock; height++) {
      const blockTxs = Array.from({ length: perBlock }, (_, slot) => {
        const id = hex(`${height}/${slot}`);
        return { id, entries: [entry(id, height, 'MTx', { balance: [] })] };
      });
      const block = { id: hex(`b${height}`), sn: String(height), transaction: [], timestamp: height };
      store.append(block, blockTxs);
    }
    // Transactions: an offset (8) and a tag and number (8) at most 70 % full; blocks the same per block.
    expect(store.indexBytes() / txs).toBeLessThan(40);
    store.close();
  });
});
