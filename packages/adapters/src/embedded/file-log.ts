import { mkdir, open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ConsumeOptions, EventLog, LogRecord, OutgoingMessage, ReadOptions, Subscription } from '@mtc/ports';

/**
 * EventLog on plain files: one append-only file of lines per topic (`<dir>/<topic>.log`), one
 * partition, offsets = 0-based record numbers. A line holds one record `{"key":…,"value":…}`, or
 * a frame of n records compressed together like a Kafka record batch (`b<n>:` + base64 of the
 * raw-deflated JSON array of them, see `compression`); lines an older version wrote as `d` + base64
 * of one deflated record still read. Neither JSON.stringify nor base64 emits a raw newline, so a
 * newline always ends a line.
 *
 * - `publish` appends a call's messages in one write and fsyncs before resolving; publishes to a
 *   topic are serialised. One process writes a topic (the follower); others may read it.
 * - Each topic keeps an index of line start offsets (8 bytes a line, never the values), built by
 *   one scan when first used and extended as lines are appended. Only complete lines (ending in a
 *   newline) are indexed, so a reader never sees a line still being written.
 * - A crash can leave a torn last line. The writer cuts it away before its first append: doing it
 *   at open would let a reading process cut a line the writing process is still appending.
 * - A group's position is the next offset to deliver, in `<dir>/<group>~<topic>.offset`, replaced
 *   atomically (tmp file, fsync, rename, fsync dir) after the handler resolved.
 * - Idle consumers wake at once when this instance appends, or another instance on the same
 *   directory in this process (another thread: a BroadcastChannel named after the directory);
 *   appends by another process are found by polling (`pollMs`).
 */
export interface FileEventLogOptions {
  dir: string;
  /** How often an idle consumer looks for lines appended by another process. Default 250 ms. */
  pollMs?: number;
  /**
   * `deflate` (default): a publish of COMPRESS_FROM_BYTES or more of JSON is written as frames of
   * up to FRAME_RECORDS records (and about FRAME_BYTES), each deflated as one at level 1 — the
   * records of a call share their keys and addresses, so a frame packs far tighter than its records
   * one by one, and one zlib call per frame rather than per record costs a fraction of the CPU.
   * Smaller publishes stay plain. `none` writes every record plain. Reading takes every form,
   * whatever the setting. Synchronous calls: zlib's thread pool costs more than the work at these
   * sizes, and the writer is the follower, whose loop has nothing else to do meanwhile.
   */
  compression?: 'deflate' | 'none';
}

/** Publishes with this much JSON or more are compressed: below it, deflate and base64 gain little. */
export const COMPRESS_FROM_BYTES = 512;
/**
 * Most records in a frame: a reader decodes a frame whole, so frames stay near a consumer's batch
 * (500 by default, two frames); batches end on frame boundaries (batchEnd).
 */
export const FRAME_RECORDS = 250;
/** A frame also stops growing past this much JSON (one record at least). */
const FRAME_BYTES = 1024 * 1024;
/** First byte of a frame line (`b<n>:…`); a plain line starts with `{`. */
const FRAME = 0x62; // 'b'
/** First byte of a single deflated record, as versions before frames wrote them. */
const DEFLATED = 0x64; // 'd'
/** `b<n>:` is at most this long. */
const FRAME_HEADER_MAX = 12;

/** One line to append (newline included) and how many records it holds. */
interface Line {
  bytes: Buffer;
  records: number;
}

/** The lines for a publish's records (each already JSON): plain, or deflated frames. */
function encodeLines(jsons: readonly string[], compress: boolean): Line[] {
  const total = jsons.reduce((sum, json) => sum + json.length, 0);
  if (!compress || total < COMPRESS_FROM_BYTES)
    return jsons.map((json) => ({ bytes: Buffer.from(`${json}\n`, 'utf8'), records: 1 }));
  const lines: Line[] = [];
  for (let from = 0; from < jsons.length;) {
    let upto = from + 1;
    let bytes = jsons[from]!.length;
    while (upto < jsons.length && upto - from < FRAME_RECORDS && bytes + jsons[upto]!.length <= FRAME_BYTES)
      bytes += jsons[upto++]!.length;
    const packed = deflateRawSync(Buffer.from(`[${jsons.slice(from, upto).join(',')}]`, 'utf8'), { level: 1 });
    lines.push({
      bytes: Buffer.from(`b${upto - from}:${packed.toString('base64')}\n`, 'latin1'),
      records: upto - from,
    });
    from = upto;
  }
  return lines;
}

/** The record count a frame header `b<n>:` gives, or 1 for any other line (a wrong one fails on read). */
function recordsIn(header: Buffer): number {
  if (header[0] !== FRAME) return 1;
  const colon = header.indexOf(0x3a);
  const n = colon > 1 ? Number(header.toString('latin1', 1, colon)) : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}

/** The records of the line buf[start, end), parsed; throws a message-less Error when it does not decode. */
function decodeLine(buf: Buffer, start: number, end: number): unknown[] {
  const first = buf[start];
  if (first === FRAME) {
    const colon = buf.indexOf(0x3a, start);
    const n = Number(buf.toString('latin1', start + 1, colon));
    const packed = Buffer.from(buf.toString('latin1', colon + 1, end), 'base64');
    const records: unknown = JSON.parse(inflateRawSync(packed).toString('utf8'));
    if (!Array.isArray(records) || records.length !== n) throw new Error();
    return records;
  }
  if (first === DEFLATED) {
    const packed = Buffer.from(buf.toString('latin1', start + 1, end), 'base64');
    return [JSON.parse(inflateRawSync(packed).toString('utf8'))];
  }
  return [JSON.parse(buf.toString('utf8', start, end))];
}

/** Topic and group names become file names; Kafka allows the same characters. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const DEFAULT_MAX_BATCH = 500;
/** A batch also stops growing past this many bytes (one record at least), to bound memory. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const SCAN_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

interface TopicFile {
  name: string;
  path: string;
  fh: FileHandle;
  /** Byte offset where the line of each indexed record starts. */
  starts: Float64Array;
  /** Each record's place in its line (0 for a plain line), and how many records the line holds. */
  slots: Uint32Array;
  sizes: Uint32Array;
  /** Records indexed. */
  count: number;
  /** End of the last indexed (complete) line. */
  end: number;
  /** Torn tail handled: set before this instance's first append. */
  repaired: boolean;
  /** Set when an append failed and the file could not be put back: the index no longer holds. */
  broken: Error | undefined;
  /** Serialises index changes (scans, appends, repair). */
  lock: Promise<void>;
  /** Idle consumers waiting for new lines. */
  waiters: Set<() => void>;
}

export function createFileEventLog(options: FileEventLogOptions): EventLog {
  const { dir } = options;
  const compress = options.compression !== 'none';
  const pollMs = options.pollMs ?? 250;
  const topics = new Map<string, Promise<TopicFile>>();
  const active = new Map<string, Subscription>();
  let closed = false;
  // Appends by the other instances of this process on the directory (other threads): a topic's name.
  const appended = new BroadcastChannel(`mtc-file-log:${resolve(dir)}`);
  appended.unref();
  appended.onmessage = (event: { data: unknown }) => {
    const topic = typeof event.data === 'string' ? topics.get(event.data) : undefined;
    void topic?.then(
      (t) => [...t.waiters].forEach((wake) => wake()),
      () => {},
    );
  };

  const topicFile = (topic: string): Promise<TopicFile> => {
    if (closed) return Promise.reject(new Error('file event log is closed'));
    assertName('topic', topic);
    let t = topics.get(topic);
    if (!t) {
      t = openTopic(dir, topic);
      topics.set(topic, t);
      t.catch(() => topics.delete(topic)); // let a later call try again
    }
    return t;
  };

  const consume = async (
    opts: ConsumeOptions,
    handler: (batch: readonly LogRecord[]) => Promise<void>,
  ): Promise<Subscription> => {
    assertName('group', opts.group);
    const maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer`);
    const key = `${opts.group}~${opts.topic}`;
    // One partition means one consumer per group: a second would re-deliver and race the commits.
    if (active.has(key)) throw new Error(`group ${opts.group} is already consuming ${opts.topic} in this process`);
    const t = await topicFile(opts.topic);
    await locked(t, () => scan(t));
    const offsetPath = join(dir, `${key}.offset`);
    const committed = await readPosition(offsetPath);
    if (committed !== null && committed > t.count)
      throw new Error(`group ${opts.group} is at offset ${committed} but ${opts.topic} has ${t.count} records`);
    const position = committed ?? (opts.fromBeginning === false ? t.count : 0);
    const sub = follow(t, position, maxBatch, handler, (upto) => writePosition(dir, offsetPath, upto));
    active.set(key, sub);
    void sub.done.then(
      () => active.get(key) === sub && active.delete(key),
      () => active.get(key) === sub && active.delete(key),
    );
    return { stop: () => sub.stop(), done: sub.done };
  };

  /**
   * Delivers t's records from `position` in batches to `handler`, calling `afterBatch` with the next
   * position once a batch is handled, then waits for lines appended by this or another process.
   */
  const follow = (
    t: TopicFile,
    start: number,
    maxBatch: number,
    handler: (batch: readonly LogRecord[]) => Promise<void>,
    afterBatch: (upto: number) => Promise<void>,
  ): Subscription => {
    let position = start;
    let stopping = false;
    let wakeNow: (() => void) | undefined;
    const run = async (): Promise<void> => {
      while (!stopping) {
        if (position >= t.count) await locked(t, () => scan(t)); // lines another process appended
        if (position < t.count) {
          const upto = batchEnd(t, position, maxBatch);
          const batch = await readRecords(t, position, upto);
          await handler(batch);
          await afterBatch(upto);
          position = upto;
          continue;
        }
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            clearTimeout(timer);
            t.waiters.delete(wake);
            wakeNow = undefined;
            resolve();
          };
          const timer = setTimeout(wake, pollMs);
          t.waiters.add(wake);
          wakeNow = wake;
          if (stopping || position < t.count) wake();
        });
      }
    };
    const done = run();
    return {
      async stop() {
        stopping = true;
        wakeNow?.();
        await done.catch(() => {}); // a handler failure is reported through `done`
      },
      done,
    };
  };

  const readers = new Set<Subscription>();

  return {
    async publish(topic: string, messages: readonly OutgoingMessage[]) {
      if (closed) throw new Error('file event log is closed');
      assertName('topic', topic);
      if (messages.length === 0) return;
      // Serialise before taking the lock: a value that cannot be encoded fails the call untouched.
      const lines = encodeLines(
        messages.map((m) => JSON.stringify({ key: m.key, value: m.value })),
        compress,
      );
      const t = await topicFile(topic);
      await locked(t, async () => {
        if (!t.repaired) await repair(t);
        await append(t, lines);
      });
      for (const wake of [...t.waiters]) wake();
      appended.postMessage(topic);
    },

    async lastValue(topic: string) {
      const t = await topicFile(topic);
      await locked(t, () => scan(t));
      if (t.count === 0) return null;
      const [last] = await readRecords(t, t.count - 1, t.count);
      return last?.value ?? null;
    },

    consume,

    async read(opts: ReadOptions, handler: (batch: readonly LogRecord[]) => Promise<void>) {
      const maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
      if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer`);
      if (!/^(0|[1-9][0-9]*)$/.test(opts.from)) throw new RangeError(`bad offset ${JSON.stringify(opts.from)}`);
      const t = await topicFile(opts.topic);
      await locked(t, () => scan(t));
      const sub = follow(t, Math.min(Number(opts.from), t.count), maxBatch, handler, async () => {});
      readers.add(sub);
      void sub.done.then(
        () => readers.delete(sub),
        () => readers.delete(sub),
      );
      return sub;
    },

    async endOffset(topic: string) {
      const t = await topicFile(topic);
      await locked(t, () => scan(t));
      return String(t.count);
    },

    async lag(topic: string, group: string) {
      assertName('group', group);
      const t = await topicFile(topic);
      await locked(t, () => scan(t));
      const committed = (await readPosition(join(dir, `${group}~${topic}.offset`))) ?? 0;
      return [{ partition: 0, lag: Math.max(0, t.count - committed) }];
    },

    async close() {
      if (closed) return;
      closed = true;
      appended.close();
      await Promise.all([...active.values(), ...readers].map((s) => s.stop()));
      for (const t of await Promise.allSettled(topics.values())) {
        if (t.status === 'fulfilled') await locked(t.value, () => t.value.fh.close());
      }
      topics.clear();
    },
  };
}

function assertName(kind: string, name: string): void {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new TypeError(
      `invalid ${kind} name ${JSON.stringify(name)}: use [A-Za-z0-9._-], starting with a letter or digit`,
    );
}

async function openTopic(dir: string, name: string): Promise<TopicFile> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.log`);
  const fh = await open(path, 'a+');
  const t: TopicFile = {
    name,
    path,
    fh,
    starts: new Float64Array(1024),
    slots: new Uint32Array(1024),
    sizes: new Uint32Array(1024),
    count: 0,
    end: 0,
    repaired: false,
    broken: undefined,
    lock: Promise.resolve(),
    waiters: new Set(),
  };
  try {
    await syncDir(dir); // the file's directory entry, in case we just created it
    await scan(t);
  } catch (error) {
    await fh.close();
    throw error;
  }
  return t;
}

function locked<T>(t: TopicFile, fn: () => Promise<T>): Promise<T> {
  const result = t.lock.then(() => {
    if (t.broken !== undefined) throw t.broken;
    return fn();
  });
  t.lock = result.then(
    () => {},
    () => {},
  );
  return result;
}

/** Indexes a line of `records` records starting at byte `start`. */
function pushLine(t: TopicFile, start: number, records: number): void {
  while (t.count + records > t.starts.length) {
    const starts = new Float64Array(t.starts.length * 2);
    const slots = new Uint32Array(starts.length);
    const sizes = new Uint32Array(starts.length);
    starts.set(t.starts);
    slots.set(t.slots);
    sizes.set(t.sizes);
    Object.assign(t, { starts, slots, sizes });
  }
  for (let slot = 0; slot < records; slot++) {
    t.starts[t.count] = start;
    t.slots[t.count] = slot;
    t.sizes[t.count] = records;
    t.count++;
  }
}

/** The first record of record i's line. */
const lineFirst = (t: TopicFile, i: number): number => i - (t.slots[i] as number);

/** Where record i's line ends (after its newline). */
function lineEnd(t: TopicFile, i: number): number {
  const next = lineFirst(t, i) + (t.sizes[i] as number);
  return next < t.count ? (t.starts[next] as number) : t.end;
}

/** Indexes the complete lines past `end`; a partial last line is left for a later scan. */
async function scan(t: TopicFile): Promise<void> {
  const { size } = await t.fh.stat();
  if (size < t.end) throw new Error(`${t.path} shrank below its indexed end (${size} < ${t.end}): was it rewritten?`);
  const buf = Buffer.allocUnsafe(SCAN_CHUNK);
  let pos = t.end;
  let lineStart = t.end;
  while (pos < size) {
    const { bytesRead } = await t.fh.read(buf, 0, Math.min(SCAN_CHUNK, size - pos), pos);
    if (bytesRead === 0) break;
    const chunk = buf.subarray(0, bytesRead);
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
      // The line's header is in this chunk, unless the line began in an earlier one.
      const header =
        lineStart >= pos
          ? chunk.subarray(lineStart - pos, Math.min(i, lineStart - pos + FRAME_HEADER_MAX))
          : await readHeader(t, lineStart);
      pushLine(t, lineStart, recordsIn(header));
      lineStart = pos + i + 1;
    }
    pos += bytesRead;
  }
  t.end = lineStart;
}

async function readHeader(t: TopicFile, at: number): Promise<Buffer> {
  const header = Buffer.alloc(FRAME_HEADER_MAX);
  const { bytesRead } = await t.fh.read(header, 0, FRAME_HEADER_MAX, at);
  return header.subarray(0, bytesRead);
}

/**
 * Cuts what a crashed writer left half-written: bytes after the last newline, then any last lines
 * that do not parse (a write torn inside the page cache can leave garbage ending in a newline).
 */
async function repair(t: TopicFile): Promise<void> {
  await scan(t);
  let cut = (await t.fh.stat()).size > t.end;
  while (t.count > 0 && !(await lineParses(t, t.count - 1))) {
    t.count = lineFirst(t, t.count - 1);
    t.end = t.starts[t.count] as number;
    cut = true;
  }
  if (cut) {
    await t.fh.truncate(t.end);
    await t.fh.sync();
  }
  t.repaired = true;
}

async function lineParses(t: TopicFile, i: number): Promise<boolean> {
  try {
    await readRecords(t, i, i + 1);
    return true;
  } catch {
    return false;
  }
}

async function append(t: TopicFile, lines: readonly Line[]): Promise<void> {
  const data = Buffer.concat(lines.map((line) => line.bytes));
  try {
    let written = 0;
    while (written < data.length) written += (await t.fh.write(data, written, data.length - written)).bytesWritten;
    await t.fh.sync();
  } catch (error) {
    // Put the file back to its last indexed line, or refuse further use: appending after a
    // half-written line would glue the next record to it.
    try {
      await t.fh.truncate(t.end);
    } catch {
      t.broken = error instanceof Error ? error : new Error(String(error));
    }
    throw Object.assign(error as Error, { retryable: t.broken === undefined });
  }
  let start = t.end;
  for (const line of lines) {
    pushLine(t, start, line.records);
    start += line.bytes.length;
  }
  t.end = start;
}

/**
 * Where a batch from `from` ends: at most maxBatch records and about MAX_BATCH_BYTES, and at the
 * end of a frame where it can (a frame cut in two is decoded twice).
 */
function batchEnd(t: TopicFile, from: number, maxBatch: number): number {
  const last = Math.min(t.count, from + maxBatch);
  const first = t.starts[from] as number;
  let upto = from + 1;
  while (upto < last && lineEnd(t, upto) - first <= MAX_BATCH_BYTES) upto++;
  if (upto < t.count && lineFirst(t, upto) > from) upto = lineFirst(t, upto);
  return upto;
}

async function readRecords(t: TopicFile, from: number, upto: number): Promise<LogRecord[]> {
  if (from < 0 || upto > t.count || from >= upto) throw new RangeError(`no records [${from}, ${upto}) in ${t.path}`);
  const start = t.starts[from] as number;
  const length = lineEnd(t, upto - 1) - start;
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await t.fh.read(buf, got, length - got, start + got);
    if (bytesRead === 0) throw new Error(`${t.path} ended early at byte ${start + got}`);
    got += bytesRead;
  }
  const records: LogRecord[] = [];
  let lineStart = 0;
  // The offset of the first record of the line at lineStart: `from` may sit inside a frame.
  for (let offset = lineFirst(t, from); offset < upto;) {
    const nl = buf.indexOf(NEWLINE, lineStart);
    let parsed: unknown[];
    try {
      parsed = decodeLine(buf, lineStart, nl);
    } catch {
      throw new Error(`${t.path}: record ${Math.max(offset, from)} does not decode (neither JSON nor a frame)`);
    }
    lineStart = nl + 1;
    for (const record of parsed) {
      if (offset >= from && offset < upto) {
        if (typeof record !== 'object' || record === null || typeof (record as { key?: unknown }).key !== 'string')
          throw new Error(`${t.path}: record ${offset} is not a log record`);
        const { key, value } = record as { key: string; value?: unknown };
        records.push({ topic: t.name, partition: 0, offset: String(offset), key, value });
      }
      offset++;
    }
  }
  return records;
}

async function readPosition(path: string): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!/^(0|[1-9][0-9]*)\n?$/.test(text))
    throw new Error(`${path} does not hold an offset: ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}

async function writePosition(dir: string, path: string, position: number): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(`${position}\n`, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  await syncDir(dir); // makes the rename itself durable
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
