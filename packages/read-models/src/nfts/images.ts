import { createHash } from 'node:crypto';
import { defineModel } from '../model.ts';

/**
 * NFT images as the API fetched them from the URLs on chain (`/api/v1/nft/{id}/image`), so an image
 * is fetched from its host once, not once per API process or restart. A cache, not a projection: no
 * chain event writes it, the API does (a plain `put`), a replay does not rebuild it and the canonical
 * dump leaves it out. Keyed by the URL, not the NFT: NFTs that share an image share one document, and
 * a record whose URL changes points at another document at once.
 */
export type NftImageDoc = {
  /** `nftImageId(url)`. */
  _id: string;
  /** The URL as fetched (normalised by the WHATWG URL parser). */
  url: string;
  /** Sniffed from the bytes: image/png, image/jpeg, image/gif or image/webp. */
  contentType: string;
  /** The image, base64. */
  bytes: string;
  /** Unix seconds. */
  fetchedAt: number;
};

export const nftImages = defineModel<NftImageDoc>('nft_image_cache');

/** The document id of a URL's image: its sha256 in hex (URLs are unbounded; ids stay short). */
export function nftImageId(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}
