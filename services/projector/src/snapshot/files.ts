import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';

/**
 * Writes rows as a snapshot file and hashes what it wrote. The bytes are canonical — the columns in
 * the given order, rows in the caller's documented order, LF line ends, UTF-8; in CSV a header line
 * and array or object cells as compact JSON; in NDJSON one compact JSON object a line with its keys
 * in column order — so the sha256 of the file is the canonical hash of the holdings it lists: two
 * snapshots of the same state give the same hash, on any machine and in either mode.
 * Rows stream through (constant memory); the file appears under its name only once complete.
 */
export type SnapshotFormat = 'csv' | 'ndjson';

export interface WrittenFile {
  path: string;
  rows: number;
  sha256: string;
}

export async function writeRows<R extends Record<string, unknown>>(
  path: string,
  format: SnapshotFormat,
  columns: readonly (keyof R & string)[],
  rows: AsyncIterable<R>,
): Promise<WrittenFile> {
  const hash = createHash('sha256');
  let count = 0;
  const ordered = async function* (): AsyncGenerator<unknown> {
    for await (const row of rows) {
      count++;
      yield format === 'csv'
        ? columns.map((c) => row[c])
        : `${JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c]])))}\n`;
    }
  };
  const encode =
    format === 'csv'
      ? stringify({
          header: true,
          columns: [...columns],
          record_delimiter: 'unix',
          eof: true,
          // Array and object cells (locks) as compact JSON, quoted by the CSV rules since they hold `"`.
          cast: { object: (value) => JSON.stringify(value) },
        })
      : new Transform({ writableObjectMode: true, transform: (line: string, _enc, next) => next(null, line) });
  const tap = new Transform({
    transform(chunk: Buffer, _enc, next) {
      hash.update(chunk);
      next(null, chunk);
    },
  });
  const partial = `${path}.partial`;
  try {
    await pipeline(Readable.from(ordered()), encode, tap, createWriteStream(partial));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { path, rows: count, sha256: hash.digest('hex') };
}
