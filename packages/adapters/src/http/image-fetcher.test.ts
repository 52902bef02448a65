import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ImageFetcher, ImageOk } from '@mtc/ports';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createImageFetcher,
  isPublicAddress,
  sniffImageType,
  type AllowedHost,
  type ImageCache,
  type ImageFetcherOptions,
  type Resolve,
} from './image-fetcher.ts';

/** A real HTTP server on loopback that counts what reaches it and how each answer ended. */
interface TestHost {
  port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string, hostname?: string): string;
  /** Requests that reached the server, in order. */
  requests: IncomingMessage[];
  /** TCP connections the server accepted. */
  connections: number;
  /** Per answer: resolves when its stream closes; `finished` false when it was cut before its end. */
  answers: Promise<{ finished: boolean; sent: number }>[];
  allow(): AllowedHost;
}

type Handler = (req: IncomingMessage, res: ServerResponse, host: TestHost) => void;

const servers: { close(): void }[] = [];
const fetchers: ImageFetcher[] = [];

afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((f) => f.close()));
  for (const server of servers.splice(0)) server.close();
});

async function startHost(handler: Handler): Promise<TestHost> {
  const requests: IncomingMessage[] = [];
  const answers: TestHost['answers'] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    let sent = 0;
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) sent += chunk.length;
      return write(chunk, ...rest);
    }) as typeof res.write;
    answers.push(once(res, 'close').then(() => ({ finished: res.writableFinished, sent })));
    handler(req, res, host);
  });
  server.on('connection', () => host.connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  servers.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  const host: TestHost = {
    port,
    url: (path = '/', hostname = '127.0.0.1') => `http://${hostname}:${port}${path}`,
    requests,
    connections: 0,
    answers,
    allow: () => ({ hostname: '127.0.0.1', port }),
  };
  return host;
}

function fetcher(options: ImageFetcherOptions): ImageFetcher {
  const created = createImageFetcher({ timeoutMs: 2000, failureTtlMs: 0, ...options });
  fetchers.push(created);
  return created;
}

/** Resolves the `.test` names it is given to their address (or addresses, in order), and counts its calls. */
function fakeDns(names: Record<string, string | readonly string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answer = names[hostname];
    if (answer === undefined) throw Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof answer === 'string' ? [answer] : answer;
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

/** A host whose answers `slow` holds, and one that serves a PNG at once, named slow.test and fast.test. */
async function slowAndFast(slow: Handler) {
  const hosts = { slow: await startHost(slow), fast: await startHost(serve(png, 'image/png')) };
  const names: ImageFetcherOptions = {
    resolve: fakeDns({ 'slow.test': '127.0.0.1', 'fast.test': '127.0.0.1' }),
    allowHosts: [
      { hostname: 'slow.test', port: hosts.slow.port },
      { hostname: 'fast.test', port: hosts.fast.port },
    ],
  };
  return { ...hosts, names };
}

const serve =
  (bytes: Uint8Array, contentType: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  };

const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
/** A 4×4 red square, as PNG and as JPEG. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEElEQVQImWM4wcUFRwzEcQBxow3BEaUw2QAAAABJRU5ErkJggg==',
  'base64',
);
const jpeg = Buffer.from(
  '/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAEAAQDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABgf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCXADS2v//Z',
  'base64',
);

/** Fails the test unless `promise` settles within `ms`; returns its value and how long it took. */
async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - start };
}

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::7f00:1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    '2001:0:4136:e378::',
    '2001:db8::1',
    'fec0::1',
    '[::1]',
    'not-an-ip',
    '0x7f.1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '::ffff:8.8.8.8', '2001:4860:4860::8888', '[2606:4700::1111]'])(
    'accepts %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('sniffImageType', () => {
  it('tells PNG, JPEG, GIF and WebP apart by their first bytes', () => {
    expect(sniffImageType(png)).toBe('image/png');
    expect(sniffImageType(jpeg)).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('image/webp');
  });

  it('recognises no SVG, HTML, RIFF other than WebP or short input', () => {
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImageType(Buffer.from('<!doctype html><html>'))).toBeNull();
    expect(sniffImageType(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'))).toBeNull();
    expect(sniffImageType(PNG_SIGNATURE.subarray(0, 4))).toBeNull();
  });
});

describe('createImageFetcher', () => {
  it('serves an allow-listed loopback host with the type sniffed from the bytes', async () => {
    const host = await startHost(serve(png, 'text/plain'));
    const result = await fetcher({ allowHosts: [host.allow()] }).fetch(host.url('/a.png'));
    expect(result).toEqual({ ok: true, bytes: Buffer.from(png), contentType: 'image/png' });
    expect(host.requests).toHaveLength(1);
  });

  it('serves JPEG labelled as anything', async () => {
    const host = await startHost(serve(jpeg, 'application/octet-stream'));
    const result = await fetcher({ allowHosts: [host.allow()] }).fetch(host.url('/a.jpg'));
    expect(result).toMatchObject({ ok: true, contentType: 'image/jpeg' });
  });

  it('allows a host entry without a port on any port, and no other port for a host:port entry', async () => {
    const host = await startHost(serve(png, 'image/png'));
    expect(await fetcher({ allowHosts: [{ hostname: '127.0.0.1', port: null }] }).fetch(host.url())).toMatchObject({
      ok: true,
    });
    const other = fetcher({ allowHosts: [{ hostname: '127.0.0.1', port: host.port + 1 }] });
    expect(await other.fetch(host.url('/b'))).toMatchObject({ status: 404, code: 'forbidden_target' });
    expect(host.requests).toHaveLength(1);
  });

  it.each([
    ['dotted', (port: number) => `http://127.0.0.1:${port}/a.png`],
    ['decimal', (port: number) => `http://2130706433:${port}/a.png`],
    ['hex and short', (port: number) => `http://0x7f.1:${port}/a.png`],
    ['IPv4-mapped IPv6', (port: number) => `http://[::ffff:127.0.0.1]:${port}/a.png`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/a.png`],
    ['unspecified', (port: number) => `http://0.0.0.0:${port}/a.png`],
  ])('refuses loopback that is not allow-listed (%s) without connecting', async (_name, url) => {
    const host = await startHost(serve(png, 'image/png'));
    const result = await fetcher({}).fetch(url(host.port));
    expect(result).toEqual({
      ok: false,
      status: 404,
      code: 'forbidden_target',
      message: expect.stringMatching(/is not a host images are fetched from/) as unknown,
    });
    expect(host.requests).toHaveLength(0);
    expect(host.connections).toBe(0);
  });

  it('refuses a name that resolves to a private address, resolving it once and connecting to nothing', async () => {
    const host = await startHost(serve(png, 'image/png'));
    const dns = fakeDns({ 'images.test': '127.0.0.1', 'mapped.test': '::ffff:127.0.0.1' });
    const images = fetcher({ resolve: dns });
    const result = await images.fetch(host.url('/a.png', 'images.test'));
    expect(result).toMatchObject({ status: 404, code: 'forbidden_target' });
    expect(result.ok || result.message).not.toMatch(/127\.0\.0\.1/);
    expect(await images.fetch(host.url('/a.png', 'mapped.test'))).toMatchObject({ code: 'forbidden_target' });
    expect(dns.calls).toEqual(['images.test', 'mapped.test']);
    expect(host.requests).toHaveLength(0);
    expect(host.connections).toBe(0);
  });

  it.each([
    ['a public address first, then loopback', ['8.8.8.8', '127.0.0.1']],
    ['loopback first, then a public address', ['127.0.0.1', '8.8.8.8']],
    ['a public address and a private one', ['1.1.1.1', '10.0.0.7']],
    ['a public IPv6 address and IPv6 loopback', ['2606:4700:4700::1111', '::1']],
  ])('refuses a name when any address it resolves to is not public (%s)', async (_name, addresses) => {
    const host = await startHost(serve(png, 'image/png'));
    const dns = fakeDns({ 'images.test': addresses });
    const result = await fetcher({ resolve: dns }).fetch(host.url('/a.png', 'images.test'));
    expect(result).toMatchObject({ ok: false, status: 404, code: 'forbidden_target' });
    expect(dns.calls).toEqual(['images.test']);
    expect(host.requests).toHaveLength(0);
    expect(host.connections).toBe(0);
  });

  it('refuses localhost through the system resolver', async () => {
    const host = await startHost(serve(png, 'image/png'));
    expect(await fetcher({}).fetch(host.url('/a.png', 'localhost'))).toMatchObject({
      status: 404,
      code: 'forbidden_target',
    });
    expect(host.requests).toHaveLength(0);
    expect(host.connections).toBe(0);
  });

  it('connects an allow-listed name to the address its lookup returned', async () => {
    const host = await startHost(serve(png, 'image/png'));
    const dns = fakeDns({ 'images.test': '127.0.0.1' });
    const images = fetcher({ resolve: dns, allowHosts: [{ hostname: 'images.test', port: host.port }] });
    expect(await images.fetch(host.url('/a.png', 'images.test'))).toMatchObject({ ok: true });
    expect(dns.calls).toEqual(['images.test']);
    expect(host.requests[0]?.headers.host).toBe(`images.test:${host.port}`);
  });

  it.each([
    ['', 'no_image'],
    ['   ', 'no_image'],
    ['ftp://127.0.0.1/a.png', 'unsupported_url'],
    ['file:///etc/passwd', 'unsupported_url'],
    ['data:image/png;base64,iVBORw0KGgo=', 'unsupported_url'],
    ['javascript:alert(1)', 'unsupported_url'],
    ['/relative/a.png', 'unsupported_url'],
    ['http://user:secret@images.test/a.png', 'unsupported_url'],
  ])('answers 404 for "%s" (%s)', async (url, code) => {
    const dns = fakeDns({});
    expect(await fetcher({ resolve: dns }).fetch(url)).toMatchObject({ ok: false, status: 404, code });
    expect(dns.calls).toHaveLength(0);
  });

  it('refuses credentials even for an allow-listed host', async () => {
    const host = await startHost(serve(png, 'image/png'));
    const url = `http://user:pw@127.0.0.1:${host.port}/a.png`;
    expect(await fetcher({ allowHosts: [host.allow()] }).fetch(url)).toMatchObject({ code: 'unsupported_url' });
    expect(host.requests).toHaveLength(0);
    expect(host.connections).toBe(0);
  });

  it('answers 502 within the deadline when the headers come late', async () => {
    const host = await startHost((_req, res) => {
      setTimeout(() => serve(png, 'image/png')(_req, res, host), 5000).unref();
    });
    const { value, ms } = await timed(fetcher({ allowHosts: [host.allow()], timeoutMs: 300 }).fetch(host.url()));
    expect(value).toMatchObject({ status: 502, code: 'timeout' });
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(300 + 250);
  });

  it('cuts a slow-drip body at the deadline', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(png.subarray(0, 16));
      const drip = setInterval(() => res.write(Uint8Array.of(0)), 20);
      res.on('close', () => clearInterval(drip));
    });
    const { value, ms } = await timed(fetcher({ allowHosts: [host.allow()], timeoutMs: 300 }).fetch(host.url()));
    expect(value).toMatchObject({ status: 502, code: 'timeout' });
    expect(ms).toBeLessThan(300 + 250);
    expect((await host.answers[0])?.finished).toBe(false);
  });

  it('refuses on Content-Length before reading a body over the cap', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 2048 + 1 });
      res.write(png.subarray(0, 16));
    });
    const result = await fetcher({ allowHosts: [host.allow()], maxBytes: 2048 }).fetch(host.url());
    expect(result).toMatchObject({ status: 502, code: 'too_large' });
    expect(await host.answers[0]).toMatchObject({ finished: false, sent: 16 });
  });

  it('cuts a body with no Content-Length once it passes the cap', async () => {
    const chunk = new Uint8Array(1024);
    chunk.set(png.subarray(0, 16));
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      // Streams until the client goes away: 1 KiB every millisecond, for ever.
      const pump = setInterval(() => res.write(chunk), 1);
      res.on('close', () => clearInterval(pump));
    });
    const { value, ms } = await timed(
      fetcher({ allowHosts: [host.allow()], maxBytes: 8 * 1024, timeoutMs: 5000 }).fetch(host.url()),
    );
    expect(value).toMatchObject({ status: 502, code: 'too_large' });
    expect(ms).toBeLessThan(2000);
    const answer = await host.answers[0];
    expect(answer?.finished).toBe(false);
    // What socket buffers held when the client hung up, not the whole stream.
    expect(answer?.sent).toBeLessThan(1024 * 1024);
  });

  it('stops reading a body that is no image once its first bytes are in', async () => {
    const page = Buffer.alloc(1024, '<p>not an image</p>');
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const pump = setInterval(() => res.write(page), 1);
      res.on('close', () => clearInterval(pump));
    });
    const images = fetcher({ allowHosts: [host.allow()], maxBytes: 5 * 2 ** 20, timeoutMs: 5000 });
    const { value, ms } = await timed(images.fetch(host.url()));
    expect(value).toMatchObject({ status: 502, code: 'not_an_image' });
    expect(ms).toBeLessThan(1000);
    expect((await host.answers[0])?.finished).toBe(false);
  });

  it('serves an image of exactly the cap', async () => {
    const body = new Uint8Array(4096);
    body.set(png.subarray(0, 16));
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(body);
    });
    expect(await fetcher({ allowHosts: [host.allow()], maxBytes: 4096 }).fetch(host.url())).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ['HTML labelled image/png', '<!doctype html><html><body>not an image</body></html>', 'image/png'],
    ['SVG', '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', 'image/svg+xml'],
    ['an empty body', '', 'image/png'],
  ])('answers 502 for %s', async (_name, text, contentType) => {
    const host = await startHost(serve(Buffer.from(text), contentType));
    expect(await fetcher({ allowHosts: [host.allow()] }).fetch(host.url())).toMatchObject({
      status: 502,
      code: 'not_an_image',
    });
  });

  it('answers 502 when the host answers 500, and remembers it for a while', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(500);
      res.end('boom');
    });
    const images = fetcher({ allowHosts: [host.allow()], failureTtlMs: 60_000 });
    expect(await images.fetch(host.url('/a.png'))).toMatchObject({
      status: 502,
      code: 'upstream_status',
      message: 'the image host answered 500',
    });
    expect(await images.fetch(host.url('/a.png'))).toMatchObject({ code: 'upstream_status' });
    expect(host.requests).toHaveLength(1);
    // A 500 is the URL's failure, not the host's: another URL there is asked.
    await images.fetch(host.url('/b.png'));
    expect(host.requests).toHaveLength(2);
  });

  it('remembers an unreachable host for every URL on it until the memory expires', async () => {
    const host = await startHost((_req, res) => {
      setTimeout(() => serve(png, 'image/png')(_req, res, host), 5000).unref();
    });
    const images = fetcher({ allowHosts: [host.allow()], failureTtlMs: 60_000, timeoutMs: 200 });
    expect(await images.fetch(host.url('/a.png'))).toMatchObject({ code: 'timeout' });
    const { value, ms } = await timed(images.fetch(host.url('/b.png')));
    expect(value).toMatchObject({ status: 502, code: 'timeout' });
    expect(ms).toBeLessThan(100);
    expect(host.requests).toHaveLength(1);
  });

  it('asks a failed host again once its failure has expired', async () => {
    let failing = true;
    const host = await startHost((req, res) => {
      if (failing) res.destroy();
      else serve(png, 'image/png')(req, res, host);
    });
    const images = fetcher({ allowHosts: [host.allow()], failureTtlMs: 200 });
    expect(await images.fetch(host.url('/a.png'))).toMatchObject({ code: 'unreachable' });
    failing = false;
    // Other URLs on the host are answered from its memory, which they do not extend.
    let n = 0;
    await expect
      .poll(() => images.fetch(host.url(`/${++n}.png`)), { timeout: 2000, interval: 20 })
      .toMatchObject({ ok: true });
    expect(n).toBeGreaterThan(1);
    expect(host.requests).toHaveLength(2);
  });

  describe('redirects', () => {
    /** `/hop/<n>` redirects to `/hop/<n-1>`; `/hop/0` is the image. */
    const hops: Handler = (req, res) => {
      const n = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      if (n === 0) return serve(png, 'image/png')(req, res, undefined as never);
      res.writeHead(n % 2 === 0 ? 302 : 301, { location: `/hop/${n - 1}` });
      res.end();
    };

    it('follows up to 3 redirects', async () => {
      const host = await startHost(hops);
      expect(await fetcher({ allowHosts: [host.allow()] }).fetch(host.url('/hop/3'))).toMatchObject({ ok: true });
      expect(host.requests.map((r) => r.url)).toEqual(['/hop/3', '/hop/2', '/hop/1', '/hop/0']);
    });

    it('answers 502 at the 4th redirect without following it', async () => {
      const host = await startHost(hops);
      expect(await fetcher({ allowHosts: [host.allow()] }).fetch(host.url('/hop/4'))).toMatchObject({
        status: 502,
        code: 'too_many_redirects',
      });
      expect(host.requests.map((r) => r.url)).toEqual(['/hop/4', '/hop/3', '/hop/2', '/hop/1']);
    });

    it('follows a redirect to another allowed host', async () => {
      const target = await startHost(serve(png, 'image/png'));
      const dns = fakeDns({ 'images.test': '127.0.0.1' });
      const origin = await startHost((_req, res) => {
        res.writeHead(307, { location: target.url('/a.png', 'images.test') });
        res.end();
      });
      const images = fetcher({
        resolve: dns,
        allowHosts: [origin.allow(), { hostname: 'images.test', port: target.port }],
      });
      expect(await images.fetch(origin.url())).toMatchObject({ ok: true, contentType: 'image/png' });
      expect(target.requests).toHaveLength(1);
    });

    it.each([
      ['a loopback address', (port: number) => `http://127.0.0.1:${port}/a.png`],
      ['a name resolving to loopback', (port: number) => `http://images.test:${port}/a.png`],
      ['an IPv4-mapped loopback', (port: number) => `http://[::ffff:7f00:1]:${port}/a.png`],
    ])('answers 404 for a redirect to %s that is not allowed, and never reaches it', async (_name, to) => {
      const target = await startHost(serve(png, 'image/png'));
      const origin = await startHost((_req, res) => {
        res.writeHead(302, { location: to(target.port) });
        res.end();
      });
      const images = fetcher({ resolve: fakeDns({ 'images.test': '127.0.0.1' }), allowHosts: [origin.allow()] });
      expect(await images.fetch(origin.url())).toMatchObject({ status: 404, code: 'forbidden_target' });
      expect(origin.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
      expect(target.connections).toBe(0);
    });

    it('answers 404 for a redirect to file:', async () => {
      const origin = await startHost((_req, res) => {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      });
      expect(await fetcher({ allowHosts: [origin.allow()] }).fetch(origin.url())).toMatchObject({
        status: 404,
        code: 'unsupported_url',
      });
    });
  });

  it('makes one upstream request for concurrent fetches of one URL', async () => {
    const held: ServerResponse[] = [];
    const host = await startHost((_req, res) => void held.push(res));
    const images = fetcher({ allowHosts: [host.allow()] });
    const first = images.fetch(host.url('/a.png'));
    const second = images.fetch(` ${host.url('/a.png')}`);
    await expect.poll(() => held.length).toBe(1);
    const res = held[0]!;
    res.writeHead(200);
    res.end(png);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toBe(a);
    expect(host.requests).toHaveLength(1);
  });

  it('fails a fetch over the per-host limit within its wait, while another host is served promptly', async () => {
    const held: ServerResponse[] = [];
    let holding = true;
    const { slow, fast, names } = await slowAndFast((_req, res) => (holding ? void held.push(res) : res.end(png)));
    const images = fetcher({
      ...names,
      maxPerHost: 2,
      slotWaitMs: 100,
      timeoutMs: 5000,
      failureTtlMs: 60_000,
    });
    const first = [images.fetch(slow.url('/1', 'slow.test')), images.fetch(slow.url('/2', 'slow.test'))];
    await expect.poll(() => held.length).toBe(2);

    const extra = await timed(images.fetch(slow.url('/3', 'slow.test')));
    expect(extra.value).toMatchObject({ status: 502, code: 'busy' });
    expect(extra.ms).toBeGreaterThanOrEqual(90);
    expect(extra.ms).toBeLessThan(100 + 200);
    expect(slow.requests).toHaveLength(2);

    const other = await timed(images.fetch(fast.url('/a.png', 'fast.test')));
    expect(other.value).toMatchObject({ ok: true });
    expect(other.ms).toBeLessThan(300);

    holding = false;
    for (const res of held) res.end(png);
    for (const result of await Promise.all(first)) expect(result).toMatchObject({ ok: true });
    // Busy is not remembered: the host is asked again once it has room.
    expect(await images.fetch(slow.url('/3', 'slow.test'))).toMatchObject({ ok: true });
  });

  it('keeps fetches waiting on a busy host out of the overall slots', async () => {
    const held: ServerResponse[] = [];
    const { slow, fast, names } = await slowAndFast((_req, res) => void held.push(res));
    const images = fetcher({
      ...names,
      maxInFlight: 2,
      maxPerHost: 1,
      slotWaitMs: 1000,
    });
    const first = images.fetch(slow.url('/1', 'slow.test'));
    await expect.poll(() => held.length).toBe(1);
    const waiting = images.fetch(slow.url('/2', 'slow.test'));
    expect(await images.fetch(fast.url('/a.png', 'fast.test'))).toMatchObject({ ok: true });
    held[0]!.end(png);
    await expect.poll(() => held.length).toBe(2);
    held[1]!.end(png);
    expect(await first).toMatchObject({ ok: true });
    expect(await waiting).toMatchObject({ ok: true });
  });

  it('gives a waiting fetch the slot a finished one frees', async () => {
    const held: ServerResponse[] = [];
    const host = await startHost((_req, res) => void held.push(res));
    const images = fetcher({ allowHosts: [host.allow()], maxPerHost: 1, slotWaitMs: 1000 });
    const first = images.fetch(host.url('/1'));
    await expect.poll(() => held.length).toBe(1);
    const second = images.fetch(host.url('/2'));
    held[0]!.end(png);
    await expect.poll(() => held.length).toBe(2);
    held[1]!.end(jpeg);
    expect(await first).toMatchObject({ contentType: 'image/png' });
    expect(await second).toMatchObject({ contentType: 'image/jpeg' });
  });

  it('holds every host to the overall limit', async () => {
    const held: ServerResponse[] = [];
    const { slow, fast, names } = await slowAndFast((_req, res) => void held.push(res));
    const images = fetcher({
      ...names,
      maxInFlight: 1,
      slotWaitMs: 50,
    });
    const holding = images.fetch(slow.url('/1', 'slow.test'));
    await expect.poll(() => held.length).toBe(1);
    expect(await images.fetch(fast.url('/a.png', 'fast.test'))).toMatchObject({ code: 'busy' });
    expect(fast.requests).toHaveLength(0);
    held[0]!.end(png);
    await holding;
    expect(await images.fetch(fast.url('/a.png', 'fast.test'))).toMatchObject({ ok: true });
  });

  it('puts successes through the cache seam and answers from it', async () => {
    const host = await startHost(serve(png, 'image/png'));
    const stored = new Map<string, ImageOk>();
    const cache: ImageCache = {
      get: async (url) => stored.get(url) ?? null,
      put: async (url, image) => void stored.set(url, image),
    };
    const url = host.url('/a.png');
    const first = await fetcher({ allowHosts: [host.allow()], cache }).fetch(url);
    expect(first).toMatchObject({ ok: true });
    await expect.poll(() => stored.get(url)).toBe(first);
    const again = await fetcher({ allowHosts: [host.allow()], cache }).fetch(url);
    expect(again).toBe(first);
    expect(host.requests).toHaveLength(1);
  });

  it('serves the image even when the cache write fails', async () => {
    const host = await startHost(serve(png, 'image/png'));
    const cache: ImageCache = {
      get: async () => null,
      put: async () => {
        throw new Error('store down');
      },
    };
    expect(await fetcher({ allowHosts: [host.allow()], cache }).fetch(host.url())).toMatchObject({ ok: true });
  });
});
