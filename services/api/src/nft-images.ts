import { createImageFetcher, sniffImageType, type ImageCache, type ImageFetcherOptions } from '@mtc/adapters';
import type { Collection, ImageFetcher, ImageOk, ReadStore } from '@mtc/ports';
import { COLLECTIONS, nftImageId, type NftImageDoc } from '@mtc/read-models';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ApiConfig } from './config.ts';

/**
 * The NFT image fetcher an API is started with (`ApiDeps.images`): the guarded fetcher of
 * @mtc/adapters, configured by NFT_IMAGE_*. Fetched images are kept in the read store (`nftImages`, a
 * cache beside the read models) and shared by every API process and restart, so a host is asked for
 * an image about once a day, not per request. Built by the process that starts the API; the app
 * itself sees only the port.
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

/** The fetcher's options from the API's config; the caller adds `cache` and `logger`. */
export function imageFetcherOptions(config: ApiConfig): ImageFetcherOptions {
  return {
    allowHosts: config.NFT_IMAGE_ALLOW_HOSTS,
    timeoutMs: config.NFT_IMAGE_TIMEOUT_MS,
    maxBytes: config.NFT_IMAGE_MAX_BYTES,
    maxInFlight: config.NFT_IMAGE_MAX_IN_FLIGHT,
    maxPerHost: config.NFT_IMAGE_MAX_PER_HOST,
    slotWaitMs: config.NFT_IMAGE_SLOT_WAIT_MS,
    failureTtlMs: config.NFT_IMAGE_FAILURE_TTL_MS,
  };
}

export function createNftImageFetcher(deps: {
  config: ApiConfig;
  logger: Logger;
  /** The one write the API makes: cache documents. */
  store: ReadStore;
  /** Wall clock in unix milliseconds (default: the system clock); tests pin it. */
  now?: () => number;
}): ImageFetcher {
  return createImageFetcher({
    ...imageFetcherOptions(deps.config),
    logger: deps.logger,
    cache: storeImageCache(
      deps.store.collection<NftImageDoc>(COLLECTIONS.nftImages),
      (writes) => deps.store.write(writes),
      deps.now ?? Date.now,
    ),
  });
}
