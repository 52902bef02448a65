import { crc32, deflateSync } from 'node:zlib';
import type { Rng } from '../rng.ts';

/**
 * What wallet apps put into calls, plausible but fake (no private keys exist), and ASCII without `<`, `>`
 * or `&`, so JSON.stringify writes it byte for byte as Go's encoding/json would.
 */

/** DER SubjectPublicKeyInfo header of an uncompressed P-256 point (id-ecPublicKey, prime256v1). */
const P256_SPKI_HEADER = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d03010703420004', 'hex');

/** A PEM public key of the P-256 shape, with 64 random "point" bytes. */
export function fakePublicKeyPem(rng: Rng): string {
  const body = Buffer.concat([P256_SPKI_HEADER, rng.bytes(64)]).toString('base64');
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

/** A base64 DER ECDSA-Sig-Value { r, s } of P-256 size (a signed INTEGER: a high first byte takes a 0 before). */
export function fakeSignature(rng: Rng): string {
  const integer = (b: Uint8Array) => Buffer.concat([Buffer.from(b[0]! >= 0x80 ? [0x02, 33, 0] : [0x02, 32]), b]);
  const body = Buffer.concat([integer(rng.bytes(32)), integer(rng.bytes(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString('base64');
}

// prettier-ignore
const WORDS = [
  'alpha', 'amber', 'apple', 'arena', 'aster', 'basin', 'beacon', 'birch', 'blaze', 'brook', 'canyon', 'cedar',
  'cinder', 'cloud', 'comet', 'coral', 'delta', 'drift', 'ember', 'falcon', 'fjord', 'flint', 'forge', 'frost',
  'galaxy', 'garnet', 'glade', 'harbor', 'hazel', 'helix', 'iris', 'jade', 'kestrel', 'lagoon', 'lotus', 'lumen',
  'maple', 'meadow', 'meteor', 'mist', 'nebula', 'nova', 'oasis', 'onyx', 'orbit', 'pearl', 'pine', 'prism',
  'quartz', 'raven', 'reef', 'ridge', 'river', 'sable', 'sierra', 'solar', 'spruce', 'summit', 'tide', 'topaz',
  'tundra', 'vale', 'vertex', 'willow', 'zenith', 'zephyr',
] as const;

export function fakeWords(rng: Rng, min: number, max: number): string {
  const count = rng.int(min, max);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(rng.pick(WORDS));
  return words.join(' ');
}

export function fakeMemo(rng: Rng): string {
  return rng.chance(0.6) ? '' : fakeWords(rng, 1, 6);
}

/** A transfer tag (≤ 64 characters on chain). */
export function fakeTag(rng: Rng): string {
  if (rng.chance(0.7)) return '';
  return rng.chance(0.5)
    ? rng.pick(['payment', 'tip', 'salary', 'refund', 'airdrop', 'reward'])
    : `order-${rng.int(1, 999_999)}`;
}

export function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A `data:image/png;base64,` URI of a real 8×8 two-colour PNG, as the API stores token images. */
export function fakePngDataUri(rng: Rng): string {
  const [a, b] = [rng.bytes(3), rng.bytes(3)];
  const rows: number[] = [];
  for (let y = 0; y < 8; y++) {
    rows.push(0); // filter type None
    for (let x = 0; x < 8; x++) rows.push(...((x + y) % 2 === 0 ? a : b));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8, 0); // width
  ihdr.writeUInt32BE(8, 4); // height
  ihdr.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter, no interlace
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.from(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
