import { z } from 'zod';
import { intParam } from './params.ts';

/**
 * Paging over lists that grow at the head. A page is a range of a dense, indexed position (block
 * height, transaction seq), so every page costs one range query whatever its number: no skip/offset
 * scan, and page p keeps meaning "the p-th newest slice" as the chain grows.
 */
export const MAX_LIMIT = 50;
/** The largest page of every paged list other than /blocks and /transactions. */
export const MAX_LIST_LIMIT = 100;
/** Pages beyond this are refused rather than computed: no list here is that long. */
export const MAX_PAGE = 1_000_000;

/** `page` (from 1, default 1) and `limit` (from 1 to `maxLimit`, default 20); anything else is a 400. */
export function pagingQuery(maxLimit: number, order: string) {
  return z.object({
    page: intParam(1, MAX_PAGE).default(1).describe(`1-based page number, ${order}.`),
    limit: intParam(1, maxLimit).default(20).describe(`Entries per page, at most ${maxLimit}.`),
  });
}

/** Paging of /blocks and /transactions (limit at most 50, as the spec says). */
export const PagingQuery = pagingQuery(MAX_LIMIT, 'newest first');
export type Paging = z.output<typeof PagingQuery>;

/** Paging of the other lists that grow at the head (limit at most 100). */
export const NewestFirstPaging = pagingQuery(MAX_LIST_LIMIT, 'newest first');

export function totalPages(total: number, limit: number): number {
  return Math.ceil(total / limit);
}
