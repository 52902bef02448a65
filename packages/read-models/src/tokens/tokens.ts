import type { TokenState } from '@mtc/domain';
import type { Collection, Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * MRC-010 tokens as the chain last wrote them, last write wins by chain position. The image (a
 * data URI, often tens of kilobytes) lives in its own collection, so that lists and joins never
 * carry it; only the detail and image endpoints read it.
 */
export type TokenDoc = Omit<TokenState, 'image'> & {
  /** The token id in decimal. */
  _id: string;
  pos: string;
  hasImage: boolean;
  /**
   * The job type of the write that produced this version (`tokenRegister`, `tokenIncrease`,
   * `tokenUpdate` …); absent in documents projected before it was recorded.
   */
  jobType?: string;
  /** Lower-cased name and symbol, for exact case-insensitive search. */
  nameKey: string;
  symbolKey: string;
};

export type TokenImageDoc = {
  /** The token id in decimal. */
  _id: string;
  pos: string;
  /** The on-chain `image` field: a data URI, or "" when the token has none. */
  image: string;
};

export const tokens = defineModel<TokenDoc>('tokens', [
  { fields: [['token', 1]], unique: true },
  { fields: [['nameKey', 1]] },
  { fields: [['symbolKey', 1]] },
]);
export const tokenImages = defineModel<TokenImageDoc>('token_images');

export function tokenWrites(pos: string, t: TokenState, jobType?: string): Write[] {
  const { image, ...rest } = t;
  const doc: TokenDoc = {
    ...rest,
    _id: String(t.token),
    pos,
    hasImage: image !== '',
    ...(jobType === undefined ? {} : { jobType }),
    nameKey: t.name.toLowerCase(),
    symbolKey: t.symbol.toLowerCase(),
  };
  const img: TokenImageDoc = { _id: String(t.token), pos, image };
  return [
    { op: 'putIfNewer', collection: tokens.name, doc },
    { op: 'putIfNewer', collection: tokenImages.name, doc: img },
  ];
}

/**
 * Tokens with ids in [from, to), ascending: token ids are dense from 0, so a page is the ids of a
 * range, read by key.
 */
export async function tokenRange(c: Collection<TokenDoc>, from: number, to: number): Promise<TokenDoc[]> {
  if (to <= from) return [];
  const docs = await c.getMany(Array.from({ length: to - from }, (_, i) => String(from + i)));
  return docs.sort((a, b) => a.token - b.token);
}

/** How many tokens exist: ids are dense from 0, so the highest id + 1. */
export async function tokenCount(c: Collection<TokenDoc>): Promise<number> {
  const [last] = await c.find({}, { sort: [['token', -1]], limit: 1 });
  return last ? last.token + 1 : 0;
}
