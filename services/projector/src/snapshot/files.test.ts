import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeRows } from './files.ts';

type Row = { address: string; balance: string; token: number; locks: { amount: string; unlockdate: number }[] };
const COLUMNS = ['address', 'balance', 'token', 'locks'] as const;

async function* rowsOf<T>(rows: readonly T[]): AsyncGenerator<T> {
  for (const row of rows) yield row;
}

describe('writeRows', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtc-snapshot-files-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const rows: Row[] = [
    // Keys out of column order: the file puts them in column order.
    { token: 1, locks: [{ amount: '5', unlockdate: 1700000000 }], balance: '12', address: 'MTa' },
    { address: 'MTb', balance: '3', token: 1, locks: [] },
  ];

  it('writes CSV with a header, array cells as compact JSON (quoted, quotes doubled) and LF ends, and hashes its bytes', async () => {
    const path = join(dir, 'a.csv');
    const file = await writeRows(path, 'csv', COLUMNS, rowsOf(rows));
    const bytes = await readFile(path);
    expect(bytes.toString()).toBe(
      'address,balance,token,locks\n' + 'MTa,12,1,"[{""amount"":""5"",""unlockdate"":1700000000}]"\n' + 'MTb,3,1,[]\n',
    );
    expect(file).toEqual({ path, rows: 2, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('writes NDJSON, one object a line with its keys in column order', async () => {
    const path = join(dir, 'a.ndjson');
    const file = await writeRows(path, 'ndjson', COLUMNS, rowsOf(rows));
    const text = await readFile(path, 'utf8');
    expect(text).toBe(
      '{"address":"MTa","balance":"12","token":1,"locks":[{"amount":"5","unlockdate":1700000000}]}\n' +
        '{"address":"MTb","balance":"3","token":1,"locks":[]}\n',
    );
    expect(file.rows).toBe(2);
    expect(file.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('writes the header alone for no rows, and the empty file in NDJSON', async () => {
    expect((await writeRows(join(dir, 'e.csv'), 'csv', COLUMNS, rowsOf<Row>([]))).rows).toBe(0);
    expect(await readFile(join(dir, 'e.csv'), 'utf8')).toBe('address,balance,token,locks\n');
    const empty = await writeRows(join(dir, 'e.ndjson'), 'ndjson', COLUMNS, rowsOf<Row>([]));
    expect(empty.sha256).toBe(createHash('sha256').digest('hex'));
  });

  it('leaves no file behind when the rows fail midway', async () => {
    async function* failing(): AsyncGenerator<Row> {
      yield rows[0]!;
      throw new Error('store went away');
    }
    await expect(writeRows(join(dir, 'f.csv'), 'csv', COLUMNS, failing())).rejects.toThrow('store went away');
    expect(await readdir(dir)).toEqual([]);
  });
});
