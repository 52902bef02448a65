import { COLLECTIONS, nftImageId, type NftImageDoc } from '@mtc/read-models';
import type { Collection, ReadStore } from '@mtc/ports';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ApiConfig } from '../../config.ts';
import { badGateway, notFound, type ApiError } from '../../errors.ts';
import { defineBytesRoute } from '../../route.ts';
import {
  createImageFetcher,
  imageFetcherOptions,
  sniffImageType,
  type ImageCache,
  type ImageFailure,
  type ImageFetcher,
  type ImageOk,
  type ImageType,
} from './image-fetch.ts';
import { servedCache } from '../served-cache.ts';
import { NftIdParams, nftImageUrl } from './nfts.ts';

/**
 * An NFT's image (`/api/v1/nft/{id}/image`): the URL its record names, fetched by the guarded fetcher
 * (image-fetch.ts) and served as the host sent it, never converted; Content-Type is the type sniffed
 * from the bytes. Fetched images are kept in the read store (`nftImages`, a cache beside the read
 * models) and shared by every API process and restart, so a host is asked for an image about once a
 * day, not per request.
 */

/**
 * A stored image is served this long, then its URL is fetched again: the bytes behind a URL may
 * change upstream, and the explorer should follow within a day without asking the host per request.
 */
const STORED_MAX_AGE_MS = 24 * 3600 * 1000;
/** Larger images are served but not stored: base64 grows them by a third, and a MongoDB document holds 16 MiB. */
const STORED_MAX_BYTES = 8 * 2 ** 20;

/** Decoded images a process keeps in front of the store, by URL: a busy image costs no store read. */
const HELD_MAX_BYTES = 32 * 2 ** 20;

/**
 * The fetcher's cache in the read store, with the decoded images held in memory in front of it (each
 * until its stored copy expires). Only `write` and the cache's own collection are used: the API
 * writes nothing else. A failed write is logged by the fetcher and costs one more fetch later.
 */
function storeImageCache(images: Collection<NftImageDoc>, write: ReadStore['write'], now: () => number): ImageCache {
  const held = new LRUCache<string, { image: ImageOk; fetchedAtMs: number }>({
    maxSize: HELD_MAX_BYTES,
    sizeCalculation: (h) => h.image.bytes.length + 64,
  });
  const fresh = (fetchedAtMs: number) => now() - fetchedAtMs <= STORED_MAX_AGE_MS;
  return {
    async get(url) {
      const inMemory = held.get(url);
      if (inMemory && fresh(inMemory.fetchedAtMs)) return inMemory.image;
      const doc = await images.get(nftImageId(url));
      if (!doc || doc.url !== url || !fresh(doc.fetchedAt * 1000)) return null;
      const bytes = Buffer.from(doc.bytes, 'base64');
      // Judged from the bytes again, as when fetched: the stored type string is for people.
      const contentType = sniffImageType(bytes);
      if (!contentType) return null;
      const image: ImageOk = { ok: true, bytes, contentType };
      held.set(url, { image, fetchedAtMs: doc.fetchedAt * 1000 });
      return image;
    },
    async put(url, image) {
      held.set(url, { image, fetchedAtMs: now() });
      if (image.bytes.length > STORED_MAX_BYTES) return;
      const doc: NftImageDoc = {
        _id: nftImageId(url),
        url,
        contentType: image.contentType,
        bytes: Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString('base64'),
        fetchedAt: Math.floor(now() / 1000),
      };
      await write([{ op: 'put', collection: COLLECTIONS.nftImages, doc }]);
    },
  };
}

/** The API's image fetcher: configured by NFT_IMAGE_*, its successes kept in the store's image cache. */
export function createNftImageFetcher(deps: {
  config: ApiConfig;
  logger: Logger;
  images: Collection<NftImageDoc>;
  /** The one write the API makes: cache documents. */
  write: ReadStore['write'];
  now: () => number;
}): ImageFetcher {
  return createImageFetcher({
    ...imageFetcherOptions(deps.config),
    logger: deps.logger,
    cache: storeImageCache(deps.images, deps.write, deps.now),
  });
}

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
