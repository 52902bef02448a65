import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createMemoryReadStore } from '@mtc/adapters';
import type { ReadStore } from '@mtc/ports';
import { COLLECTIONS, nftImageId, type NftImageDoc } from '@mtc/read-models';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { CACHE } from '../../http-cache.ts';
import { startTestApi, testConfig, type TestApi } from '../../testing/harness.ts';
import { imageCollection, imageItem, imageMrc402, nftImageEconomy, type ImageNft } from '../../testing/nft-economy.ts';

/**
 * The NFT image route against real HTTP hosts on loopback: `origin` is allow-listed by config (as the
 * devnet is in `npm start`), `intranet` is not, so it stands for a private service the API must never
 * reach on a client's behalf.
 */

interface Host {
  port: number;
  url(path: string): string;
  /** Paths of the requests that reached the host, in order. */
  hits: string[];
  /** Answers held open by `/hang…` paths; `release` ends them with a PNG. */
  held: ServerResponse[];
  close(): void;
}

async function startHost(handler: (req: IncomingMessage, res: ServerResponse, host: Host) => void): Promise<Host> {
  const server = createServer((req, res) => {
    host.hits.push(req.url ?? '');
    handler(req, res, host);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host: Host = {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits: [],
    held: [],
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
  return host;
}

const solid = (width: number) => sharp({ create: { width, height: 3, channels: 3, background: '#c81e5a' } });
const hits = (host: Host, path: string) => host.hits.filter((p) => p === path).length;
/** The hex form an item's id takes in its collection's `{id}` template. */
const itemHex = (item: string) => Buffer.from(item.slice(41), 'utf8').toString('hex');

async function waitFor<T>(check: () => Promise<T | undefined | null> | T | undefined | null): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value !== undefined && value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met within 2 s');
}

const ART = imageCollection(1);
const PHOTOS = imageCollection(2);
const PHOTO_1 = imageItem(PHOTOS, 1);
/** An item without an image of its own, in a collection without an item image template. */
const BLANK = imageItem(imageCollection(3), 1);
const GOLD = imageMrc402(1);
const METADATA = imageMrc402(2);
const INTRANET = imageMrc402(3);
const SLOW = imageMrc402(4);
const BIG = imageMrc402(5);
const JPEG_402 = imageMrc402(6);
const ROTATING = imageMrc402(7);

let png: Buffer;
let jpeg: Buffer;
let origin: Host;
let intranet: Host;

function nfts(): ImageNft[] {
  return [
    { collection: ART, image: origin.url('/png/art') },
    { collection: PHOTOS, image: origin.url('/jpeg/{id}'), items: [PHOTO_1] },
    { collection: imageCollection(3), image: origin.url('/png/art'), itemImage: '', items: [BLANK] },
    { mrc402: GOLD, image: origin.url('/png/gold') },
    { mrc402: JPEG_402, image: origin.url('/jpeg/coin') },
    { mrc402: ROTATING, image: origin.url('/png/rotating') },
    { mrc402: METADATA, image: 'http://169.254.169.254/latest/meta-data/avatar.png' },
    { mrc402: INTRANET, image: intranet.url('/png/secret') },
    { mrc402: SLOW, image: origin.url('/hang') },
    { mrc402: BIG, image: origin.url('/big') },
  ];
}

const baseEnv = () => ({
  NFT_IMAGE_ALLOW_HOSTS: `127.0.0.1:${origin.port}`,
  // Every case shares the host 127.0.0.1: a remembered timeout would answer all of them.
  NFT_IMAGE_FAILURE_TTL_MS: '0',
});

beforeAll(async () => {
  png = await solid(4).png().toBuffer();
  jpeg = await solid(5).jpeg().toBuffer();
  origin = await startHost((req, res, host) => {
    const path = req.url ?? '';
    if (path.startsWith('/png/')) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (path.startsWith('/jpeg/')) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    else if (path === '/hang') host.held.push(res);
    else if (path === '/big') {
      // No Content-Length: the cap must cut the stream itself. A PNG signature, so it is not refused as no image.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(png.subarray(0, 16));
      for (let i = 0; i < 8; i++) res.write(Buffer.alloc(1024, 7));
      res.end();
    } else res.writeHead(404).end();
  });
  intranet = await startHost((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
});
afterAll(() => {
  origin.close();
  intranet.close();
});

describe('GET /api/v1/nft/{id}/image', () => {
  let api: TestApi;
  let now = Date.UTC(2025, 0, 1);
  beforeAll(async () => {
    api = await startTestApi({
      fixture: nftImageEconomy(nfts()),
      config: testConfig({ ...baseEnv(), NFT_IMAGE_TIMEOUT_MS: '300', NFT_IMAGE_MAX_BYTES: '2048' }),
      now: () => now,
    });
  });
  afterAll(() => api.close());

  const image = (id: string, init?: RequestInit) => api.bytes(`/api/v1/nft/${id}/image`, init);
  const failure = async (id: string) => {
    const { status, headers, body } = await api.get<unknown>(`/api/v1/nft/${id}/image`);
    expect(headers.get('content-type'), id).toMatch(/^application\/json/);
    return { status, error: ErrorBody.parse(body).error };
  };

  it("serves a collection's image as its host sent it, Content-Type from the bytes, with a content ETag", async () => {
    const { status, headers, body } = await image(ART);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(body).equals(png)).toBe(true);
    expect(headers.get('cache-control')).toBe(CACHE.head);
    const etag = headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    // A browser's revalidation (fetch alone adds Cache-Control: no-cache, which asks for the body).
    const again = await image(ART, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });

  it("serves an item's image from its collection's item image template, and a JPEG as image/jpeg", async () => {
    const { status, headers, body } = await image(PHOTO_1);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(body).equals(jpeg)).toBe(true);
    expect(origin.hits).toContain(`/jpeg/${itemHex(PHOTO_1)}`);
  });

  it("serves an MRC-402's image, PNG or JPEG", async () => {
    const gold = await image(GOLD);
    expect([gold.status, gold.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(gold.body).equals(png)).toBe(true);
    const coin = await image(JPEG_402);
    expect([coin.status, coin.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    expect(Buffer.from(coin.body).equals(jpeg)).toBe(true);
  });

  it('keeps a fetched image in the store and serves it from there: the host is asked once', async () => {
    const url = origin.url('/png/gold');
    await image(GOLD);
    const images = api.store.collection<NftImageDoc>(COLLECTIONS.nftImages);
    const doc = await waitFor(() => images.get(nftImageId(url)));
    expect(doc).toEqual({
      _id: nftImageId(url),
      url,
      contentType: 'image/png',
      bytes: png.toString('base64'),
      fetchedAt: Math.floor(now / 1000),
    });
    const before = hits(origin, '/png/gold');
    const again = await image(GOLD);
    expect(again.status).toBe(200);
    expect(Buffer.from(again.body).equals(png)).toBe(true);
    expect(hits(origin, '/png/gold')).toBe(before);
    expect(before).toBe(1);
  });

  it('fetches a stored image again once it is a day old', async () => {
    const url = origin.url('/png/rotating');
    const images = api.store.collection<NftImageDoc>(COLLECTIONS.nftImages);
    expect((await image(ROTATING)).status).toBe(200);
    await waitFor(() => images.get(nftImageId(url)));
    expect((await image(ROTATING)).status).toBe(200);
    expect(hits(origin, '/png/rotating')).toBe(1);
    now += 24 * 3600 * 1000 + 1000;
    expect((await image(ROTATING)).status).toBe(200);
    expect(hits(origin, '/png/rotating')).toBe(2);
  });

  it('answers 400 for malformed ids: wrong prefix, wrong length, bad characters', async () => {
    for (const bad of [
      `MRC401_${'e'.repeat(32)}0`,
      `MRC400_${'e'.repeat(31)}0`,
      `MRC402_${'e'.repeat(33)}0`,
      `MRC400_${'E'.repeat(32)}0`,
      `MRC402_${'g'.repeat(32)}0`,
      `${ART}_${'I'.repeat(39)}`,
      `${ART}_${'I'.repeat(39)}!`,
      `${GOLD}_${'I'.repeat(40)}`,
    ]) {
      const { status, error } = await failure(encodeURIComponent(bad));
      expect([status, error.code], bad).toEqual([400, 'bad_request']);
      expect(error.message, bad).toMatch(/^path\.id: must be an NFT id/);
    }
  });

  it('answers 404 JSON for an unknown NFT of each form and for an NFT without an image', async () => {
    for (const unknown of [imageCollection(9), imageItem(ART, 9), imageMrc402(9)]) {
      expect(await failure(unknown), unknown).toEqual({
        status: 404,
        error: { code: 'not_found', message: `NFT ${unknown} not found` },
      });
    }
    const { status, error } = await failure(BLANK);
    expect([status, error.code]).toEqual([404, 'not_found']);
    expect(error.message).toContain('(no_image)');
  });

  it('answers 404 JSON for an image URL at a private address that is not allow-listed, and never connects', async () => {
    for (const id of [METADATA, INTRANET]) {
      const { status, error } = await failure(id);
      expect([status, error.code], id).toEqual([404, 'not_found']);
      expect(error.message, id).toContain('(forbidden_target)');
    }
    expect(intranet.hits).toEqual([]);
  });

  it('answers 502 JSON when the image host is slower than NFT_IMAGE_TIMEOUT_MS', async () => {
    const started = performance.now();
    const { status, error } = await failure(SLOW);
    expect([status, error.code]).toEqual([502, 'bad_gateway']);
    expect(error.message).toContain('(timeout)');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('answers 502 JSON when the image is larger than NFT_IMAGE_MAX_BYTES', async () => {
    const { status, error } = await failure(BIG);
    expect([status, error.code]).toEqual([502, 'bad_gateway']);
    expect(error.message).toContain('(too_large)');
  });
});

describe('GET /api/v1/nft/{id}/image while an image host hangs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: nftImageEconomy(nfts()), config: testConfig(baseEnv()) });
  });
  afterAll(() => api.close());

  it('answers other images and other endpoints promptly', async () => {
    const slow = api.bytes(`/api/v1/nft/${SLOW}/image`);
    let settled = false;
    void slow.finally(() => (settled = true));
    await waitFor(() => (origin.held.length > 0 ? true : undefined));

    const started = performance.now();
    const [other, chain] = await Promise.all([api.bytes(`/api/v1/nft/${ART}/image`), api.get('/api/chain')]);
    expect([other.status, chain.status]).toEqual([200, 200]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(settled).toBe(false);

    for (const res of origin.held.splice(0)) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    const { status, body } = await slow;
    expect(status).toBe(200);
    expect(Buffer.from(body).equals(png)).toBe(true);
  });
});

describe('GET /api/v1/nft/{id}/image when the store refuses the cache write', () => {
  let api: TestApi;
  const logged: { msg?: string; level?: number }[] = [];
  beforeAll(async () => {
    const memory = createMemoryReadStore();
    const store: ReadStore = {
      ...memory,
      write: (writes) =>
        writes.some((w) => w.collection === COLLECTIONS.nftImages)
          ? Promise.reject(new Error('disk full'))
          : memory.write(writes),
    };
    const sink = new Writable({
      write(line: Buffer, _encoding, done) {
        logged.push(JSON.parse(line.toString()) as { msg?: string });
        done();
      },
    });
    api = await startTestApi({
      fixture: nftImageEconomy(nfts()),
      config: testConfig(baseEnv()),
      store,
      logger: pino({ level: 'warn' }, sink),
    });
  });
  afterAll(() => api.close());

  it('still serves the image, and logs the failed write', async () => {
    const { status, body } = await api.bytes(`/api/v1/nft/${GOLD}/image`);
    expect(status).toBe(200);
    expect(Buffer.from(body).equals(png)).toBe(true);
    const warning = await waitFor(() => logged.find((l) => l.msg === 'nft image cache write failed'));
    expect(warning.level).toBe(40);
  });
});
