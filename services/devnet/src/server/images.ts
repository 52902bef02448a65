import { createHash } from 'node:crypto';
import sharp from 'sharp';

/**
 * The NFT images the devnet's clients point their records at (`world/images.ts` nftImageUrl):
 * `GET /images/<name>.png` or `.jpg` answers a small image of that type, drawn from the name (two
 * colours and a stripe width from its sha256), so every NFT has an image, images differ, and the
 * same URL always gives the same bytes. A real NFT's image lives on some web host; this stands in
 * for those hosts, offline.
 */
export const IMAGE_PATH = /^\/images\/([A-Za-z0-9]{1,64})\.(png|jpg)$/;

export const IMAGE_TYPES = { png: 'image/png', jpg: 'image/jpeg' } as const;
export type ImageExt = keyof typeof IMAGE_TYPES;

const SIZE = 64;
/** Rendered images kept (a few KB each): NFT images are few and asked for again and again. */
const CACHE_ENTRIES = 512;

export function createImageRenderer() {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    render(name: string, ext: ImageExt): Promise<Buffer> {
      const key = `${name}.${ext}`;
      let image = cache.get(key);
      if (!image) {
        if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
        image = draw(name, ext);
        // A failed render is not kept: the next request tries again.
        image.catch(() => cache.delete(key));
        cache.set(key, image);
      }
      return image;
    },
  };
}

async function draw(name: string, ext: ImageExt): Promise<Buffer> {
  const h = createHash('sha256').update(name).digest();
  const stripe = 4 + (h[6]! % 8);
  const pixels = Buffer.alloc(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const c = Math.floor((x + y) / stripe) % 2 === 0 ? 0 : 3;
      pixels.set([h[c]!, h[c + 1]!, h[c + 2]!], (y * SIZE + x) * 3);
    }
  }
  const image = sharp(pixels, { raw: { width: SIZE, height: SIZE, channels: 3 } });
  return ext === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 80 }).toBuffer();
}
