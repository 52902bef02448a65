import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { deflateRawSync } from 'node:zlib';
import type { EventLog, LogRecord, Subscription } from '@mtc/ports';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeEventLogContract, uniqueName, waitFor } from '../contract/index.ts';
import { COMPRESS_FROM_BYTES, createFileEventLog, FRAME_RECORDS } from './file-log.ts';

const root = mkdtempSync(join(tmpdir(), 'mtc-file-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// One directory for the whole suite: every contract test uses its own topics and groups.
describeEventLogContract('file', async () => createFileEventLog({ dir: join(root, 'contract'), pollMs: 50 }));

describe('createFileEventLog', () => {
  const logs: EventLog[] = [];
  const subs: Subscription[] = [];
  const open = (dir: string, pollMs = 50): EventLog => {
    const log = createFileEventLog({ dir, pollMs });
    logs.push(log);
    return log;
  };
  afterEach(async () => {
    for (const s of subs.splice(0)) await s.stop();
    for (const l of logs.splice(0)) await l.close();
  });
  const freshDir = (): string => join(root, uniqueName('dir'));
  const consumeAll = async (log: EventLog, topic: string, group: string, maxBatch?: number) => {
    const records: LogRecord[] = [];
    const batches: number[] = [];
    const sub = await log.consume({ topic, group, ...(maxBatch ? { maxBatch } : {}) }, async (batch) => {
      batches.push(batch.length);
      records.push(...batch);
    });
    subs.push(sub);
    return { records, batches, sub };
  };

  it('writes one JSON line per message and numbers offsets from 0', async () => {
    const dir = freshDir();
    const log = open(dir);
    await log.publish('t', [
      { key: 'a', value: { n: 1 } },
      { key: 'b', value: 'x\ny' },
    ]);
    await log.publish('t', [{ key: 'c', value: null }]);
    expect(readFileSync(join(dir, 't.log'), 'utf8')).toBe(
      '{"key":"a","value":{"n":1}}\n{"key":"b","value":"x\\ny"}\n{"key":"c","value":null}\n',
    );
    const { records } = await consumeAll(log, 't', 'g');
    await waitFor(() => records.length === 3);
    expect(records.map((r) => r.offset)).toEqual(['0', '1', '2']);
  });

  it('writes a large publish as deflated frames, reads them back as written, and still reads older lines', async () => {
    const dir = freshDir();
    const block = (height: number) => ({
      height,
      txs: Array.from({ length: 20 }, (_, i) => ({
        id: `${i}`.padStart(64, 'a'),
        type: 'transfer',
        amount: String(i),
      })),
    });
    // Lines as older versions wrote them, plain and deflated one by one: they must stay readable.
    mkdirSync(dir, { recursive: true });
    const old = JSON.stringify({ key: 'old', value: block(1) });
    writeFileSync(
      join(dir, 't.log'),
      `${old}\nd${deflateRawSync(Buffer.from(JSON.stringify({ key: 'older', value: block(2) }))).toString('base64')}\n`,
    );
    const log = open(dir);
    const published = Array.from({ length: FRAME_RECORDS + 10 }, (_, i) => ({ key: String(i), value: block(i) }));
    await log.publish('t', published);
    await log.publish('t', [{ key: 'small', value: { n: 1 } }]);

    const lines = readFileSync(join(dir, 't.log'), 'latin1').split('\n');
    expect(lines).toHaveLength(6); // old, older, two frames, small, and the empty string after the last newline
    expect(lines[2]).toMatch(new RegExp(`^b${FRAME_RECORDS}:[A-Za-z0-9+/=]+$`));
    expect(lines[3]).toMatch(/^b10:[A-Za-z0-9+/=]+$/);
    // Near-identical records pack far tighter together than one by one.
    expect(lines[2]!.length).toBeLessThan((FRAME_RECORDS * old.length) / 10);
    expect(lines[4]).toBe('{"key":"small","value":{"n":1}}');

    const { records } = await consumeAll(log, 't', 'g');
    await waitFor(() => records.length === FRAME_RECORDS + 13);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: FRAME_RECORDS + 13 }, (_, i) => String(i)));
    expect(records.map((r) => [r.key, r.value])).toEqual([
      ['old', block(1)],
      ['older', block(2)],
      ...published.map((m) => [m.key, m.value]),
      ['small', { n: 1 }],
    ]);
    expect(await log.lastValue('t')).toEqual({ n: 1 });
  });

  it('serves a group from inside a frame, in batches that end on frame boundaries where they can', async () => {
    const dir = freshDir();
    const log = open(dir);
    const values = Array.from({ length: 2 * FRAME_RECORDS + 5 }, (_, i) => ({ i, pad: 'p'.repeat(20) }));
    await log.publish(
      't',
      values.map((value, i) => ({ key: String(i), value })),
    );
    writeFileSync(join(dir, 'g~t.offset'), '7\n'); // a position inside the first frame
    const { records, batches } = await consumeAll(log, 't', 'g', 300);
    await waitFor(() => records.length === values.length - 7);
    expect(records.map((r) => r.value)).toEqual(values.slice(7));
    expect(records.map((r) => Number(r.offset))).toEqual(values.slice(7).map((v) => v.i));
    // 7 … 249 (to the frame's end rather than 300 records into the next), then 250 … 504 (the rest).
    expect(batches).toEqual([FRAME_RECORDS - 7, FRAME_RECORDS + 5]);
  });

  it('indexes frames whose line begins in one scan chunk and ends in the next', async () => {
    const dir = freshDir();
    // A plain line that ends 5 bytes short of 1 MiB: the next line's header straddles the chunk edge.
    const plain = createFileEventLog({ dir, compression: 'none' });
    logs.push(plain);
    const filler = `{"key":"big","value":""}`.length + 1;
    await plain.publish('t', [{ key: 'big', value: 'x'.repeat(1024 * 1024 - 5 - filler) }]);
    await plain.close();
    const writer = open(dir);
    const values = Array.from({ length: FRAME_RECORDS + 3 }, (_, i) => ({ i, text: 'frame record' }));
    await writer.publish(
      't',
      values.map((value, i) => ({ key: String(i), value })),
    );
    expect(readFileSync(join(dir, 't.log')).indexOf('b250:')).toBe(1024 * 1024 - 5);
    await writer.close();

    const reader = open(dir); // indexes the file by a scan, in 1 MiB chunks
    const { records } = await consumeAll(reader, 't', 'g');
    await waitFor(() => records.length === values.length + 1);
    expect(records.slice(1).map((r) => [r.offset, r.value])).toEqual(values.map((v, i) => [String(i + 1), v]));
  });

  it('writes every line plain with compression none', async () => {
    const dir = freshDir();
    const log = createFileEventLog({ dir, compression: 'none' });
    logs.push(log);
    const value = { text: 'y'.repeat(2 * COMPRESS_FROM_BYTES) };
    await log.publish('t', [{ key: 'k', value }]);
    expect(readFileSync(join(dir, 't.log'), 'utf8')).toBe(`${JSON.stringify({ key: 'k', value })}\n`);
  });

  it('commits a group position as the next offset, in <group>~<topic>.offset', async () => {
    const dir = freshDir();
    const log = open(dir);
    await log.publish('t', [
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    const { records, sub } = await consumeAll(log, 't', 'projector');
    await waitFor(() => records.length === 2);
    await sub.stop();
    expect(readFileSync(join(dir, 'projector~t.offset'), 'utf8')).toBe('2\n');
  });

  it('cuts a torn last line away before the next append, and readers never see it', async () => {
    const dir = freshDir();
    const first = open(dir);
    await first.publish('t', [{ key: 'a', value: 1 }]);
    await first.close();
    appendFileSync(join(dir, 't.log'), '{"key":"b","val'); // a crash in the middle of a write

    const second = open(dir);
    expect(await second.lastValue('t')).toBe(1);
    await second.publish('t', [{ key: 'c', value: 3 }]);
    expect(readFileSync(join(dir, 't.log'), 'utf8')).toBe('{"key":"a","value":1}\n{"key":"c","value":3}\n');
    const { records } = await consumeAll(second, 't', 'g');
    await waitFor(() => records.length === 2);
    expect(records.map((r) => [r.offset, r.value])).toEqual([
      ['0', 1],
      ['1', 3],
    ]);
  });

  it('cuts unparsable last lines away before the next append', async () => {
    const dir = freshDir();
    const first = open(dir);
    await first.publish('t', [{ key: 'a', value: 1 }]);
    await first.close();
    appendFileSync(join(dir, 't.log'), '\0\0\0\0\n{"key":"b"\n');

    const second = open(dir);
    await second.publish('t', [{ key: 'c', value: 3 }]);
    expect(readFileSync(join(dir, 't.log'), 'utf8')).toBe('{"key":"a","value":1}\n{"key":"c","value":3}\n');
    expect(await second.lastValue('t')).toBe(3);
  });

  it('cuts a torn last frame away whole before the next append', async () => {
    const dir = freshDir();
    const first = open(dir);
    await first.publish('t', [{ key: 'a', value: 1 }]);
    await first.close();
    const kept = readFileSync(join(dir, 't.log'), 'utf8');
    // A frame of three whose body was torn inside the page cache: the header counts three records.
    appendFileSync(join(dir, 't.log'), 'b3:80uszE\n');

    const second = open(dir);
    await second.publish('t', [{ key: 'c', value: 3 }]);
    expect(readFileSync(join(dir, 't.log'), 'utf8')).toBe(`${kept}{"key":"c","value":3}\n`);
    const { records } = await consumeAll(second, 't', 'g');
    await waitFor(() => records.length === 2);
    expect(records.map((r) => [r.offset, r.value])).toEqual([
      ['0', 1],
      ['1', 3],
    ]);
  });

  it('sees lines another instance appends, by polling', async () => {
    const dir = freshDir();
    const writer = open(dir);
    const reader = open(dir, 20);
    await writer.publish('t', [{ key: 'a', value: 1 }]);
    const { records } = await consumeAll(reader, 't', 'g');
    await waitFor(() => records.length === 1);
    await writer.publish('t', [
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ]);
    await waitFor(() => records.length === 3, { what: 'the other instance’s appends' });
    expect(records.map((r) => r.value)).toEqual([1, 2, 3]);
    expect(await reader.lastValue('t')).toBe(3);
  });

  it('sees appends made by another process', async () => {
    const dir = freshDir();
    const reader = open(dir, 20);
    const { records } = await consumeAll(reader, 't', 'g');
    const module = fileURLToPath(new URL('./file-log.ts', import.meta.url));
    const script = `
      const { createFileEventLog } = await import(${JSON.stringify(module)});
      const log = createFileEventLog({ dir: ${JSON.stringify(dir)} });
      await log.publish('t', [{ key: 'a', value: 1 }, { key: 'b', value: 2 }]);
      await log.close();`;
    await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '--disable-warning=ExperimentalWarning',
      '-e',
      script,
    ]);
    await waitFor(() => records.length === 2, { what: 'the child process’s records' });
    expect(records.map((r) => r.value)).toEqual([1, 2]);
  });

  it('wakes a consumer at once when another thread of this process appends, without waiting for its poll', async () => {
    const dir = freshDir();
    const reader = open(dir, 3_600_000); // a poll would come an hour later
    const { records } = await consumeAll(reader, 't', 'g');
    const module = fileURLToPath(new URL('./file-log.ts', import.meta.url));
    const worker = new Worker(
      `(async () => {
        const { createFileEventLog } = await import(${JSON.stringify(module)});
        const log = createFileEventLog({ dir: ${JSON.stringify(dir)} });
        await log.publish('t', [{ key: 'a', value: 1 }, { key: 'b', value: 2 }]);
        await log.close();
      })();`,
      { eval: true },
    );
    await once(worker, 'exit');
    await waitFor(() => records.length === 2, { what: 'the other thread’s records', timeoutMs: 10_000 });
    expect(records.map((r) => r.value)).toEqual([1, 2]);
  });

  it('delivers a long backlog in batches of at most 500 by default', async () => {
    const log = open(freshDir());
    await log.publish(
      't',
      Array.from({ length: 1_234 }, (_, i) => ({ key: String(i), value: i })),
    );
    const { records, batches } = await consumeAll(log, 't', 'g');
    await waitFor(() => records.length === 1_234);
    expect(Math.max(...batches)).toBe(500);
    expect(records.map((r) => r.value)).toEqual(Array.from({ length: 1_234 }, (_, i) => i));
  });

  it('rejects a value that cannot be serialised, writing nothing', async () => {
    const dir = freshDir();
    const log = open(dir);
    await expect(
      log.publish('t', [
        { key: 'a', value: 1 },
        { key: 'b', value: 10n },
      ]),
    ).rejects.toThrow(TypeError);
    expect(await log.lastValue('t')).toBeNull();
  });

  it('rejects topic and group names that are not safe file names', async () => {
    const log = open(freshDir());
    for (const bad of ['../x', 'a/b', '.hidden', '', 'a~b', 'x y'])
      await expect(log.publish(bad, [{ key: 'k', value: 1 }])).rejects.toThrow(/invalid topic name/);
    await expect(log.lastValue('a/b')).rejects.toThrow(/invalid topic name/);
    await expect(log.consume({ topic: 't', group: '../g' }, async () => {})).rejects.toThrow(/invalid group name/);
  });

  it('refuses a second consumer of the same group and topic in one instance', async () => {
    const log = open(freshDir());
    await consumeAll(log, 't', 'g');
    await expect(log.consume({ topic: 't', group: 'g' }, async () => {})).rejects.toThrow(/already consuming/);
  });

  it('refuses a group position beyond the end of the log', async () => {
    const dir = freshDir();
    const log = open(dir);
    await log.publish('t', [{ key: 'a', value: 1 }]);
    writeFileSync(join(dir, 'g~t.offset'), '5\n');
    await expect(log.consume({ topic: 't', group: 'g' }, async () => {})).rejects.toThrow(/offset 5/);
  });

  it('close() stops its subscriptions', async () => {
    const log = createFileEventLog({ dir: freshDir() });
    const sub = await log.consume({ topic: 't', group: 'g' }, async () => {});
    await log.close();
    await expect(sub.done).resolves.toBeUndefined();
    await expect(log.publish('t', [{ key: 'a', value: 1 }])).rejects.toThrow(/closed/);
  });
});
