import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpChainSource, NodeError } from './chain-source.ts';

const HASH = 'a'.repeat(64);
const TX = 'b'.repeat(64);
const BLOCK = { id: HASH, sn: '42', transaction: [{ id: TX, timestamp: 1_700_000_000 }], timestamp: 1_700_000_000 };
const ENTRIES = [
  { timestamp: 1_700_000_000, id: TX, parameters: ['x'], token: '0', type: 'transfer', validationCode: 0 },
];

type Reply =
  | { status: number; body: string }
  /** Headers at once, then the body in `pieces` parts `everyMs` apart (Infinity: the rest never comes). */
  | { status: number; body: string; pieces: number; everyMs: number }
  | 'hang'
  | 'reset'
  | 'drop';

/** A stand-in node: answers each path from `routes`, labelling every body text/html like the node. */
describe('createHttpChainSource', () => {
  let server: Server;
  let baseUrl: string;
  const routes = new Map<string, Reply>();
  const requested: string[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      requested.push(req.url ?? '');
      const reply = routes.get(req.url ?? '') ?? { status: 404, body: 'no such route' };
      if (reply === 'hang') return; // never answers: the client must time out
      if (reply === 'drop') return void req.socket.destroy(); // no answer at all
      if (typeof reply === 'object' && 'pieces' in reply) {
        const bytes = Buffer.from(reply.body);
        const size = Math.ceil(bytes.length / reply.pieces);
        res.writeHead(reply.status, { 'content-type': 'text/html; charset=utf-8', 'content-length': bytes.length });
        res.flushHeaders();
        const send = (piece: number): void => {
          if (res.destroyed) return;
          const chunk = bytes.subarray(piece * size, (piece + 1) * size);
          if (piece + 1 >= reply.pieces) return void res.end(chunk);
          res.write(chunk);
          if (Number.isFinite(reply.everyMs)) setTimeout(() => send(piece + 1), reply.everyMs);
        };
        return send(0);
      }
      if (reply === 'reset') {
        // Headers and half a body, then the connection drops.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': '1000' });
        res.write('[{"timestamp":');
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    routes.clear();
    requested.length = 0;
  });

  const source = (timeoutMs = 2_000) => createHttpChainSource({ baseUrl, timeoutMs });
  const nodeError = async (p: Promise<unknown>): Promise<NodeError> => {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeError);
    return error as NodeError;
  };

  describe('height', () => {
    it('reads the bare digits the node sends as text/html', async () => {
      routes.set('/block', { status: 200, body: '12345\n' });
      expect(await source().height()).toBe(12345);
      expect(requested).toEqual(['/block']);
    });

    it('accepts the height as a JSON string too', async () => {
      routes.set('/block', { status: 200, body: '"77"' });
      expect(await source().height()).toBe(77);
    });

    it('fails without retry on a body that is not a height', async () => {
      routes.set('/block', { status: 200, body: '<html>oops</html>' });
      const error = await nodeError(source().height());
      expect(error.retryable).toBe(false);
      expect(error.body).toBe('<html>oops</html>');
    });

    it('fails with a retryable error on the node’s 412', async () => {
      routes.set('/block', { status: 412, body: 'internal error' });
      const error = await nodeError(source().height());
      expect(error).toMatchObject({ retryable: true, reason: 'http_412', status: 412, body: 'internal error' });
    });

    it('returns the 0 the node answers when its storage read failed (the caller judges it)', async () => {
      routes.set('/block', { status: 200, body: '0' });
      expect(await source().height()).toBe(0);
    });
  });

  describe('block', () => {
    it('parses the JSON body whatever the content type, by height or by hash', async () => {
      routes.set('/block/42', { status: 200, body: JSON.stringify(BLOCK) });
      routes.set(`/block/${HASH}`, { status: 200, body: JSON.stringify(BLOCK) });
      expect(await source().block(42)).toEqual(BLOCK);
      expect(await source().block(HASH)).toEqual(BLOCK);
      expect(requested).toEqual(['/block/42', `/block/${HASH}`]);
    });

    it('answers null for a 404', async () => {
      expect(await source().block(43)).toBeNull();
    });

    it('treats 412, 429 and 5xx as retryable, other statuses as final', async () => {
      for (const [status, retryable] of [
        [412, true],
        [429, true],
        [500, true],
        [503, true],
        [400, false],
        [403, false],
      ] as const) {
        routes.set('/block/1', { status, body: `status ${status}` });
        const error = await nodeError(source().block(1));
        expect(error).toMatchObject({ retryable, reason: `http_${status}`, status, body: `status ${status}` });
      }
    });

    it('retries the 400 the node answers when the bridge sent something that is not JSON', async () => {
      routes.set('/block/1', { status: 400, body: 'MTC Main node response error' });
      expect(await nodeError(source().block(1))).toMatchObject({ retryable: true, status: 400 });
    });

    it('retries a body cut short, but not a whole body of an unexpected shape', async () => {
      routes.set('/block/1', { status: 200, body: JSON.stringify(BLOCK).slice(0, 30) });
      expect(await nodeError(source().block(1))).toMatchObject({ retryable: true, reason: 'truncated' });
      routes.set('/block/2', { status: 200, body: JSON.stringify({ ...BLOCK, sn: 'x' }) });
      expect(await nodeError(source().block(2))).toMatchObject({ retryable: false, reason: 'shape' });
    });

    it('keeps only the start of a long body', async () => {
      routes.set('/block/1', { status: 500, body: 'x'.repeat(10_000) });
      expect((await nodeError(source().block(1))).body).toHaveLength(200);
    });

    it('rejects a height that is not a whole non-negative number without calling the node', async () => {
      await expect(source().block(-1)).rejects.toThrow(RangeError);
      await expect(source().block(1.5)).rejects.toThrow(RangeError);
      expect(requested).toEqual([]);
    });
  });

  describe('transaction', () => {
    it('parses the entries', async () => {
      routes.set(`/transaction/${TX}`, { status: 200, body: JSON.stringify(ENTRIES) });
      expect(await source().transaction(TX)).toEqual(ENTRIES);
    });

    it('answers null for a 404, and for a 412 whose body says not found', async () => {
      // What the node answers while its bridge is unreachable.
      routes.set(`/transaction/${TX}`, { status: 404, body: `Transaction ${TX} not found` });
      expect(await source().transaction(TX)).toBeNull();
      routes.set(`/transaction/${TX}`, { status: 412, body: '{"result":"FAILURE","msg":"Transaction Not Found"}' });
      expect(await source().transaction(TX)).toBeNull();
    });

    it('fails with a retryable error on any other 412', async () => {
      routes.set(`/transaction/${TX}`, { status: 412, body: 'MVCC_READ_CONFLICT' });
      const error = await nodeError(source().transaction(TX));
      expect(error).toMatchObject({ retryable: true, status: 412, body: 'MVCC_READ_CONFLICT' });
    });

    it('escapes the id into one path segment', async () => {
      expect(await source().transaction('a/b?c')).toBeNull();
      expect(requested).toEqual(['/transaction/a%2Fb%3Fc']);
    });
  });

  describe('transport', () => {
    it('times out a request that gets no answer, as a retryable error', async () => {
      routes.set('/block', 'hang');
      const error = await nodeError(source(100).height());
      expect(error).toMatchObject({ retryable: true, reason: 'timeout' });
      expect(error.message).toMatch(/timed out after 100 ms waiting for the answer/);
      expect(error.status).toBeUndefined();
    });

    it('times out a body that stops coming after the headers, within the deadline', async () => {
      routes.set('/block/1', { status: 200, body: JSON.stringify(BLOCK), pieces: 4, everyMs: Infinity });
      const started = Date.now();
      const error = await nodeError(source(300).block(1));
      expect(error).toMatchObject({ retryable: true, reason: 'timeout', status: 200 });
      expect(error.message).toMatch(/timed out after 300 ms reading the body/);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('times out a body that trickles past the deadline, however steadily it comes', async () => {
      // Each piece arrives well within undici's idle limits; only a deadline on the whole body stops it.
      routes.set('/block/1', { status: 200, body: JSON.stringify(BLOCK), pieces: 40, everyMs: 50 });
      const started = Date.now();
      expect(await nodeError(source(500).block(1))).toMatchObject({ retryable: true, reason: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('takes a slow body that is whole within the deadline', async () => {
      routes.set('/block/42', { status: 200, body: JSON.stringify(BLOCK), pieces: 4, everyMs: 50 });
      expect(await source(2_000).block(42)).toEqual(BLOCK);
    });

    it('reports a connection dropped before any answer as retryable, reason network', async () => {
      routes.set('/block', 'drop');
      const error = await nodeError(source().height());
      expect(error).toMatchObject({ retryable: true, reason: 'network' });
      expect(error.status).toBeUndefined();
    });

    it('reports a body that is not JSON at all (a proxy page with 200) as retryable, reason truncated', async () => {
      routes.set(`/transaction/${TX}`, { status: 200, body: '<html><body>upstream hiccup</body></html>' });
      expect(await nodeError(source().transaction(TX))).toMatchObject({ retryable: true, reason: 'truncated' });
    });

    it('reports a connection reset in the middle of a body as retryable', async () => {
      routes.set(`/transaction/${TX}`, 'reset');
      expect(await nodeError(source().transaction(TX))).toMatchObject({ retryable: true, reason: 'network' });
    });

    it('reports an unreachable node as retryable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const error = await nodeError(createHttpChainSource({ baseUrl: `http://127.0.0.1:${port}` }).height());
      expect(error).toMatchObject({ retryable: true, reason: 'network' });
      expect(error.status).toBeUndefined();
    });

    it('keeps a path prefix of the base URL, with or without a trailing slash', async () => {
      routes.set('/node/block', { status: 200, body: '5' });
      expect(await createHttpChainSource({ baseUrl: `${baseUrl}/node` }).height()).toBe(5);
      expect(await createHttpChainSource({ baseUrl: `${baseUrl}/node/` }).height()).toBe(5);
      expect(requested).toEqual(['/node/block', '/node/block']);
    });

    it('sends through the dispatcher it is given', async () => {
      const fake = new MockAgent();
      fake.disableNetConnect();
      fake
        .get('http://node.invalid')
        .intercept({ path: '/node/block', method: 'GET' })
        .reply(200, '9', { headers: { 'content-type': 'text/html' } });
      expect(await createHttpChainSource({ baseUrl: 'http://node.invalid/node', dispatcher: fake }).height()).toBe(9);
      fake.assertNoPendingInterceptors();
      await fake.close();
    });
  });
});
