import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect } from 'node:net';
import { pino, type Logger } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { describeWithInfra, uniqueName, waitFor } from '../contract/index.ts';
import { createRedisRateLimitBuckets, type RedisRateLimitBuckets } from './redis-rate-limit.ts';

interface LogLine {
  level: number;
  msg: string;
  component?: string;
}

/** A logger that keeps what it writes, as parsed lines. */
function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

/** A port nothing listens on: one the kernel just handed out and took back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP relay in front of Redis that can stall: while stalled it holds the bytes both ways (the
 * connection stays up), as a Redis that is alive but too slow; on resume it delivers them in order,
 * so the commands held back are run late.
 */
async function stallableRelay(
  target: URL,
): Promise<{ url: string; stall(): void; resume(): void; close(): Promise<void> }> {
  let stalled = false;
  const held: { to: Socket; data: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (data) => (stalled ? held.push({ to: upstream, data }) : upstream.write(data)));
    upstream.on('data', (data) => (stalled ? held.push({ to: client, data }) : client.write(data)));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: () => void (stalled = true),
    resume() {
      stalled = false;
      for (const { to, data } of held.splice(0)) to.write(data);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Settles `promise` or fails after `ms`: proves a call is bounded without timing it. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describeWithInfra('Redis rate-limit buckets', ['REDIS_URL'], ({ REDIS_URL }) => {
  const opened: RedisRateLimitBuckets[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });

  async function open(
    options: { url?: string; prefix?: string; points?: number; windowS?: number; logger?: Logger } = {},
  ): Promise<RedisRateLimitBuckets> {
    const buckets = await createRedisRateLimitBuckets({
      url: options.url ?? REDIS_URL,
      prefix: options.prefix ?? `${uniqueName('test')}:`,
      points: options.points ?? 5,
      windowS: options.windowS ?? 60,
      timeoutMs: 200,
      logger: options.logger ?? pino({ level: 'silent' }),
    });
    opened.push(buckets);
    return buckets;
  }

  it('takes each cost from the key’s bucket and refuses once it holds too few points', async () => {
    const buckets = await open({ points: 5, windowS: 60 });
    const first = await buckets.take('198.51.100.1', 2);
    expect(first).toMatchObject({ taken: true, remaining: 3 });
    expect(first.resetMs).toBeGreaterThan(0);
    expect(first.resetMs).toBeLessThanOrEqual(60_000);
    expect(await buckets.take('198.51.100.1', 3)).toMatchObject({ taken: true, remaining: 0 });
    const refused = await buckets.take('198.51.100.1', 1);
    expect(refused).toMatchObject({ taken: false, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(0);
    expect(await buckets.take('198.51.100.2', 1)).toMatchObject({ taken: true, remaining: 4 });
  });

  it('shares one bucket between two replicas with the same prefix, and none across prefixes', async () => {
    const prefix = `${uniqueName('test')}:`;
    const a = await open({ prefix, points: 5 });
    const b = await open({ prefix, points: 5 });
    const elsewhere = await open({ points: 5 });
    expect(await a.take('client', 3)).toMatchObject({ taken: true, remaining: 2 });
    expect(await b.take('client', 2)).toMatchObject({ taken: true, remaining: 0 });
    expect(await a.take('client', 1)).toMatchObject({ taken: false });
    expect(await b.take('client', 1)).toMatchObject({ taken: false });
    expect(await elsewhere.take('client', 1)).toMatchObject({ taken: true, remaining: 4 });
  });

  it('fills the bucket again once the window has passed', async () => {
    const buckets = await open({ points: 1, windowS: 1 });
    expect(await buckets.take('client', 1)).toMatchObject({ taken: true });
    expect(await buckets.take('client', 1)).toMatchObject({ taken: false });
    await waitFor(async () => (await buckets.take('client', 1)).taken, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the bucket to refill',
    });
  });

  it('limits from memory when Redis is unreachable, never throws, and logs the outage once', async () => {
    const { logger, lines } = capturingLogger();
    const buckets = await within(10_000, open({ url: `redis://127.0.0.1:${await freePort()}`, points: 3, logger }));
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await within(5_000, buckets.take('client', 1)));
    expect(answers.map((a) => a.taken)).toEqual([true, true, true, false, false, false]);
    expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0, 0, 0, 0]);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.component).toBe('rate-limit');
    expect(warnings[0]?.msg).toContain('unavailable');
  });

  it('answers from memory while Redis stalls, logs it once, and shares again once Redis answers', async () => {
    const { logger, lines } = capturingLogger();
    const relay = await stallableRelay(new URL(REDIS_URL));
    cleanups.push(() => relay.close());
    const prefix = `${uniqueName('test')}:`;
    const viaRelay = await open({ url: relay.url, prefix, points: 10, logger });
    const direct = await open({ prefix, points: 10 });

    expect(await viaRelay.take('client', 1)).toMatchObject({ taken: true, remaining: 9 });
    relay.stall();
    // Bounded by the 200 ms command timeout; without it these would wait for ever.
    expect(await within(5_000, viaRelay.take('client', 1))).toMatchObject({ taken: true, remaining: 9 });
    expect(await within(5_000, viaRelay.take('client', 1))).toMatchObject({ taken: true, remaining: 8 });
    // The shared bucket only saw the first take, and its own.
    expect(await direct.take('client', 1)).toMatchObject({ taken: true, remaining: 8 });
    expect(lines.filter((line) => line.level === 40)).toHaveLength(1);

    relay.resume();
    // The held commands now run late (their takes already answered from memory). The next take
    // that Redis answers in time tells the replica it can share buckets again.
    let probe = 0;
    await waitFor(
      async () => {
        await viaRelay.take(`probe-${probe++}`, 1);
        return lines.some((line) => line.level === 30 && line.msg.includes('is back'));
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the recovery to be logged' },
    );
    expect(lines.filter((line) => line.level === 40)).toHaveLength(1);
    // 10 points − the first take, the two held ones run late, the direct one, and this one.
    expect(await viaRelay.take('client', 1)).toMatchObject({ taken: true, remaining: 5 });
  });
});
