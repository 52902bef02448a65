import type { RankedSeek, SeriesWindow } from '@mtc/read-models';
import { z } from 'zod';
import { badRequest } from './errors.ts';

/**
 * Cursor paging of the numbered lists (series: read-models `series.ts`). A row keeps its number for
 * good, so a cursor names a number and a direction: `older` pages hold that number and the ones
 * below it, `newer` pages that number and the ones above. New rows at the head shift page numbers,
 * never a cursor. A cursor is bound to its list (the series key, filters included): used on another
 * it is a 400. It is opaque to clients: base64url of a small JSON object. A list in ascending order
 * (`oldestFirst`) is paged as the newest-first list of its negated numbers, so the same cursors
 * serve it: `next` is then the page of higher numbers.
 */
/** The longest entry key a keyed cursor holds (a holder key is about 90 characters). */
const MAX_KEY = 200;

const Body = z.union([
  z.object({ k: z.string(), o: z.int() }).strict(),
  z.object({ k: z.string(), w: z.int() }).strict(),
  z.object({ k: z.string(), a: z.string().max(MAX_KEY) }).strict(),
  z.object({ k: z.string(), b: z.string().max(MAX_KEY) }).strict(),
]);
type CursorBody = z.infer<typeof Body>;

export const CursorQuery = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be a cursor as a list answered it (next or prev)')
  .optional()
  .describe('A next or prev cursor from an earlier answer of the same list (same filters); page is then ignored.');

export const CursorFields = {
  next: z.string().nullable().describe('Cursor of the page of older rows; null on the oldest page.'),
  prev: z.string().nullable().describe('Cursor of the page of newer rows; null on the newest page (as of the answer).'),
};

/** The cursors of an oldest-first list's answer (`cursorPage` with `oldestFirst`). */
export const LaterCursorFields = {
  next: z
    .string()
    .nullable()
    .describe('Cursor of the page of later entries; null on the newest page (as of the answer).'),
  prev: z.string().nullable().describe('Cursor of the page of earlier entries; null on the first page.'),
};

/** The cursors of a ranked list's answer (`rankedCursors`). */
export const RankedCursorFields = {
  next: z.string().nullable().describe("Cursor of the page after this one in the list's order; null on the last page."),
  prev: z
    .string()
    .nullable()
    .describe("Cursor of the page before this one in the list's order; null on the first page."),
};

/** What a list's description says of its cursors. */
export const CURSOR_DOC =
  'Cursor paging: each answer has next (older rows) and prev (newer rows) cursors; pass one as cursor, with the same filters and any limit, for the page beside. A cursor names a row number, so it keeps its place while new rows arrive at the head (page numbers shift; a cursor does not). A cursor of another list or other filters is a 400.';

const encode = (body: CursorBody): string => Buffer.from(JSON.stringify(body)).toString('base64url');

function decodeBody(cursor: string, key: string): CursorBody {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('cursor: not a cursor this API gave');
  }
  const parsed = Body.safeParse(body);
  if (!parsed.success) throw badRequest('cursor: not a cursor this API gave');
  if (parsed.data.k !== key) throw badRequest('cursor: it belongs to another list or other filters');
  return parsed.data;
}

function decode(cursor: string, key: string): { older: boolean; n: number } {
  const body = decodeBody(cursor, key);
  if ('o' in body) return { older: true, n: body.o };
  if ('w' in body) return { older: false, n: body.w };
  throw badRequest('cursor: it belongs to another list or other filters');
}

/** The row numbers of one page, newest first, and the cursors around it. */
export interface CursorPage {
  /** Row numbers `from` … `to` (both included; none when to < from). */
  from: number;
  to: number;
  /** The page number the newest row of this page is on now (for the `page` field). */
  page: number;
  next: string | null;
  prev: string | null;
}

/**
 * The page a query names in a newest-first list of `window` (of series `key`), or with `oldestFirst`
 * an ascending one: by `cursor` when one is given, else by `page`.
 */
export function cursorPage(
  key: string,
  window: SeriesWindow,
  q: { page: number; limit: number; cursor?: string | undefined },
  order: { oldestFirst?: boolean } = {},
): CursorPage {
  if (order.oldestFirst) {
    const p = cursorPage(key, { first: -window.last, last: -window.first }, q);
    return { ...p, from: -p.to, to: -p.from };
  }
  const { limit } = q;
  let to: number;
  let from: number;
  if (q.cursor === undefined) {
    to = window.last - (q.page - 1) * limit;
    from = Math.max(window.first, to - limit + 1);
  } else {
    const c = decode(q.cursor, key);
    if (c.older) {
      to = Math.min(c.n, window.last);
      from = Math.max(window.first, to - limit + 1);
    } else {
      from = Math.max(c.n, window.first);
      to = Math.min(window.last, from + limit - 1);
    }
  }
  const empty = to < from;
  return {
    from,
    to,
    page: q.cursor === undefined ? q.page : Math.floor((window.last - to) / limit) + 1,
    next: !empty && from > window.first ? encode({ k: key, o: from - 1 }) : null,
    prev: !empty && to < window.last ? encode({ k: key, w: to + 1 }) : null,
  };
}

/**
 * Cursor paging of the ranked lists (holders by balance, locks by date: read-models `ranked.ts`).
 * Their order is by a value that changes, so a cursor names the entry key of a row (its rank and
 * address) and a side: `after` pages start just past that key, `before` pages end just short of it,
 * wherever that key now is, listed or not. A row whose rank does not change while a client walks
 * is seen exactly once; a row that moves across the cursor between two pages may be seen twice or
 * not at all (as in any keyset over changing values).
 */
export const RANKED_CURSOR_DOC =
  'Cursor paging: each answer has next (lower-ranked rows) and prev (higher-ranked rows) cursors; pass one as cursor, with any limit, for the page beside. A cursor names a row by its place in the order (its rank and address), so a page deep in the list costs what page 1 does and new rows above it do not shift it; a holder whose rank changes between two pages may move across the cursor (seen twice or not at all). A cursor of another list is a 400.';

/** Where the page a query names starts in ranked list `key` (`cursor` first, else `page`). */
export function rankedSeek(key: string, q: { page?: number; limit: number; cursor?: string | undefined }): RankedSeek {
  if (q.cursor === undefined) return { skip: ((q.page ?? 1) - 1) * q.limit };
  const body = decodeBody(q.cursor, key);
  if ('a' in body) return { after: body.a };
  if ('b' in body) return { before: body.b };
  throw badRequest('cursor: it belongs to another list or other filters');
}

/**
 * The page number and cursors of a page of a ranked list, its first row at `start` of `size`: the
 * page asked for, or by a cursor the page its first row is on now.
 */
export function rankedCursors(
  key: string,
  page: { keys: readonly string[]; start: number; size: number },
  q: { page?: number; limit: number; cursor?: string | undefined },
): { page: number; next: string | null; prev: string | null } {
  const first = page.keys[0];
  const last = page.keys.at(-1);
  return {
    page: q.cursor === undefined ? (q.page ?? 1) : Math.floor(page.start / q.limit) + 1,
    next: last !== undefined && page.start + page.keys.length < page.size ? encode({ k: key, a: last }) : null,
    prev: first !== undefined && page.start > 0 ? encode({ k: key, b: first }) : null,
  };
}
