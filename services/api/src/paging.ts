import { z } from 'zod';
import { intParam } from './params.ts';

/**
 * Paging over lists that grow at the head. A page is a range of a dense, indexed position (block
 * height, transaction seq), so every page costs one range query whatever its number: no skip/offset
 * scan, and page p keeps meaning "the p-th newest slice" as the chain grows.
 */
export const MAX_LIMIT = 50;
/** Pages beyond this are refused rather than computed: no list here is that long. */
export const MAX_PAGE = 1_000_000;

export const PagingQuery = z.object({
  page: intParam(1, MAX_PAGE).default(1).describe('1-based page number, newest first.'),
  limit: intParam(1, MAX_LIMIT).default(20).describe(`Entries per page, at most ${MAX_LIMIT}.`),
});
export type Paging = z.output<typeof PagingQuery>;

/** Positions [from, to) of page `page` in a newest-first list of positions 0 … total − 1; null past the end. */
export function newestFirstWindow(total: number, { page, limit }: Paging): { from: number; to: number } | null {
  const to = total - (page - 1) * limit;
  if (to <= 0) return null;
  return { from: Math.max(0, to - limit), to };
}

export function totalPages(total: number, limit: number): number {
  return Math.ceil(total / limit);
}
