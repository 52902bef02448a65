import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, buildChain, startTestApi, testConfig, type Chain, type TestApi } from '../../testing/harness.ts';
import { PNG_DATA_URI } from '../../testing/token-economy.ts';
import { dataUriBytes, isPng, toPng } from './image.ts';

const PNG_BYTES = Buffer.from(PNG_DATA_URI.slice(PNG_DATA_URI.indexOf(',') + 1), 'base64');
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="6"><rect width="8" height="6" fill="red"/></svg>';

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 90 } } });
const dataUri = (type: string, bytes: Uint8Array) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

async function pngSize(bytes: Uint8Array): Promise<{ format?: string; width?: number; height?: number }> {
  const { format, width, height } = await sharp(bytes).metadata();
  return { format, width, height };
}

describe('dataUriBytes', () => {
  it('decodes base64 data, whitespace and all', () => {
    expect(Buffer.from(dataUriBytes(PNG_DATA_URI)!).equals(PNG_BYTES)).toBe(true);
    expect([...dataUriBytes('data:image/png;base64,AQID\n BA==')!]).toEqual([1, 2, 3, 4]);
    expect([...dataUriBytes('data:;charset=utf-8;BASE64,AQID')!]).toEqual([1, 2, 3]);
  });

  it('decodes percent-encoded data as text', () => {
    expect(Buffer.from(dataUriBytes(`data:image/svg+xml,${encodeURIComponent(SVG)}`)!).toString()).toBe(SVG);
  });

  it('gives null for what is not a data URI or holds nothing', () => {
    for (const uri of [
      '',
      'https://example.org/a.png',
      'data:image/png;base64',
      'data:image/png;base64,%%%',
      'data:,',
    ]) {
      expect(dataUriBytes(uri), uri).toBeNull();
    }
    expect(dataUriBytes('data:text/plain,%E0%A4%A')).toBeNull();
  });
});

describe('toPng', () => {
  it('returns PNG data as it is', async () => {
    expect(isPng(PNG_BYTES)).toBe(true);
    expect(await toPng(PNG_BYTES)).toBe(PNG_BYTES);
  });

  it('converts JPEG, GIF, WebP and SVG to PNG of the same size', async () => {
    const inputs: [string, Uint8Array, number, number][] = [
      ['jpeg', await solid(5, 4).jpeg().toBuffer(), 5, 4],
      ['gif', await solid(3, 3).gif().toBuffer(), 3, 3],
      ['webp', await solid(2, 7).webp().toBuffer(), 2, 7],
      ['svg', Buffer.from(SVG), 8, 6],
    ];
    for (const [name, bytes, width, height] of inputs) {
      expect(isPng(bytes), name).toBe(false);
      const png = await toPng(bytes);
      expect(png, name).not.toBeNull();
      expect(isPng(png!), name).toBe(true);
      expect(await pngSize(png!), name).toEqual({ format: 'png', width, height });
    }
  });

  it('gives null for bytes that are no image', async () => {
    expect(await toPng(Buffer.from('not an image at all'))).toBeNull();
    expect(await toPng(Uint8Array.of(0, 0, 0))).toBeNull();
  });
});

describe('GET /api/v1/token/{id}/image', () => {
  let chain: Chain;
  let api: TestApi;
  beforeAll(async () => {
    const images = [
      PNG_DATA_URI,
      dataUri('image/jpeg', await solid(5, 4).jpeg().toBuffer()),
      dataUri('image/gif', await solid(3, 3).gif().toBuffer()),
      `data:image/svg+xml,${encodeURIComponent(SVG)}`,
      '',
      'data:image/png;base64,AAAA',
      'https://example.org/not-a-data-uri.png',
    ];
    chain = buildChain(1);
    chain.block(
      images.map((image, token) =>
        chain.registerToken({ token, name: `T${token}`, symbol: `T${token}`, owner: ALICE, totalsupply: '1', image }),
      ),
    );
    api = await startTestApi({ fixture: chain });
  });
  afterAll(() => api.close());

  it('serves PNG data as stored, as image/png cached with the head and an ETag', async () => {
    const res = await api.bytes('/api/v1/token/0/image');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=2');
    expect(res.headers.get('x-indexed-height')).toBe('2');
    expect(res.headers.get('etag')).toMatch(/^"[0-9:]+"$/);
    expect(Buffer.from(res.body).equals(PNG_BYTES)).toBe(true);
  });

  it('converts JPEG, GIF and percent-encoded SVG to PNG', async () => {
    for (const [token, width, height] of [
      [1, 5, 4],
      [2, 3, 3],
      [3, 8, 6],
    ] as const) {
      const res = await api.bytes(`/api/v1/token/${token}/image`);
      expect(res.status, String(token)).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(await pngSize(res.body), String(token)).toEqual({ format: 'png', width, height });
    }
  });

  it('answers 304 while the ETag holds, and a new ETag once the image changes', async () => {
    const first = await api.bytes('/api/v1/token/1/image');
    const etag = first.headers.get('etag')!;
    // A browser's revalidation. (fetch alone would add Cache-Control: no-cache, which asks for the body.)
    const revalidate = { headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' } };
    const again = await api.bytes('/api/v1/token/1/image', revalidate);
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);

    chain.block([chain.updateToken({ token: 1, image: PNG_DATA_URI })]);
    await api.project(chain);
    const changed = await api.bytes('/api/v1/token/1/image', revalidate);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(Buffer.from(changed.body).equals(PNG_BYTES)).toBe(true);
  });

  it('answers a JSON 404 for no image, unreadable data and an unknown token', async () => {
    for (const token of [4, 5, 6, 99]) {
      const res = await api.get(`/api/v1/token/${token}/image`);
      expect(res.status, String(token)).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
    }
  });

  it('answers a JSON 400 for a malformed id', async () => {
    for (const id of ['abc', '-1', '00']) {
      const res = await api.get(`/api/v1/token/${id}/image`);
      expect(res.status, id).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('the image route with the caches on, as in production', () => {
  it('reads a token image once per indexed height, and again once the head moves', async () => {
    const chain = buildChain(1);
    const jpeg = dataUri('image/jpeg', await solid(5, 4).jpeg().toBuffer());
    chain.block([
      chain.registerToken({ token: 0, name: 'T', symbol: 'T', owner: ALICE, totalsupply: '1', image: jpeg }),
    ]);
    const api = await startTestApi({
      fixture: chain,
      config: testConfig({ API_HEAD_CACHE_MS: '100', API_RESPONSE_CACHE_MB: '8' }),
    });
    try {
      const reads = () => api.calls.filter((c) => c.collection === 'token_images').length;
      const first = await api.bytes('/api/v1/token/0/image');
      expect(await pngSize(first.body)).toEqual({ format: 'png', width: 5, height: 4 });
      const once = reads();
      expect(once).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) expect((await api.bytes('/api/v1/token/0/image')).status).toBe(200);
      expect(reads()).toBe(once);

      chain.block([chain.updateToken({ token: 0, image: PNG_DATA_URI })]);
      await api.project(chain);
      await new Promise((r) => setTimeout(r, 150)); // the head reading is at most 100 ms old
      const changed = await api.bytes('/api/v1/token/0/image');
      expect(Buffer.from(changed.body).equals(PNG_BYTES)).toBe(true);
      expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
      expect(reads()).toBeGreaterThan(once);
    } finally {
      await api.close();
    }
  });
});
