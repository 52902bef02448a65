import { DEFAULT_IMAGE_ORIGIN } from '../chain/options.ts';
import type { PlanContext } from '../jobs/job.ts';

/**
 * An NFT image URL a client writes (MRC-400 `image_url`, `item_image_url`, MRC-402 `image`). The devnet's
 * server answers every such path with an image drawn from the random name, so NFT images resolve offline.
 */
export function nftImageUrl(ctx: Pick<PlanContext, 'rng' | 'imageOrigin'>): string {
  const ext = ctx.rng.chance(0.5) ? 'png' : 'jpg';
  return `${ctx.imageOrigin ?? DEFAULT_IMAGE_ORIGIN}/images/${ctx.rng.alnum(16)}.${ext}`;
}
