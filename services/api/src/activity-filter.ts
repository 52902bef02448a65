import { ActivityKinds, blockPos } from '@mtc/domain';
import {
  filterSuffix,
  SeriesList,
  type ActivityFilter,
  type Models,
  type SeriesRow,
  type SeriesWindow,
  windowSize,
} from '@mtc/read-models';
import type { Collection } from '@mtc/ports';
import { z } from 'zod';
import { intParam, TokenIdParam } from './params.ts';

/**
 * Filters of the activity lists (/address/{id}/txs, /token/{id}/txs and their exports). Token,
 * direction and kind pick a list the projection files the rows under (read-models `filters.ts`); a
 * height or time range is a window of its row numbers, found by bisection. So a filtered page costs what an
 * unfiltered one does, wherever it lies, and its total is exact.
 */
const HEIGHT = intParam(1, Number.MAX_SAFE_INTEGER);
const TIME = intParam(0, Number.MAX_SAFE_INTEGER);

/** A height and time range, as /api/export/txs takes it. */
export const RangeQuery = z.object({
  fromHeight: HEIGHT.optional().describe('Only blocks at this height or above.'),
  toHeight: HEIGHT.optional().describe('Only blocks at this height or below.'),
  fromTime: TIME.optional().describe(
    'From the first block whose time (unix seconds) is this or later (and, with toTime, this or earlier).',
  ),
  toTime: TIME.optional().describe(
    'Up to the last block whose time (unix seconds) is this or earlier (and, with fromTime, this or later).',
  ),
});
export type RangeQuery = z.output<typeof RangeQuery>;

const kind = z
  .enum(ActivityKinds)
  .optional()
  .describe("Only rows of this activity kind (the transaction's main action, as mtc.activity.v1 names it).");

/** The filters of an address's activity. */
export const AddressActivityFilter = z.object({
  token: TokenIdParam.optional().describe('Only rows about this MRC-010 token (0: the native coin).'),
  direction: z
    .enum(['in', 'out'])
    .optional()
    .describe('out: rows where the address is the sender (from); in: where it is the receiver (to).'),
  kind,
  ...RangeQuery.shape,
});

/** The filters of a token's activity. */
export const TokenActivityFilter = z.object({ kind, ...RangeQuery.shape });

export type ActivityQuery = z.output<typeof AddressActivityFilter>;
export type TokenActivityQuery = z.output<typeof TokenActivityFilter>;

/** What a list's description says of its filters. */
export const FILTERS_DOC =
  "Filters (each optional, all given apply together): token, direction and kind pick rows the projection files apart, so a filtered page costs what an unfiltered one does and total counts the filtered rows exactly; fromHeight/toHeight bound the rows by their block's height, and fromTime/toTime (unix seconds) by the span of heights from the first to the last block whose time is within them (a range that holds no block is an empty list). Block times are the proposer's clock and may run backwards; a block inside that span is in it whatever its time, so that a filtered list stays one range of rows (/api/export/txs, which streams, leaves such blocks out). A malformed or unknown value is a 400.";

/**
 * The heights `lo` … `hi` less those outside the time bounds: from the lowest to the highest height of
 * a block whose time is within them (null: no block is). Block times are the proposer's clock and may
 * run backwards; where they do, a block inside that span but outside the time bounds is inside too.
 */
export async function blockSpan(
  models: Models,
  lo: number,
  hi: number,
  q: RangeQuery,
): Promise<{ lo: number; hi: number } | null> {
  if (lo > hi) return null;
  if (q.fromTime === undefined && q.toTime === undefined) return { lo, hi };
  const window = {
    timestamp: { $gte: q.fromTime ?? 0, $lte: q.toTime ?? Number.MAX_SAFE_INTEGER },
    height: { $gte: lo, $lte: hi },
  };
  const [[first], [last]] = await Promise.all([
    models.blocks.find(window, { sort: [['height', 1]], limit: 1 }),
    models.blocks.find(window, { sort: [['height', -1]], limit: 1 }),
  ]);
  return first && last ? { lo: first.height, hi: last.height } : null;
}

/** A filtered list, its total and the window of row numbers its pages range over. */
export interface FilteredSeries<R extends SeriesRow> {
  list: SeriesList<R>;
  total: number;
  window: SeriesWindow;
}

/**
 * The list of `base` under the query's filters, and the window of its rows the range allows (and,
 * given `at`, no row above that height). `total` is the window's size.
 */
export async function filteredSeries<R extends SeriesRow>(
  models: Models,
  rows: Collection<R>,
  series: { readonly name: string },
  base: string,
  q: ActivityQuery | TokenActivityQuery,
  at?: number,
): Promise<FilteredSeries<R>> {
  const filter: ActivityFilter = { token: undefined, direction: undefined, ...q };
  const suffix = filterSuffix({ token: filter.token, direction: filter.direction, kind: filter.kind });
  const hi = Math.min(q.toHeight ?? Number.MAX_SAFE_INTEGER, at ?? Number.MAX_SAFE_INTEGER);
  const [list, span] = await Promise.all([
    SeriesList.open({ rows, refs: models.seriesRefs, counters: models.seriesCounters }, series, base, suffix),
    blockSpan(models, q.fromHeight ?? 1, hi, q),
  ]);
  if (span === null) return { list, total: 0, window: { first: 1, last: 0 } };
  const window = await list.window({
    after: span.lo <= 1 ? undefined : blockPos(span.lo - 1),
    upTo: span.hi === Number.MAX_SAFE_INTEGER ? undefined : blockPos(span.hi),
  });
  return { list, total: windowSize(window), window };
}
