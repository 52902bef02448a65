import type { ImageFailure, ImageType } from '@mtc/ports';
import { badGateway, notFound, type ApiError } from '../../errors.ts';
import { defineBytesRoute } from '../../route.ts';
import { servedCache } from '../served-cache.ts';
import { NftIdParams, nftImageUrl } from './nfts.ts';

/**
 * An NFT's image (`/api/v1/nft/{id}/image`): the URL its record names, fetched by the guarded fetcher
 * (`ImageFetcher`) and served as the host sent it, never converted; Content-Type is the type sniffed
 * from the bytes. Fetched images are kept in the read store (nft-images.ts).
 */

/** A fetch failure as the client sees it: 404 when there is nothing to serve, 502 when the host failed. */
function imageError(id: string, failure: ImageFailure): ApiError {
  const message = `the image of NFT ${id} cannot be served: ${failure.message} (${failure.code})`;
  switch (failure.status) {
    case 404:
      return notFound(message);
    case 502:
      return badGateway(message);
  }
}

/** A strong validator from the content: hashed off the event loop (WebCrypto runs on the thread pool). */
async function contentTag(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return `"${Buffer.from(digest).toString('base64url')}"`;
}

export const nftImageRoute = defineBytesRoute({
  path: '/api/v1/nft/{id}/image',
  operationId: 'getNftImage',
  tag: 'nfts',
  summary: "An NFT's image, as its host serves it",
  description:
    "The image the NFT's record names (a collection's image_url, an item's own image or else its collection's item image template, an MRC-402's image), fetched from its host and served as sent: Content-Type is the type sniffed from the bytes (PNG, JPEG, GIF or WebP; SVG is not served). 400 for a malformed id; 404 (JSON) when the NFT is unknown, has no image, or its URL is not one the API fetches (not http(s), or a private address); 502 (JSON) when the image host fails (timeout, too large, not an image, an error status, busy, unreachable). The ETag is a hash of the image's content.",
  params: NftIdParams,
  mediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  responseDescription: 'The image, as its host serves it.',
  errors: [400, 404, 502],
  // Its outside fetch has a deadline of its own (the slot wait included), on top of the store reads.
  timeBudgetMs: (config) => config.API_REQUEST_TIMEOUT_MS + config.NFT_IMAGE_TIMEOUT_MS,
  // The URL moves with the indexed head (a record update may name another image), so the answer is
  // only good as long as a head is; the content ETag makes the frequent revalidation a 304 without a
  // body. A longer max-age would keep showing an image the chain has replaced.
  cache: 'head',
  async handle({ params, head }, app) {
    // What this process served for the id at this indexed height: no store read, fetch or hash.
    const cache = servedCache<ImageType>(app, 'nft-image');
    const { height } = await head();
    const held = cache?.get(params.id);
    if (held?.height === height) return held;
    const url = await nftImageUrl(app.models, params.id);
    if (url === null) throw notFound(`NFT ${params.id} not found`);
    const image = await app.images.fetch(url);
    if (!image.ok) throw imageError(params.id, image);
    const served = { height, bytes: image.bytes, mediaType: image.contentType, etag: await contentTag(image.bytes) };
    cache?.set(params.id, served);
    return served;
  },
});
