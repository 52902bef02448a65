import { DEFAULT_IMAGE_ORIGIN } from '../chain/options.ts';
import type { PlanContext } from '../jobs/job.ts';

/**
 * An image URL an NFT's client writes into its call (an MRC-400 `image_url`, an item's
 * `item_image_url`, an MRC-402 `image`): `<origin>/images/<name>.png` or `.jpg`. The devnet's server
 * answers every such path with an image of that type drawn from the name, so NFT images resolve
 * offline; the name is random, so images differ.
 */
export function nftImageUrl(ctx: Pick<PlanContext, 'rng' | 'imageOrigin'>): string {
  const ext = ctx.rng.chance(0.5) ? 'png' : 'jpg';
  return `${ctx.imageOrigin ?? DEFAULT_IMAGE_ORIGIN}/images/${ctx.rng.alnum(16)}.${ext}`;
}
