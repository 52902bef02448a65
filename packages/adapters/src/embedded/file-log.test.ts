import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { EventLog, LogRecord, Subscription } from '@mtc/ports';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeEventLogContract, uniqueName, waitFor } from '../contract/index.ts';
import { COMPRESS_FROM_BYTES, createFileEventLog } from './file-log.ts';

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

  it('writes large records deflated, reads them back as written, and still reads plain lines', async () => {
    const dir = freshDir();
    const block = {
      height: 7,
      txs: Array.from({ length: 40 }, (_, i) => ({
        id: `${i}`.padStart(64, 'a'),
        type: 'transfer',
        amount: String(i),
      })),
    };
    const json = JSON.stringify({ key: '7', value: block });
    expect(json.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    // A line as an older version wrote it, before compression: it must stay readable.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 't.log'), `${JSON.stringify({ key: 'old', value: block })}\n`);
    const log = open(dir);
    await log.publish('t', [
      { key: '7', value: block },
      { key: 'small', value: { n: 1 } },
    ]);
    const lines = readFileSync(join(dir, 't.log'), 'latin1').split('\n');
    expect(lines[1]!.startsWith('d')).toBe(true);
    expect(lines[1]!.length).toBeLessThan(json.length / 3);
    expect(lines[2]).toBe('{"key":"small","value":{"n":1}}');
    const { records } = await consumeAll(log, 't', 'g');
    await waitFor(() => records.length === 3);
    expect(records.map((r) => [r.key, r.value])).toEqual([
      ['old', block],
      ['7', block],
      ['small', { n: 1 }],
    ]);
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
