import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

/** An echo server that counts the connections it accepted. */
async function startEcho(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let accepted = 0;
  const server = createServer((s) => {
    accepted++;
    s.on('error', () => {});
    s.pipe(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { server, port: address.port, accepted: () => accepted };
}

/** A client that collects what it receives. */
async function client(proxy: TcpProxy): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect({ host: proxy.host, port: proxy.port });
  socket.on('error', () => {});
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, received: () => got };
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Long enough for a byte to cross loopback many times over: absence cannot be waited for. */
const QUIET_MS = 300;
const quiet = () => new Promise((r) => setTimeout(r, QUIET_MS));

describe('startTcpProxy', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function setup() {
    const echo = await startEcho();
    cleanup.push(() => new Promise<void>((r) => echo.server.close(() => r())));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echo.port });
    cleanup.push(() => proxy.close());
    return { echo, proxy };
  }

  it('passes bytes both ways while not frozen', async () => {
    const { proxy } = await setup();
    const c = await client(proxy);
    cleanup.push(() => void c.socket.destroy());
    c.socket.write('ping');
    await until('the echo', () => c.received() === 'ping');
    expect(proxy.stats()).toMatchObject({ connections: 1, open: 1, held: 0, freezes: 0 });
  });

  it('keeps a frozen connection open but silent, and delivers what it held on thaw', async () => {
    const { proxy } = await setup();
    const c = await client(proxy);
    cleanup.push(() => void c.socket.destroy());
    c.socket.write('a');
    await until('the first echo', () => c.received() === 'a');
    proxy.freeze();
    c.socket.write('b');
    await quiet();
    expect(c.received()).toBe('a');
    expect(c.socket.destroyed).toBe(false);
    expect(proxy.stats().frozenMs).toBeGreaterThanOrEqual(QUIET_MS - 50);
    proxy.thaw();
    await until('the held echo', () => c.received() === 'ab');
  });

  it('holds connections made while frozen away from the server until the thaw', async () => {
    const { echo, proxy } = await setup();
    proxy.freeze();
    const c = await client(proxy);
    cleanup.push(() => void c.socket.destroy());
    c.socket.write('held');
    await quiet();
    expect(echo.accepted()).toBe(0);
    expect(c.received()).toBe('');
    proxy.thaw();
    await until('the held connection to reach the server', () => echo.accepted() === 1);
    await until('its echo', () => c.received() === 'held');
    expect(proxy.stats()).toMatchObject({ connections: 1, held: 1, freezes: 1 });
  });

  it('rewrites a server URL to point at the proxy', async () => {
    const { proxy } = await setup();
    expect(proxy.rewrite('mongodb://10.0.0.1:27017/db?x=1')).toBe(`mongodb://127.0.0.1:${proxy.port}/db?x=1`);
    expect(proxy.rewrite('redis://10.0.0.1:6379')).toBe(`redis://127.0.0.1:${proxy.port}`);
  });
});
