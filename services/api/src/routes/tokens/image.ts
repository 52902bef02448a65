import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { notFound } from '../../errors.ts';
import { TokenIdParams } from '../../params.ts';
import { defineBytesRoute } from '../../route.ts';
import { servedCache, type Served } from '../served-cache.ts';

/**
 * An MRC-010 token's image is stored on chain as a data URI (metacoin-chain.md §3.2, §6). The image
 * endpoint serves it as PNG: PNG data as it is, any other format sharp reads (JPEG, GIF, WebP, SVG,
 * AVIF, TIFF …) converted.
 */

const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
/** Refuses decompression bombs: no token image is anywhere near 40 megapixels. */
const MAX_INPUT_PIXELS = 40_000_000;

/** The bytes of a `data:` URI (base64 or percent-encoded), or null when it is not one. */
export function dataUriBytes(uri: string): Uint8Array | null {
  const match = /^data:([^,]*),(.*)$/s.exec(uri.trim());
  if (!match) return null;
  const [, meta = '', data = ''] = match;
  if (meta.split(';').some((part) => part.trim().toLowerCase() === 'base64')) {
    const text = data.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return null;
    const bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    return bytes.length > 0 ? bytes : null;
  }
  try {
    const bytes = Buffer.from(decodeURIComponent(data), 'utf8');
    return bytes.length > 0 ? bytes : null;
  } catch {
    return null;
  }
}

export const isPng = (bytes: Uint8Array): boolean =>
  bytes.length > PNG_SIGNATURE.length && PNG_SIGNATURE.every((b, i) => bytes[i] === b);

/** PNG bytes of an image: PNG data as it is, anything else converted; null when it is no readable image. */
export async function toPng(bytes: Uint8Array): Promise<Uint8Array | null> {
  if (isPng(bytes)) return bytes;
  try {
    return await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).png().toBuffer();
  } catch {
    return null;
  }
}

/** PNG bytes by the image's digest, so sharp converts an image once, not per request. */
const converted = new LRUCache<string, Uint8Array>({ maxSize: 32 * 2 ** 20, sizeCalculation: (b) => b.length });

export const tokenImageRoute = defineBytesRoute({
  path: '/api/v1/token/{id}/image',
  operationId: 'getTokenImage',
  tag: 'tokens',
  summary: "A token's image, as PNG",
  description:
    "The token's on-chain image (a data URI) as image/png: PNG data is served as stored, other formats (JPEG, GIF, WebP, SVG …) are converted. 404 (JSON) when the token is unknown, has no image, or its data is not a readable image. The ETag is the chain position of the record the image comes from.",
  params: TokenIdParams,
  mediaTypes: ['image/png'],
  responseDescription: 'The image, PNG-encoded.',
  errors: [400, 404],
  cache: 'head',
  async handle({ params, head }, app) {
    const cache = servedCache<'image/png'>(app, 'token-image');
    const { height } = await head();
    const held = cache?.get(String(params.id));
    if (held?.height === height) return held;
    const doc = await app.models.tokenImages.get(String(params.id));
    if (!doc || doc.image === '') throw notFound(`token ${params.id} has no image`);
    // Converted once per image: keyed by its content, which no chain or reindex can change under it.
    const version = createHash('sha1').update(doc.image).digest('base64url');
    let png = converted.get(version) ?? null;
    if (!png) {
      const raw = dataUriBytes(doc.image);
      png = raw ? await toPng(raw) : null;
      if (png) converted.set(version, png);
    }
    if (!png) throw notFound(`the image of token ${params.id} is not a readable image`);
    const served: Served<'image/png'> = { height, bytes: png, mediaType: 'image/png', etag: `"${doc.pos}"` };
    cache?.set(String(params.id), served);
    return served;
  },
});
