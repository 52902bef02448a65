import type { SeriesWindow } from '@mtc/read-models';
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
type CursorBody = { k: string; o: number } | { k: string; w: number };

export const CursorQuery = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be a cursor as a list answered it (next or prev)')
  .optional()
  .describe('A next or prev cursor from an earlier answer of the same list (same filters); page is then ignored.');

export const CursorFields = {
  next: z.string().nullable().describe('Cursor of the page of older rows; null on the oldest page.'),
  prev: z.string().nullable().describe('Cursor of the page of newer rows; null on the newest page (as of the answer).'),
};

/** What a list's description says of its cursors. */
export const CURSOR_DOC =
  'Cursor paging: each answer has next (older rows) and prev (newer rows) cursors; pass one as cursor, with the same filters and any limit, for the page beside. A cursor names a row number, so it keeps its place while new rows arrive at the head (page numbers shift; a cursor does not). A cursor of another list or other filters is a 400.';

const encode = (body: CursorBody): string => Buffer.from(JSON.stringify(body)).toString('base64url');

function decode(cursor: string, key: string): { older: boolean; n: number } {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('cursor: not a cursor this API gave');
  }
  const parsed = z
    .union([z.object({ k: z.string(), o: z.int() }).strict(), z.object({ k: z.string(), w: z.int() }).strict()])
    .safeParse(body);
  if (!parsed.success) throw badRequest('cursor: not a cursor this API gave');
  if (parsed.data.k !== key) throw badRequest('cursor: it belongs to another list or other filters');
  return 'o' in parsed.data ? { older: true, n: parsed.data.o } : { older: false, n: parsed.data.w };
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
