import { connect } from 'node:net';
import { createMemoryReadStore } from '@mtc/adapters';
import type { Collection, Doc, ReadStore } from '@mtc/ports';
import { COLLECTIONS } from '@mtc/read-models';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from './app.ts';
import type { ApiConfig } from './config.ts';
import { ErrorBody } from './errors.ts';
import { createNftImageFetcher } from './nft-images.ts';
import { MAX_MRC402_HOLDINGS } from './routes/addresses/schemas.ts';
import { TOKEN_HISTORY_MAX } from './routes/tokens/schemas.ts';
import {
  ALICE,
  badChecksum,
  buildChain,
  createChain,
  fakeChain,
  fakeCounters,
  projectChain,
  startTestApi,
  testConfig,
} from './testing/harness.ts';

/**
 * The API against hostile input, on a real socket through `startApi` (the server's own limits and
 * parser-error answers included): every refusal is the right 4xx in the error shape, says nothing of
 * the server's insides, and the server goes on serving.
 */

const fixture = buildChain(5);
const TX = fixture.txs[0]!.id;
/** ALICE with its last checksum character changed: 40 characters of the right form, a wrong CRC-32. */
const BAD_CHECKSUM = badChecksum(ALICE);
const NFT_ID = `MRC402_${'a'.repeat(32)}1`;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

interface Started {
  api: RunningApi;
  lines: Record<string, unknown>[];
}

async function start(
  options: { store?: ReadStore; config?: ApiConfig; level?: pino.LevelWithSilent } = {},
): Promise<Started> {
  const lines: Record<string, unknown>[] = [];
  const logger: Logger = pino(
    { level: options.level ?? 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const store = options.store ?? createMemoryReadStore();
  if (options.store === undefined) await projectChain(store, fixture);
  const config = options.config ?? testConfig();
  const api = await startApi({
    config,
    logger,
    store,
    images: createNftImageFetcher({ config, logger, store }),
    counters: fakeCounters(),
    chain: fakeChain(fixture),
    port: 0,
    host: '127.0.0.1',
  });
  return { api, lines };
}

async function get(api: RunningApi, path: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(`${api.url}${path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Sends `bytes` as they are on a fresh connection and reads one answer: status line, headers and a
 * body of Content-Length bytes. Bytes a client library would refuse to send (a NUL, TRACE, CONNECT).
 */
function raw(api: RunningApi, bytes: string): Promise<Answer & { closed: Promise<void> }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    let received = Buffer.alloc(0);
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no whole answer within 10 s; got ${JSON.stringify(received.toString('latin1'))}`));
    }, 10_000);
    socket.on('error', () => {}); // a reset after the answer is the server closing, as asked
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...fields] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Headers();
      for (const field of fields) {
        const colon = field.indexOf(':');
        headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
      }
      const length = Number(headers.get('content-length') ?? 0);
      if (received.length < end + 4 + length) return;
      clearTimeout(deadline);
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
      resolve({ status, headers, text: received.subarray(end + 4, end + 4 + length).toString('utf8'), closed });
      socket.end();
    });
    socket.write(Buffer.from(bytes, 'latin1'));
  });
}

/** The error answer every refusal must be: JSON in the error shape, nothing of the server's insides. */
function expectRefusal(answer: Answer, status: number, code: string): string {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const { error } = ErrorBody.parse(JSON.parse(answer.text));
  expect(error.code).toBe(code);
  expect(answer.text).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules|node:internal|\/work\//);
  expect(answer.text).not.toContain(process.cwd());
  return error.message;
}

async function expectStillServing(api: RunningApi): Promise<void> {
  const res = await get(api, '/api/chain');
  expect(res.status).toBe(200);
}

describe('the API against hostile input', () => {
  let started: Started;
  let api: RunningApi;
  beforeAll(async () => {
    started = await start();
    api = started.api;
  });
  afterAll(() => api.close());

  describe('query parameters: one rule on every route', () => {
    it.each([
      ['/api/blocks?id[$ne]=x', 'id[$ne]'],
      ['/api/blocks?limit[$gt]=', 'limit[$gt]'],
      ['/api/nft-tx?id[$ne]=x', 'id[$ne]'],
      [`/api/address/${ALICE}?balances[$exists]=true`, 'balances[$exists]'],
      ['/api/chain?x=1', 'x'],
      ['/healthz?verbose', 'verbose'],
      ['/api/blocks?constructor=1', 'constructor'],
      ['/api/blocks?__proto__=1', '__proto__'],
      ['/api/blocks?hasOwnProperty=1', 'hasOwnProperty'],
    ])('refuses the undeclared parameter of %s, naming it', async (path, name) => {
      const message = expectRefusal(await get(api, path), 400, 'bad_request');
      expect(message).toContain(`query.${name}: unknown parameter`);
      await expectStillServing(api);
    });

    it('says which parameters the route takes, or that it takes none', async () => {
      expect(expectRefusal(await get(api, '/api/blocks?sort=1'), 400, 'bad_request')).toContain(
        'this route takes page, limit',
      );
      expect(expectRefusal(await get(api, '/api/chain?sort=1'), 400, 'bad_request')).toContain(
        'this route takes no query parameters',
      );
    });

    it.each([
      ['/api/blocks?limit=5&limit=6', 'limit'],
      ['/api/blocks?page=1&page=1', 'page'],
      ['/api/search?q=1&q=2', 'q'],
      [`/api/nft-tx?id=${NFT_ID}&id=${NFT_ID}`, 'id'],
    ])('refuses the repeated parameter of %s, naming it', async (path, name) => {
      const message = expectRefusal(await get(api, path), 400, 'bad_request');
      expect(message).toContain(`query.${name}: given more than once`);
      await expectStillServing(api);
    });

    it.each([
      ['page', '99999999999999999999'],
      ['page', '1000001'],
      ['page', '-1'],
      ['page', '0'],
      ['page', 'abc'],
      ['page', '0x10'],
      ['limit', '1.5'],
      ['limit', '1e2'],
      ['limit', '+5'],
      ['limit', '%20%205'],
      ['limit', ''],
      ['limit', '-20'],
      ['limit', '51'],
      ['limit', 'Infinity'],
      ['limit', 'NaN'],
    ])('refuses %s=%s with a 400 naming it', async (name, value) => {
      const message = expectRefusal(await get(api, `/api/blocks?${name}=${value}`), 400, 'bad_request');
      expect(message).toContain(`query.${name}:`);
      await expectStillServing(api);
    });

    it('serves declared parameters given once', async () => {
      const res = await get(api, '/api/blocks?page=2&limit=2');
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ page: 2, blocks: [{ height: 3 }, { height: 2 }] });
    });
  });

  describe('ids', () => {
    it.each([
      `/api/block/${'9'.repeat(3000)}`,
      `/api/tx/${'a'.repeat(3000)}`,
      `/api/address/${'M'.repeat(3000)}`,
      `/api/nft/${'MRC400_'.repeat(400)}`,
      `/api/nft-tx?id=${'MRC402_'.repeat(400)}`,
      `/api/search?q=${'x'.repeat(3000)}`,
    ])('refuses a 3 KB id with a 400 (%#)', async (path) => {
      expectRefusal(await get(api, path), 400, 'bad_request');
      await expectStillServing(api);
    });

    it.each([`/api/block/${'9'.repeat(10_240)}`, `/api/nft-tx?id=${'MRC402_'.repeat(1500)}`])(
      'refuses a 10 KB id with a 414: the URL is over its cap (%#)',
      async (path) => {
        expectRefusal(await get(api, path), 414, 'uri_too_long');
        await expectStillServing(api);
      },
    );

    it.each([`/api/address/${ALICE.toLowerCase()}`, `/api/address/${ALICE.slice(0, -1)}`, `/api/address/${ALICE}0`])(
      'refuses an address of the wrong form with a 400 (%s)',
      async (path) => {
        expect(expectRefusal(await get(api, path), 400, 'bad_request')).toContain('path.id');
        await expectStillServing(api);
      },
    );

    // Of the form the OpenAPI pattern states, so not a bad request: an address that cannot exist.
    it.each([
      `/api/address/${BAD_CHECKSUM}`,
      `/api/address/${BAD_CHECKSUM}/txs`,
      `/api/export/address/${BAD_CHECKSUM}/activity`,
    ])('answers an address whose checksum fails with a 404 (%s)', async (path) => {
      expect(expectRefusal(await get(api, path), 404, 'not_found')).toContain('no such address');
      await expectStillServing(api);
    });

    it('serves the address whose checksum is right', async () => {
      expect((await get(api, `/api/address/${ALICE}`)).status).toBe(200);
    });

    // The bound the OpenAPI document states for these ids (schemathesis found it missing there).
    it.each(['token', 'block'])(
      'refuses a %s id over 2^53 - 1 with a 400 and looks the largest one up',
      async (kind) => {
        const over = expectRefusal(await get(api, `/api/${kind}/${Number.MAX_SAFE_INTEGER + 1}`), 400, 'bad_request');
        expect(over).toContain('path.id');
        expectRefusal(await get(api, `/api/${kind}/${Number.MAX_SAFE_INTEGER}`), 404, 'not_found');
      },
    );

    it('serves a block named by its hash in upper case, as the document allows', async () => {
      const block = fixture.blocks[0]!;
      const res = await get(api, `/api/block/${block.hash.toUpperCase()}`);
      expect(res.status, res.text).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ id: block.hash, sn: String(block.height) });
    });
  });

  describe('paths', () => {
    it.each([
      '/api/block/%00',
      '/api/block/1%00',
      '/api/tx/%00',
      '/api/address/%00',
      '/api/nft/%00',
      '/api/v1/token/%00/image',
      '/api/token/0%00/holders',
      '/api/block/%C0%AF',
      '/api/block/%FF',
      '/api/address/%E2%82%AC',
      '/api/token/%EF%BC%91',
      '/api/nft/%F0%9F%98%80',
      '/api/v1/nft/%ED%A0%80/image',
      '/api/v1/nft/..%2F..%2Fetc%2Fpasswd/image',
      '/api/v1/token/..%2f1/image',
      '/api/v1/token/..%5c1/image',
      '/api/rawtx/..%2F..%2F..%2Fetc%2Fpasswd',
    ])('refuses %s with a 400', async (path) => {
      expectRefusal(await get(api, path), 400, 'bad_request');
      await expectStillServing(api);
    });

    it('answers an unencoded traversal, which matches no route, with a 404', async () => {
      const answer = await raw(api, 'GET /api/v1/nft/../../etc/passwd/image HTTP/1.1\r\nHost: x\r\n\r\n');
      expectRefusal(answer, 404, 'not_found');
      await expectStillServing(api);
    });
  });

  describe('request limits', () => {
    it('answers a URL over API_MAX_URL_BYTES with a 414', async () => {
      const message = expectRefusal(await get(api, `/api/blocks?page=1&pad=${'a'.repeat(5000)}`), 414, 'uri_too_long');
      expect(message).toContain('4096');
      await expectStillServing(api);
    });

    it('answers headers over API_MAX_HEADER_BYTES with a 431 and closes the connection', async () => {
      const answer = await get(api, '/api/chain', { headers: { 'X-Padding': 'a'.repeat(20_000) } });
      expectRefusal(answer, 431, 'headers_too_large');
      expect(answer.headers.get('connection')).toBe('close');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      await expectStillServing(api);
    });

    it('takes its header cap from API_MAX_HEADER_BYTES', async () => {
      const roomy = await start({ config: testConfig({ API_MAX_HEADER_BYTES: '32768' }) });
      const tight = await start({ config: testConfig({ API_MAX_HEADER_BYTES: '8192' }) });
      try {
        const padding = { 'X-Padding': 'a'.repeat(12_000) };
        expect((await get(roomy.api, '/api/chain', { headers: padding })).status).toBe(200);
        const refused = await get(tight.api, '/api/chain', { headers: padding });
        expect(expectRefusal(refused, 431, 'headers_too_large')).toContain('8192');
        await expectStillServing(tight.api);
      } finally {
        await roomy.api.close();
        await tight.api.close();
      }
    });

    it('answers a raw NUL in the request line with a 400 and closes the connection', async () => {
      const answer = await raw(api, 'GET /api/ch\0ain HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(expectRefusal(answer, 400, 'bad_request')).toBe('malformed HTTP request');
      expect(answer.headers.get('connection')).toBe('close');
      await answer.closed;
      await expectStillServing(api);
    });

    it.each([
      ['a method the parser does not know', 'FOO /api/chain HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a bad header name', 'GET /api/chain HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
      [
        'Content-Length with Transfer-Encoding',
        'GET /api/chain HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n',
      ],
    ])('answers %s with a JSON 400', async (_, bytes) => {
      const answer = await raw(api, bytes);
      expectRefusal(answer, 400, 'bad_request');
      expect(answer.headers.get('connection')).toBe('close');
      await expectStillServing(api);
    });

    it('answers an HTTP/1.1 request without Host with a JSON 400', async () => {
      const answer = await raw(api, 'GET /api/chain HTTP/1.1\r\n\r\n');
      expect(expectRefusal(answer, 400, 'bad_request')).toContain('Host');
      await expectStillServing(api);
    });

    it('serves a request whose Expect it does not know as if it had none', async () => {
      const answer = await raw(api, 'GET /api/chain HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n');
      expect(answer.status).toBe(200);
    });

    it('logs each refusal of the HTTP server once, in one line, without stack', async () => {
      const before = started.lines.length;
      await raw(api, 'GET /api/ch\0ain HTTP/1.1\r\nHost: x\r\n\r\n');
      await get(api, '/api/chain', { headers: { 'X-Padding': 'a'.repeat(20_000) } });
      const logged = started.lines.slice(before).filter((l) => l['msg'] === 'request refused by the HTTP server');
      expect(logged).toMatchObject([
        { level: 30, status: 400, code: 'HPE_INVALID_URL' },
        { level: 30, status: 431, code: 'HPE_HEADER_OVERFLOW' },
      ]);
      expect(JSON.stringify(logged)).not.toMatch(/stack|"err"/);
    });
  });

  describe('methods', () => {
    it.each([
      'TRACE /api/chain',
      'PROPFIND /api/chain',
      'M-SEARCH *',
      'POST /api/chain',
      'DELETE /api/block/1',
      'PUT /api/nothing/here',
      'PATCH /',
      'CONNECT example.test:443',
    ])('answers %s with a JSON 405 allowing GET, HEAD, OPTIONS', async (line) => {
      const before = started.lines.length;
      const answer = await raw(api, `${line} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
      expectRefusal(answer, 405, 'method_not_allowed');
      expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      const logged = started.lines.slice(before);
      expect(logged).toMatchObject([{ level: 20, msg: 'method not allowed', method: line.split(' ')[0] }]);
      expect(JSON.stringify(logged)).not.toMatch(/stack|"err"/);
      await expectStillServing(api);
    });

    it('answers a plain OPTIONS with 204 and Allow', async () => {
      const res = await get(api, '/api/chain', { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('answers HEAD like GET without a body', async () => {
      const res = await get(api, '/api/chain', { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
    });
  });
});

describe('CORS', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = (await start()).api;
  });
  afterAll(() => api.close());

  const EXPOSED = [
    'ETag',
    'X-Request-Id',
    'X-Indexed-Height',
    'Retry-After',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
  ];

  it('lets any origin read a simple GET and the headers clients need', async () => {
    const res = await get(api, '/api/chain', { headers: { Origin: 'https://explorer.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = res.headers.get('access-control-expose-headers')!.split(',');
    expect(exposed.map((h) => h.trim().toLowerCase()).sort()).toEqual(EXPOSED.map((h) => h.toLowerCase()).sort());
  });

  it.each([
    ['an unknown block', '/api/block/999', 404],
    ['a bad limit', '/api/blocks?limit=51', 400],
    ['a URL too long', `/api/blocks?pad=${'a'.repeat(5000)}`, 414],
  ])('lets any origin read the error of %s', async (_, path, status) => {
    const res = await get(api, path, { headers: { Origin: 'https://explorer.example' } });
    expect(res.status).toBe(status);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a preflight 204 with the allowed methods and a max-age', async () => {
    const res = await get(api, `/api/tx/${TX}`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://explorer.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'if-none-match, x-request-id',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('if-none-match, x-request-id');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
    expect(res.text).toBe('');
  });
});

/** A store whose collection `name` (or every collection) answers through `call`. */
function storeWith(
  store: ReadStore,
  call: <T>(method: string, real: () => Promise<T>) => Promise<T>,
  only?: string,
): ReadStore {
  return {
    ...store,
    collection: <T extends Doc>(name: string): Collection<T> => {
      const c = store.collection<T>(name);
      if (only !== undefined && name !== only) return c;
      return {
        get: (id) => call('get', () => c.get(id)),
        getMany: (ids) => call('getMany', () => c.getMany(ids)),
        find: (filter, options) => call('find', () => c.find(filter, options)),
        count: (filter) => call('count', () => c.count(filter)),
      };
    },
  };
}

async function seeded(): Promise<ReadStore> {
  const store = createMemoryReadStore();
  await projectChain(store, fixture);
  return store;
}

describe('failures inside', () => {
  it('answers an internal error with the generic 500, without its message, path or stack', async () => {
    const store = storeWith(
      await seeded(),
      async () => {
        throw new Error("ENOENT: open '/srv/mongo/secrets.env' (password=hunter2)");
      },
      COLLECTIONS.blocks,
    );
    const { api, lines } = await start({ store });
    try {
      const answer = await get(api, '/api/blocks');
      expectRefusal(answer, 500, 'internal');
      expect(JSON.parse(answer.text)).toEqual({ error: { code: 'internal', message: 'Internal server error' } });
      expect(answer.text).not.toMatch(/hunter2|secrets|\/srv|ENOENT/);
      expect(lines.filter((l) => l['msg'] === 'request failed')).toHaveLength(1);
      expect((await get(api, '/api/tokens')).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it("maps a store's time-budget error (status 503) to a 503 unavailable, logged at warn without stack", async () => {
    const store = storeWith(
      await seeded(),
      async () => {
        throw Object.assign(new Error('read of blocks took over 1000 ms at /srv/db'), {
          name: 'StoreTimeoutError',
          status: 503,
        });
      },
      COLLECTIONS.blocks,
    );
    const { api, lines } = await start({ store });
    try {
      const answer = await get(api, '/api/blocks', { headers: { 'X-Request-Id': 'slow-1' } });
      expect(expectRefusal(answer, 503, 'unavailable')).toBe('the data store did not answer in time');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      // The failure's one line, beside the access log's line (which keeps every 5xx).
      const logged = lines.filter((l) => l['requestId'] === 'slow-1' && l['component'] !== 'access');
      expect(logged).toMatchObject([{ level: 40, status: 503, path: '/api/blocks' }]);
      const access = lines.filter((l) => l['requestId'] === 'slow-1' && l['component'] === 'access');
      expect(access).toMatchObject([{ msg: 'request', status: 503, route: '/api/blocks', url: '/api/blocks' }]);
      expect(logged[0]!['reason']).toContain('StoreTimeoutError');
      expect(JSON.stringify(logged)).not.toMatch(/stack|"err"/);
    } finally {
      await api.close();
    }
  });

  it('answers /api/chain 503 within 2 s when the store hangs, and keeps serving what needs no store', async () => {
    const store = storeWith(await seeded(), () => new Promise<never>(() => {}));
    const { api } = await start({ store });
    try {
      const started = performance.now();
      const answer = await get(api, '/api/chain');
      const elapsed = performance.now() - started;
      expect(expectRefusal(answer, 503, 'unavailable')).toContain('time budget');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(elapsed).toBeLessThan(2000);
      expect((await get(api, '/healthz')).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('drops the late answer of a request over its budget and goes on serving', async () => {
    let release: () => void = () => {};
    let held = true;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const store = storeWith(await seeded(), async (_method, real) => {
      if (held) await gate;
      return real();
    });
    const { api, lines } = await start({ store, config: testConfig({ API_REQUEST_TIMEOUT_MS: '200' }) });
    try {
      const answer = await get(api, '/api/blocks');
      expectRefusal(answer, 503, 'unavailable');
      held = false;
      release();
      const after = await get(api, '/api/blocks');
      expect(after.status).toBe(200);
      expect(lines.filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('gives the NFT image route its outside fetch deadline on top of the request budget', async () => {
    const store = storeWith(await seeded(), () => new Promise<never>(() => {}));
    const config = testConfig({ API_REQUEST_TIMEOUT_MS: '200', NFT_IMAGE_TIMEOUT_MS: '800' });
    const { api } = await start({ store, config });
    try {
      const started = performance.now();
      expectRefusal(await get(api, `/api/v1/nft/${NFT_ID}/image`), 503, 'unavailable');
      // A timer never fires early: under 1000 ms would mean the image route had the plain budget.
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await api.close();
    }
  });

  it('answers a client that does not finish its request head in time with a 408 and closes', async () => {
    const { api } = await start({ config: testConfig({ API_HEADERS_TIMEOUT_MS: '1000' }) });
    try {
      const answer = await raw(api, 'GET /api/chain HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
      expectRefusal(answer, 408, 'request_timeout');
      expect(answer.headers.get('connection')).toBe('close');
      await answer.closed;
      await expectStillServing(api);
    } finally {
      await api.close();
    }
  });
});

describe('bounded answers', () => {
  it(`lists at most ${TOKEN_HISTORY_MAX} lifecycle events of a token, from its creation, and counts them all`, async () => {
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 0, balance: '0' }]);
    chain.block([chain.registerToken({ token: 1, name: 'Many', symbol: 'MNY', owner: ALICE, totalsupply: '1' })]);
    const mints = 1_050;
    for (let done = 0; done < mints; done += 150) {
      chain.block(Array.from({ length: 150 }, () => chain.mint({ token: 1, amount: '1' })));
    }
    const api = await startTestApi({ fixture: chain });
    try {
      const { status, body } = await api.get<{ total: number; events: { tx_type: string }[] }>('/api/token/1/history');
      expect(status).toBe(200);
      expect(body.total).toBe(1 + mints);
      expect(body.events).toHaveLength(TOKEN_HISTORY_MAX);
      expect(body.events[0]!.tx_type).toBe('Token create');
      expect(body.events.slice(1).every((e) => e.tx_type === 'Token mint')).toBe(true);
    } finally {
      await api.close();
    }
  });

  it(`lists at most ${MAX_MRC402_HOLDINGS} MRC-402 holdings of an address, the lowest ids`, async () => {
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 0, balance: '0' }]);
    const count = MAX_MRC402_HOLDINGS + 3;
    // Ids in reverse of creation order, so the lowest ones are the last created.
    const id = (i: number) => `MRC402_${'a'.repeat(28)}${String(count - i).padStart(5, '0')}`;
    for (let done = 0; done < count; done += 200) {
      chain.block(
        Array.from({ length: Math.min(200, count - done) }, (_, k) =>
          chain.createMrc402({ id: id(done + k), creator: ALICE, name: `N${done + k}`, totalsupply: '2' }),
        ),
      );
    }
    const api = await startTestApi({ fixture: chain });
    try {
      const { status, body } = await api.get<{ nfts: { id: string; balance: string }[] }>(`/api/address/${ALICE}`);
      expect(status).toBe(200);
      const ids = Array.from({ length: count }, (_, i) => id(i)).sort();
      expect(body.nfts.map((n) => n.id)).toEqual(ids.slice(0, MAX_MRC402_HOLDINGS));
      expect(body.nfts.every((n) => n.balance === '2')).toBe(true);
    } finally {
      await api.close();
    }
  }, 90_000); // building the chain runs the chaincode 1,003 times, each writing the wallet's whole MRC-402 map
});
