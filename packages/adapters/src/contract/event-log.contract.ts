import type { EventLog, LogRecord, OutgoingMessage, Subscription } from '@mtc/ports';
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from './wait.ts';

/**
 * The EventLog contract: what the file log and Kafka must do alike.
 *
 * `make` opens a log on the adapter's test storage; calling it again opens another instance on the
 * same storage (that is how a restart is simulated). Every test uses fresh topic and group names,
 * so storage may be shared across tests and runs.
 *
 * One requirement beyond the port's wording: when `consume` resolves with `fromBeginning: false`,
 * records published from then on are delivered. The test tolerates a log that fixes its start
 * position a little later (it keeps publishing until something arrives) but not one that delivers
 * records published before the subscription.
 */
export interface EventLogContractOptions {
  /** How long to wait for deliveries; a broker may need more than the default 10 s. */
  waitMs?: number;
}

interface Collector {
  records: LogRecord[];
  batches: number[];
  handler: (batch: readonly LogRecord[]) => Promise<void>;
}

function collector(): Collector {
  const records: LogRecord[] = [];
  const batches: number[] = [];
  return {
    records,
    batches,
    handler: async (batch) => {
      batches.push(batch.length);
      records.push(...batch);
    },
  };
}

const messages = (prefix: string, count: number, from = 0): OutgoingMessage[] =>
  Array.from({ length: count }, (_, i) => ({ key: `${prefix}${from + i}`, value: { n: from + i, tag: prefix } }));

const values = (records: readonly LogRecord[]): unknown[] => records.map((r) => r.value);

export function describeEventLogContract(
  name: string,
  make: () => Promise<EventLog>,
  options: EventLogContractOptions = {},
): void {
  const timeoutMs = options.waitMs ?? 10_000;

  describe(`EventLog contract: ${name}`, () => {
    const open = new Set<EventLog>();
    const subscriptions = new Set<Subscription>();

    const openLog = async (): Promise<EventLog> => {
      const log = await make();
      open.add(log);
      return log;
    };
    const closeLog = async (log: EventLog): Promise<void> => {
      open.delete(log);
      await log.close();
    };
    const subscribe = async (
      log: EventLog,
      opts: Parameters<EventLog['consume']>[0],
      handler: (batch: readonly LogRecord[]) => Promise<void>,
    ): Promise<Subscription> => {
      const sub = await log.consume(opts, handler);
      subscriptions.add(sub);
      sub.done.catch(() => {}); // tests that expect a failure assert it on `done` themselves
      return sub;
    };
    const stop = async (sub: Subscription): Promise<void> => {
      subscriptions.delete(sub);
      await sub.stop();
    };

    afterEach(async () => {
      for (const sub of [...subscriptions]) await stop(sub);
      for (const log of [...open]) await closeLog(log);
    });

    const topicName = (): string => uniqueName('contract-topic');
    const groupName = (): string => uniqueName('contract-group');

    it('answers null for the last value of an empty topic', async () => {
      const log = await openLog();
      expect(await log.lastValue(topicName())).toBeNull();
    });

    it('answers the newest value once messages are published', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, [{ key: 'a', value: { n: 1 } }]);
      expect(await log.lastValue(topic)).toEqual({ n: 1 });
      await log.publish(topic, [
        { key: 'b', value: { n: 2 } },
        { key: 'c', value: { n: 3 } },
      ]);
      expect(await log.lastValue(topic)).toEqual({ n: 3 });
    });

    it('treats an empty publish as a no-op', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, []);
      expect(await log.lastValue(topic)).toBeNull();
    });

    it('delivers every record of several publishes in offset order, with topic, key and value', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('a', 3));
      await log.publish(topic, messages('a', 2, 3));
      await log.publish(topic, messages('a', 4, 5));
      const c = collector();
      await subscribe(log, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= 9, { timeoutMs, what: '9 records' });
      expect(c.records).toHaveLength(9);
      expect(values(c.records)).toEqual(messages('a', 9).map((m) => m.value));
      expect(c.records.map((r) => r.key)).toEqual(messages('a', 9).map((m) => m.key));
      for (const r of c.records) {
        expect(r.topic).toBe(topic);
        expect(r.partition).toBe(0);
        expect(r.offset).toMatch(/^(0|[1-9][0-9]*)$/);
      }
      const offsets = c.records.map((r) => BigInt(r.offset));
      for (let i = 1; i < offsets.length; i++) expect(offsets[i]! > offsets[i - 1]!).toBe(true);
    });

    it('round-trips JSON values unchanged', async () => {
      const log = await openLog();
      const topic = topicName();
      const sent: OutgoingMessage[] = [
        { key: 'k1', value: { text: 'two\nlines, "quotes", 한글 😀', list: [1, null, { deep: [true, false] }] } },
        { key: 'k2', value: 'a bare string\n' },
        { key: 'k3', value: 12.5 },
        { key: 'k4', value: null },
        { key: 'k5', value: [] },
      ];
      await log.publish(topic, sent);
      const c = collector();
      await subscribe(log, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= sent.length, { timeoutMs, what: 'all records' });
      expect(c.records.map((r) => ({ key: r.key, value: r.value }))).toEqual(sent);
      expect(await log.lastValue(topic)).toEqual([]);
    });

    it('hands the handler at most maxBatch records at a time', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('m', 7));
      const c = collector();
      await subscribe(log, { topic, group: groupName(), maxBatch: 3 }, c.handler);
      await waitFor(() => c.records.length >= 7, { timeoutMs, what: '7 records' });
      expect(c.batches.every((n) => n >= 1 && n <= 3)).toBe(true);
      expect(values(c.records)).toEqual(messages('m', 7).map((m) => m.value));
    });

    it('delivers records published after the subscription started', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('live', 1));
      const c = collector();
      await subscribe(log, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= 1, { timeoutMs, what: 'the first record' });
      await log.publish(topic, messages('live', 2, 1));
      await waitFor(() => c.records.length >= 3, { timeoutMs, what: 'the live records' });
      expect(values(c.records)).toEqual(messages('live', 3).map((m) => m.value));
    });

    it('keeps each publish call contiguous and in order when calls run concurrently', async () => {
      const log = await openLog();
      const topic = topicName();
      const calls = Array.from({ length: 8 }, (_, call) => messages(`c${call}-`, 5));
      await Promise.all(calls.map((batch) => log.publish(topic, batch)));
      const c = collector();
      await subscribe(log, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= 40, { timeoutMs, what: '40 records' });
      const keys = c.records.map((r) => r.key);
      for (const batch of calls) {
        const at = keys.indexOf(batch[0]!.key);
        expect(keys.slice(at, at + 5)).toEqual(batch.map((m) => m.key));
      }
    });

    it('starts a new group at the beginning by default', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('b', 2));
      const c = collector();
      await subscribe(log, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= 2, { timeoutMs, what: '2 records' });
      expect(values(c.records)).toEqual(messages('b', 2).map((m) => m.value));
    });

    it('starts a new group after the existing records when fromBeginning is false', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('old', 3));
      const c = collector();
      await subscribe(log, { topic, group: groupName(), fromBeginning: false }, c.handler);
      let marker = 0;
      await waitFor(
        async () => {
          if (c.records.length > 0) return true;
          await log.publish(topic, [{ key: `new${marker}`, value: { n: marker, tag: 'new' } }]);
          marker++;
          return false;
        },
        { timeoutMs, intervalMs: 50, what: 'a record published after subscribing' },
      );
      expect(c.records.every((r) => (r.value as { tag: string }).tag === 'new')).toBe(true);
    });

    it('gives every group all the records, independently of the others', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('g', 4));
      const first = collector();
      const second = collector();
      await subscribe(log, { topic, group: groupName() }, first.handler);
      await waitFor(() => first.records.length >= 4, { timeoutMs, what: 'the first group' });
      await subscribe(log, { topic, group: groupName() }, second.handler);
      await waitFor(() => second.records.length >= 4, { timeoutMs, what: 'the second group' });
      expect(values(second.records)).toEqual(values(first.records));
    });

    it('resumes a group after its committed position when the log is opened again', async () => {
      const topic = topicName();
      const group = groupName();
      const log1 = await openLog();
      await log1.publish(topic, messages('r', 3));
      const before = collector();
      const sub1 = await subscribe(log1, { topic, group }, before.handler);
      await waitFor(() => before.records.length >= 3, { timeoutMs, what: 'the first 3 records' });
      await stop(sub1);
      await expect(sub1.done).resolves.toBeUndefined();
      await closeLog(log1);

      const log2 = await openLog();
      expect(await log2.lastValue(topic)).toEqual(messages('r', 3)[2]!.value);
      await log2.publish(topic, messages('r', 2, 3));
      const after = collector();
      await subscribe(log2, { topic, group }, after.handler);
      await waitFor(() => after.records.length >= 2, { timeoutMs, what: 'the 2 new records' });
      // Delivery is ordered, so a redelivered old record would have come first.
      expect(values(after.records)).toEqual(messages('r', 2, 3).map((m) => m.value));
    });

    it('does not commit a batch whose handler threw, ends the subscription, and redelivers the batch', async () => {
      const topic = topicName();
      const group = groupName();
      const log1 = await openLog();
      await log1.publish(topic, messages('x', 3));
      let calls = 0;
      const failing = await subscribe(log1, { topic, group }, async () => {
        calls++;
        throw new Error('handler failed');
      });
      await expect(failing.done).rejects.toThrow('handler failed');
      expect(calls).toBe(1);
      await closeLog(log1);

      const log2 = await openLog();
      const c = collector();
      await subscribe(log2, { topic, group }, c.handler);
      await waitFor(() => c.records.length >= 3, { timeoutMs, what: 'the redelivered records' });
      expect(values(c.records)).toEqual(messages('x', 3).map((m) => m.value));
    });

    it('stop() lets the batch in hand finish and commits it', async () => {
      const topic = topicName();
      const group = groupName();
      const log1 = await openLog();
      await log1.publish(topic, messages('s', 2));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seen: LogRecord[] = [];
      let finished = false;
      const sub = await subscribe(log1, { topic, group }, async (batch) => {
        seen.push(...batch);
        await gate;
        finished = true;
      });
      await waitFor(() => seen.length > 0, { timeoutMs, what: 'the handler to start' });
      const stopping = stop(sub);
      release();
      await stopping;
      expect(finished).toBe(true);
      await expect(sub.done).resolves.toBeUndefined();

      // Whatever the stopped consumer had in hand is committed: the next one starts after it.
      await log1.publish(topic, messages('s', 1, 2));
      const c = collector();
      await subscribe(log1, { topic, group }, c.handler);
      await waitFor(() => c.records.length > 0 && values(c.records).some((v) => (v as { n: number }).n === 2), {
        timeoutMs,
        what: 'the record after the committed ones',
      });
      const redelivered = values(c.records).filter((v) =>
        values(seen).some((s) => JSON.stringify(s) === JSON.stringify(v)),
      );
      expect(redelivered).toEqual([]);
    });

    it('stop() ends an idle subscription, and done resolves', async () => {
      const log = await openLog();
      const topic = topicName();
      const sub = await subscribe(log, { topic, group: groupName() }, async () => {});
      await stop(sub);
      await expect(sub.done).resolves.toBeUndefined();
    });

    it('publish is durable: a new instance sees the records', async () => {
      const topic = topicName();
      const log1 = await openLog();
      await log1.publish(topic, messages('d', 3));
      await closeLog(log1);
      const log2 = await openLog();
      expect(await log2.lastValue(topic)).toEqual(messages('d', 3)[2]!.value);
      const c = collector();
      await subscribe(log2, { topic, group: groupName() }, c.handler);
      await waitFor(() => c.records.length >= 3, { timeoutMs, what: '3 records' });
      expect(values(c.records)).toEqual(messages('d', 3).map((m) => m.value));
    });

    it('reports the end offset of a topic: 0 when empty, the next offset to be written after publishes', async () => {
      const log = await openLog();
      const topic = topicName();
      expect(await log.endOffset(topic)).toBe('0');
      await log.publish(topic, messages('e', 3));
      await log.publish(topic, messages('e', 2, 3));
      expect(await log.endOffset(topic)).toBe('5');
    });

    it('reads from an offset without a group, then what is appended, committing nothing', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('o', 6));
      const c = collector();
      const reader = await log.read({ topic, from: '2' }, c.handler);
      await waitFor(() => c.records.length >= 4, { timeoutMs, what: 'records 2 to 5' });
      await log.publish(topic, messages('o', 2, 6));
      await waitFor(() => c.records.length >= 6, { timeoutMs, what: 'the appended records' });
      expect(values(c.records)).toEqual(messages('o', 6, 2).map((m) => m.value));
      expect(c.records.map((r) => r.offset)).toEqual(['2', '3', '4', '5', '6', '7']);
      await reader.stop();
      await expect(reader.done).resolves.toBeUndefined();
      // A second reader from the same offset gets the same records: the first one moved nothing.
      const again = collector();
      const second = await log.read({ topic, from: '2', maxBatch: 2 }, again.handler);
      await waitFor(() => again.records.length >= 6, { timeoutMs, what: 'the same records again' });
      expect(values(again.records)).toEqual(values(c.records));
      expect(again.batches.every((n) => n >= 1 && n <= 2)).toBe(true);
      await second.stop();
    });

    it('reads only what is appended when started at or past the end offset', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('p', 3));
      const c = collector();
      const reader = await log.read({ topic, from: '9' }, c.handler);
      let marker = 0;
      await waitFor(
        async () => {
          if (c.records.length > 0) return true;
          await log.publish(topic, [{ key: `new${marker}`, value: { n: marker, tag: 'new' } }]);
          marker++;
          return false;
        },
        { timeoutMs, intervalMs: 100, what: 'a record appended after the reader started' },
      );
      expect(c.records.every((r) => (r.value as { tag: string }).tag === 'new')).toBe(true);
      expect(c.records[0]!.offset).toBe('3');
      await reader.stop();
    });

    it('ends a reader whose handler threw, with done rejecting', async () => {
      const log = await openLog();
      const topic = topicName();
      await log.publish(topic, messages('f', 2));
      const reader = await log.read({ topic, from: '0' }, async () => {
        throw new Error('reader failed');
      });
      await expect(reader.done).rejects.toThrow('reader failed');
      await reader.stop();
    });

    it("reports a group's lag: everything before it consumes, nothing once it committed all", async () => {
      const log = await openLog();
      const topic = topicName();
      const group = groupName();
      await log.publish(topic, messages('l', 3));
      const total = async (): Promise<number> => (await log.lag(topic, group)).reduce((sum, p) => sum + p.lag, 0);
      expect(await total()).toBe(3);
      const c = collector();
      const sub = await subscribe(log, { topic, group }, c.handler);
      await waitFor(async () => (await total()) === 0, { timeoutMs, what: 'the lag to reach 0' });
      await stop(sub);
      await log.publish(topic, messages('l', 2, 3));
      expect(await total()).toBe(2);
    });
  });
}
