import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createHexIndex, type HexIndex } from './hex-index.ts';
import { createListChunker, decodeEntries, encodeEntries } from './list-chunks.ts';
import { HEX_ID, type HistoryStore } from './store.ts';

/** The files a file history writes in its directory, opened in this order. */
export const HISTORY_FILES = {
  blocks: 'blocks.log',
  transactions: 'transactions.log',
  chunks: 'balance-chunks.log',
} as const;

/** Chunk texts kept after a read: consecutive snapshots of a wallet share most of their chunks. */
const CHUNK_CACHE_CHARS = 16 << 20;

/**
 * The history on disk, in three append-only files of lines in `dir`:
 * - `blocks.log`: `<data_hash> TAB <block JSON>`;
 * - `transactions.log`: `<tx id> TAB <refs> TAB <entries JSON>`, long balance lists cut out;
 * - `balance-chunks.log`: one JSON array of balance entries a line, what `refs` point to
 *   (list-chunks.ts: a wallet's list is rewritten only where it changed).
 * In memory, per record: its start offset (8 bytes in a Float64Array: files pass 4 GB) and, for
 * blocks and transactions, a HexIndex slot by id (11–23 bytes). A transaction also costs the
 * offsets of the chunks it wrote (8 bytes each, a few per wallet with a long list). The last MiB of
 * each file waits in a write buffer, flushed when full, before a read that needs it, and on close.
 *
 * Opening removes the files a previous run left and starts new ones: a devnet regenerates its whole
 * history from its schedule on every start. Removing (not truncating) them leaves a devnet still
 * reading the old files (another process, a test's first instance) with its own copy.
 */
export interface FileHistory extends HistoryStore {
  /** Bytes of the in-memory indexes: offsets and id tables (not the write buffers or chunk cache). */
  indexBytes(): number;
}

export function createFileHistory(dir: string): FileHistory {
  mkdirSync(dir, { recursive: true });
  const files = Object.values(HISTORY_FILES).map((file) => openLineLog(join(dir, file)));
  const [blocks, txs, chunks] = files as [LineLog, LineLog, LineLog];
  const blockIds = createHexIndex();
  const txIds = createHexIndex();
  const chunker = createListChunker((json) => chunks.append(json));
  const chunkCache = createTextCache(CHUNK_CACHE_CHARS);
  const readChunk = (ordinal: number): string =>
    chunkCache.get(ordinal) ?? chunkCache.put(ordinal, chunks.read(ordinal));

  return {
    append(block, blockTxs) {
      checkId(block.id);
      for (const tx of blockTxs) {
        checkId(tx.id);
        const { json, refs } = encodeEntries(tx.entries, chunker);
        txIds.add(tx.id, txs.append(`${tx.id}\t${refs}\t${json}`));
      }
      blockIds.add(block.id, blocks.append(`${block.id}\t${JSON.stringify(block)}`));
    },
    height: () => blocks.count(),
    blockJson(height) {
      if (!Number.isInteger(height) || height < 1 || height > blocks.count()) return undefined;
      return blocks.read(height - 1).slice(ID_LENGTH + 1);
    },
    heightOf(hash) {
      const found = lookup(blockIds, blocks, hash);
      return found && found.ordinal + 1;
    },
    transactionJson(id) {
      const found = lookup(txIds, txs, id);
      if (!found) return undefined;
      const { line } = found;
      const tab = line.indexOf('\t', ID_LENGTH + 1);
      return decodeEntries({ refs: line.slice(ID_LENGTH + 1, tab), json: line.slice(tab + 1) }, readChunk);
    },
    close: () => files.forEach((log) => log.close()),
    indexBytes: () => files.reduce((sum, log) => sum + log.indexBytes(), blockIds.byteLength() + txIds.byteLength()),
  };
}

const ID_LENGTH = 64;

function checkId(id: string): void {
  if (!HEX_ID.test(id)) throw new Error(`history ids must be 64 lower-case hex characters: ${id}`);
}

/** The line stored under `id`: index candidates confirmed against the id the line starts with. */
function lookup(index: HexIndex, log: LineLog, id: string): { ordinal: number; line: string } | undefined {
  if (!HEX_ID.test(id)) return undefined;
  let line = '';
  const ordinal = index.find(id, (candidate) => {
    line = log.read(candidate);
    return line.startsWith(id);
  });
  return ordinal === undefined ? undefined : { ordinal, line };
}

interface LineLog {
  /** Appends a line (no newline in it); returns its ordinal (0-based). */
  append(line: string): number;
  read(ordinal: number): string;
  count(): number;
  indexBytes(): number;
  close(): void;
}

const NEWLINE = 0x0a;
const WRITE_BUFFER_BYTES = 1 << 20;

function openLineLog(path: string): LineLog {
  rmSync(path, { force: true });
  let fd: number | undefined = openSync(path, 'wx+');
  /** starts[i] = offset of line i; starts[count] = end of the last one. */
  let starts = new Float64Array(1024);
  let count = 0;
  const buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  let buffered = 0;
  /** File offset of buffer[0]. */
  let flushedEnd = 0;

  const handle = (): number => {
    if (fd === undefined) throw new Error('the devnet history is closed');
    return fd;
  };
  const writeAll = (bytes: Uint8Array): void => {
    for (let done = 0; done < bytes.length;) {
      done += writeSync(handle(), bytes, done, bytes.length - done, flushedEnd + done);
    }
    flushedEnd += bytes.length;
  };
  const flush = (): void => {
    if (buffered === 0) return;
    const bytes = buffer.subarray(0, buffered);
    buffered = 0;
    writeAll(bytes);
  };

  return {
    append(line) {
      handle();
      const size = Buffer.byteLength(line) + 1;
      if (buffered + size > buffer.length) flush();
      if (size > buffer.length) {
        writeAll(Buffer.from(`${line}\n`));
      } else {
        buffered += buffer.write(line, buffered);
        buffer[buffered++] = NEWLINE;
      }
      if (count + 2 > starts.length) {
        const grown = new Float64Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[count + 1] = starts[count]! + size;
      return count++;
    },
    read(ordinal) {
      const start = starts[ordinal]!;
      const end = starts[ordinal + 1]!;
      if (end > flushedEnd) flush();
      const bytes = Buffer.allocUnsafe(end - start);
      for (let done = 0; done < bytes.length;) {
        const got = readSync(handle(), bytes, done, bytes.length - done, start + done);
        if (got === 0) throw new Error(`a devnet history file ends before its line ${ordinal}`);
        done += got;
      }
      return bytes.toString('utf8', 0, bytes.length - 1);
    },
    count: () => count,
    indexBytes: () => starts.byteLength,
    close() {
      if (fd === undefined) return;
      flush();
      closeSync(fd);
      fd = undefined;
    },
  };
}

/** A least-recently-used cache of texts by number, bounded by their total length. */
function createTextCache(maxChars: number) {
  const texts = new Map<number, string>();
  let chars = 0;
  return {
    get(key: number): string | undefined {
      const text = texts.get(key);
      if (text !== undefined) {
        texts.delete(key);
        texts.set(key, text);
      }
      return text;
    },
    put(key: number, text: string): string {
      texts.set(key, text);
      chars += text.length;
      for (const [old, oldText] of texts) {
        if (chars <= maxChars) break;
        texts.delete(old);
        chars -= oldText.length;
      }
      return text;
    },
  };
}
