/**
 * ImageFetcher: the image an NFT record's URL points at, fetched from its host. Anyone can write any
 * URL on chain, so an implementation guards every fetch (schemes, addresses, deadline, size, type)
 * and answers with values, never exceptions: 404 when there is nothing to serve (no URL, a scheme or
 * target that is not fetched), 502 when the image host failed. Messages speak of the URL the client
 * already knows, never of resolved addresses or low-level errors.
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ImageOk {
  ok: true;
  bytes: Uint8Array;
  /** Sniffed from the bytes, never taken from the host's Content-Type. */
  contentType: ImageType;
}

export type ImageFailureCode =
  /** No URL at all (404). */
  | 'no_image'
  /** Not a URL, not http(s), or with credentials in it (404). */
  | 'unsupported_url'
  /** A host that is not allow-listed at (or resolving to) an address that is not public (404). */
  | 'forbidden_target'
  /** DNS failed, the connection was refused or reset, TLS failed (502). */
  | 'unreachable'
  /** The deadline passed, whether waiting for a slot, for headers or for the body (502). */
  | 'timeout'
  /** An answer other than 200, or a redirect without a usable Location (502). */
  | 'upstream_status'
  | 'too_many_redirects'
  | 'too_large'
  /** The bytes are no PNG, JPEG, GIF or WebP, SVG included (502). */
  | 'not_an_image'
  /** The host's (or the fetcher's) fetches in flight were at their limit for the whole wait (502). */
  | 'busy';

export interface ImageFailure {
  ok: false;
  status: 404 | 502;
  code: ImageFailureCode;
  message: string;
}

export type ImageResult = ImageOk | ImageFailure;

export interface ImageFetcher {
  /** The image at `url` (as stored on chain), or why there is none to serve. */
  fetch(url: string | null | undefined): Promise<ImageResult>;
  /** Closes the connections kept alive; for shutdown. */
  close(): Promise<void>;
}
