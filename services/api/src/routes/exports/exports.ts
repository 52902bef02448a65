import { blockPos } from '@mtc/domain';
import {
  assetSumAt,
  holdingLog,
  addressTxs,
  collectionHolderView,
  holdersAt,
  holdingAsset,
  mrc402HolderView,
  seriesRowsBetween,
  windowSize,
  statsDay,
  tokenHolderView,
  tokenTxs,
  type AddressTxDoc,
  type Models,
  type SeriesRow,
  type TokenTxDoc,
} from '@mtc/read-models';
import type { Collection } from '@mtc/ports';
import { z } from 'zod';
import {
  AddressActivityFilter,
  blockSpan,
  filteredSeries,
  TokenActivityFilter,
  type ActivityQuery,
  type TokenActivityQuery,
} from '../../activity-filter.ts';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { AddressParam, intParam, TokenIdParams } from '../../params.ts';
import { defineStreamRoute, type StreamInput } from '../../route.ts';
import { AddressActivity } from '../addresses/schemas.ts';
import { toAddressActivity } from '../addresses/addresses.ts';
import { CollectionOrMrc402IdParam } from '../nfts/nfts.ts';
import { NftHolder } from '../nfts/schemas.ts';
import { nowSeconds } from '../tokens/holders.ts';
import { TokenHolder, TokenTransfer } from '../tokens/schemas.ts';
import { toTokenTransfer } from '../tokens/activity.ts';
import { requireToken } from '../tokens/tokens.ts';
import { TxListEntry } from '../txs/schemas.ts';
import { toTxListEntries } from '../txs/txs.ts';
import { DailyTxCount } from './schemas.ts';
import { chooseFormat, exportAnswer, FormatQuery, MEDIA_TYPES, overCap, type Format } from './stream.ts';

/**
 * Streamed exports (CSV or NDJSON) of what the paged lists show, each row the list's item, all
 * consistent as of one indexed height H: the head when the export starts (X-Indexed-Height and the
 * first line). Facts (transactions, series rows, daily counts) are those at or below H; holders are
 * read as of H through the holding-change log (`holdersAt`), in address order. The store is read
 * by key range, EXPORT_PAGE_ROWS at a time (see stream.ts for the wire format and back-pressure).
 */

const MEDIA = [MEDIA_TYPES.csv, MEDIA_TYPES.ndjson] as const;
const RESPONSE =
  'The rows, streamed. NDJSON: a first line {"indexed_height":H,"export":…}, then one JSON object per row. CSV: a first line `# indexed_height=H`, the header row, then one row per line (array and object cells as compact JSON). An export cut short ends with an error line ({"error":…} or `# error: …`).';
const ERRORS = [400, 404] as const;

const columnsOf = (schema: z.ZodObject): string[] => Object.keys(schema.shape);

/** One export's parts, as the handlers below assemble them. */
function answer(
  input: StreamInput<unknown, { format?: Format | undefined }>,
  app: AppContext,
  name: string,
  height: number,
  rows: z.ZodObject,
  meta: Record<string, unknown>,
  pages: AsyncIterable<readonly object[]>,
) {
  return exportAnswer({
    name,
    format: chooseFormat(input.query.format, input.accept),
    height,
    columns: columnsOf(rows),
    meta,
    pages,
    maxRows: app.config.EXPORT_MAX_ROWS,
    pageTimeoutMs: app.config.EXPORT_PAGE_TIMEOUT_MS,
    signal: input.signal,
    logger: app.logger,
  });
}

/** Maps each page of `source` through `map` (which may read more, e.g. token names). */
async function* mapPages<T, R>(
  source: AsyncIterable<readonly T[]>,
  map: (page: readonly T[]) => R[] | Promise<R[]>,
): AsyncGenerator<R[]> {
  for await (const page of source) yield await map(page);
}

// ---------------------------------------------------------------- transactions

/** The seq range of the transactions in blocks lo … hi (inclusive); null when there are none. */
async function seqRange(models: Models, lo: number, hi: number): Promise<{ first: number; last: number } | null> {
  if (lo > hi) return null;
  const range = { height: { $gte: lo, $lte: hi } };
  const [[low], [high]] = await Promise.all([
    models.txs.find(range, { sort: [['height', 1]], limit: 1 }),
    models.txs.find(range, { sort: [['height', -1]], limit: 1 }),
  ]);
  if (!low || !high) return null;
  // A block's transactions are few: its seq range is read whole.
  const [first, last] = await Promise.all([
    models.txs.find({ height: low.height }),
    models.txs.find({ height: high.height }),
  ]);
  return { first: Math.min(...first.map((t) => t.seq)), last: Math.max(...last.map((t) => t.seq)) };
}

async function* txPages(
  models: Models,
  first: number,
  last: number,
  pageSize: number,
  keep: (row: TxListEntry) => boolean,
): AsyncGenerator<TxListEntry[]> {
  for (let seq = first; seq <= last;) {
    const docs = await models.txs.find(
      { seq: { $gte: seq, $lte: Math.min(last, seq + pageSize - 1) } },
      { sort: [['seq', 1]], limit: pageSize },
    );
    if (docs.length === 0) return;
    yield (await toTxListEntries(models, docs)).filter(keep);
    seq = docs.at(-1)!.seq + 1;
  }
}

const HeightParam = intParam(1, Number.MAX_SAFE_INTEGER);
const UnixParam = intParam(0, Number.MAX_SAFE_INTEGER);

export const ExportTxsQuery = z.object({
  fromHeight: HeightParam.optional().describe('First block height (default 1).'),
  toHeight: HeightParam.optional().describe('Last block height (default: the indexed height).'),
  fromTime: UnixParam.optional().describe('First block time, unix seconds (default: no limit).'),
  toTime: UnixParam.optional().describe('Last block time, unix seconds (default: no limit).'),
  format: FormatQuery,
});

export const exportTxsRoute = defineStreamRoute({
  path: '/api/export/txs',
  operationId: 'exportTxs',
  tag: 'exports',
  summary: 'Transactions of a height or time range, streamed (CSV or NDJSON), oldest first',
  description:
    "Every bound is optional and all that are given apply together: a height range (fromHeight, toHeight; default the whole indexed history) and a time range (fromTime, toTime, unix seconds of the blocks' times; default no limit). Rows are the /transactions items of the blocks in range at or below the indexed height H, in chain order; a range that holds no block is an empty export. Over EXPORT_MAX_ROWS transactions in range: 400 before any row.",
  query: ExportTxsQuery,
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: TxListEntry,
  errors: ERRORS,
  async handle(input, app) {
    const { query } = input;
    const { models } = app;
    const { height } = await input.head();
    // Every bound is optional and all given bounds apply together: heights default to the whole
    // indexed history, times to no limit. A range that holds nothing is an empty export, not an error.
    let lo = query.fromHeight ?? 1;
    let hi = Math.min(query.toHeight ?? height, height);
    let keep: (row: TxListEntry) => boolean = () => true;
    const meta: Record<string, unknown> = { fromHeight: lo, toHeight: hi };
    if (query.fromTime !== undefined || query.toTime !== undefined) {
      const from = query.fromTime ?? 0;
      const to = query.toTime ?? Number.MAX_SAFE_INTEGER;
      // The span of blocks in the window; rows of blocks outside it (block times may run backwards)
      // are left out.
      const span = await blockSpan(models, lo, hi, query);
      if (span === null) hi = lo - 1;
      else ({ lo, hi } = span);
      keep = (row) => row.blockTs >= from && row.blockTs <= to;
      if (query.fromTime !== undefined) meta['fromTime'] = from;
      if (query.toTime !== undefined) meta['toTime'] = to;
    }
    const range = await seqRange(models, lo, hi);
    const count = range === null ? 0 : range.last - range.first + 1;
    if (count > app.config.EXPORT_MAX_ROWS) throw overCap(count, app.config.EXPORT_MAX_ROWS, 'the range');
    const pages = range === null ? emptyPages() : txPages(models, range.first, range.last, pageRows(app), keep);
    return answer(input, app, 'txs', height, TxListEntry, meta, pages);
  },
});

// ---------------------------------------------------------------- series (address activity, token transfers)

const pageRows = (app: AppContext): number => app.config.EXPORT_PAGE_ROWS;

async function* emptyPages(): AsyncGenerator<never[]> {}

/**
 * A list's rows at or below H, under the query's filters (activity-filter.ts), counted up front (the
 * cap) and paged oldest first.
 */
async function seriesAt<R extends SeriesRow>(
  rows: Collection<R>,
  series: { readonly name: string },
  base: string,
  height: number,
  query: ActivityQuery | TokenActivityQuery,
  app: AppContext,
): Promise<AsyncGenerator<R[]>> {
  const { list, window } = await filteredSeries(app.models, rows, series, base, query, height);
  const count = windowSize(window);
  if (count > app.config.EXPORT_MAX_ROWS) throw overCap(count, app.config.EXPORT_MAX_ROWS, 'the query');
  return seriesRowsBetween(list, window, pageRows(app));
}

export const exportAddressActivityRoute = defineStreamRoute({
  path: '/api/export/address/{address}/activity',
  operationId: 'exportAddressActivity',
  tag: 'exports',
  summary: "A wallet's activity, streamed (CSV or NDJSON), oldest first",
  description:
    'Rows are the /address/{id}/txs entries at or below the indexed height H, in chain order (the list shows them newest first), with the same filters. 400 when the address is not of the address form; 404 when its checksum fails (no such address) or no such wallet is indexed.',
  params: z.object({ address: AddressParam }),
  query: z.object({ format: FormatQuery, ...AddressActivityFilter.shape }),
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: AddressActivity,
  errors: ERRORS,
  async handle(input, app) {
    const { address } = input.params;
    const [{ height }, wallet] = await Promise.all([input.head(), app.models.wallets.get(address)]);
    if (!wallet) throw notFound(`address ${address} not found`);
    const rows = await seriesAt<AddressTxDoc>(app.models.addressTxs, addressTxs, address, height, input.query, app);
    const pages = mapPages(rows, (page) => toAddressActivity(app.models, page));
    return answer(input, app, `activity-${address}`, height, AddressActivity, { address }, pages);
  },
});

export const exportTokenTransfersRoute = defineStreamRoute({
  path: '/api/export/token/{id}/transfers',
  operationId: 'exportTokenTransfers',
  tag: 'exports',
  summary: "A token's activity, streamed (CSV or NDJSON), oldest first",
  description:
    'Rows are the /token/{id}/txs entries (transfers, reserves, mints, burns, DEX orders) at or below the indexed height H, in chain order (the list shows them newest first), with the same filters.',
  params: TokenIdParams,
  query: z.object({ format: FormatQuery, ...TokenActivityFilter.shape }),
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: TokenTransfer,
  errors: ERRORS,
  async handle(input, app) {
    const token = input.params.id;
    const [{ height }] = await Promise.all([input.head(), requireToken(app.models, token)]);
    const rows = await seriesAt<TokenTxDoc>(app.models.tokenTxs, tokenTxs, String(token), height, input.query, app);
    const pages = mapPages(rows, (page) => page.map(toTokenTransfer));
    return answer(input, app, `token-${token}-transfers`, height, TokenTransfer, { token }, pages);
  },
});

// ---------------------------------------------------------------- holders

export const exportTokenHoldersRoute = defineStreamRoute({
  path: '/api/export/token/{id}/holders',
  operationId: 'exportTokenHolders',
  tag: 'exports',
  summary: "A token's holders at the indexed height, streamed (CSV or NDJSON), by address",
  description:
    "Rows are the /token/{id}/holders items as they stood at the indexed height H, in address order (the list shows them by balance); locks are as of now, as in the list. Over EXPORT_MAX_ROWS holders: 400 before any row (the holder count is the token's at the start).",
  params: TokenIdParams,
  query: z.object({ format: FormatQuery }),
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: TokenHolder,
  errors: ERRORS,
  async handle(input, app) {
    const token = input.params.id;
    const { models } = app;
    const [{ height }, , stats] = await Promise.all([
      input.head(),
      requireToken(models, token),
      models.holderStats.get(String(token)),
    ]);
    const count = stats?.holders ?? 0;
    if (count > app.config.EXPORT_MAX_ROWS) throw overCap(count, app.config.EXPORT_MAX_ROWS, 'the query');
    const now = nowSeconds(app.now());
    const rows = holdersAt({
      rows: models.holders,
      idPrefix: `${token}:`,
      log: holdingLog(models),
      asset: holdingAsset('mrc010', token),
      at: blockPos(height),
      pageSize: pageRows(app),
    });
    const pages = mapPages(rows, (page) => page.map((row) => tokenHolderView(row, now)));
    return answer(input, app, `token-${token}-holders`, height, TokenHolder, { token }, pages);
  },
});

export const exportNftHoldersRoute = defineStreamRoute({
  path: '/api/export/nft/{id}/holders',
  operationId: 'exportNftHolders',
  tag: 'exports',
  summary: "An MRC-402's or an MRC-400 collection's holders at the indexed height, streamed, by address",
  description:
    'Rows are the /nft-holders items as they stood at the indexed height H, in address order (the list shows them by holding), ratio taken over what all holders held at H. MRC-402: holders by amount; MRC-400: items owned per address. An MRC-401 item id is a 400: an item has one owner, its /nft/{id} owner (export its collection instead).',
  params: z.object({ id: CollectionOrMrc402IdParam }),
  query: z.object({ format: FormatQuery }),
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: NftHolder,
  errors: ERRORS,
  async handle(input, app) {
    const { id } = input.params;
    const { models } = app;
    const { height } = await input.head();
    const at = blockPos(height);
    const common = { log: holdingLog(models), at, pageSize: pageRows(app), idPrefix: `${id}:` };
    if (id.startsWith('MRC402_')) {
      const asset = holdingAsset('mrc402', id);
      const [nft, stats] = await Promise.all([models.mrc402s.get(id), models.nftHolderStats.get(id)]);
      if (!nft) throw notFound(`MRC-402 ${id} not found`);
      if ((stats?.holders ?? 0) > app.config.EXPORT_MAX_ROWS)
        throw overCap(stats!.holders, app.config.EXPORT_MAX_ROWS, 'the query');
      const whole = await assetSumAt<{ total: string }>(
        holdingLog(models),
        asset,
        stats ? { sum: BigInt(stats.total), pos: stats.pos } : null,
        at,
        (row) => BigInt(row?.total ?? '0'),
      );
      const rows = holdersAt({ ...common, rows: models.nftHolders, asset });
      const pages = mapPages(rows, (page) => page.map((row) => mrc402HolderView(row, whole)));
      return answer(input, app, `nft-${id}-holders`, height, NftHolder, { id }, pages);
    }
    const asset = holdingAsset('mrc400', id);
    const [collection, stats] = await Promise.all([models.nftCollections.get(id), models.collectionStats.get(id)]);
    if (!collection) throw notFound(`collection ${id} not found`);
    if ((stats?.holders ?? 0) > app.config.EXPORT_MAX_ROWS)
      throw overCap(stats!.holders, app.config.EXPORT_MAX_ROWS, 'the query');
    const whole = await assetSumAt<{ count: number }>(
      holdingLog(models),
      asset,
      stats ? { sum: BigInt(stats.items), pos: stats.pos } : null,
      at,
      (row) => BigInt(row?.count ?? 0),
    );
    const rows = holdersAt({ ...common, rows: models.collectionHolders, asset, holds: (row) => row.count > 0 });
    const pages = mapPages(rows, (page) => page.map((row) => collectionHolderView(row, whole)));
    return answer(input, app, `nft-${id}-holders`, height, NftHolder, { id }, pages);
  },
});

// ---------------------------------------------------------------- daily transaction counts

const DAY_S = 86_400;
const DateParam = z
  .string()
  .regex(/^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$/, 'must be a date: YYYY-MM-DD');

/** A YYYY-MM-DD that passed DateParam as unix milliseconds; a day the month does not have is a 400. */
function dayMs(name: string, date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date)
    throw badRequest(`query.${name}: ${date} is no such day`);
  return ms;
}

/** The day's transactions in blocks at or below `height`, from the blocks (when its count moved on past H). */
async function dayCountAt(models: Models, date: string, offsetMinutes: number, height: number, pageSize: number) {
  const start = Date.parse(`${date}T00:00:00Z`) / 1000 - offsetMinutes * 60;
  let count = 0;
  for (let after = 0; ;) {
    const blocks = await models.blocks.find(
      { timestamp: { $gte: start, $lt: start + DAY_S }, height: { $gt: after, $lte: height } },
      { sort: [['height', 1]], limit: pageSize },
    );
    for (const b of blocks) if (statsDay(b.timestamp, offsetMinutes) === date) count += b.txCount;
    if (blocks.length < pageSize) return count;
    after = blocks.at(-1)!.height;
  }
}

/** `days` dates from `fromMs` on, a page of dates at a time (never the whole range at once). */
async function* dailyPages(models: Models, fromMs: number, days: number, height: number, app: AppContext) {
  const at = blockPos(height);
  const offset = app.config.STATS_UTC_OFFSET_MINUTES;
  for (let i = 0; i < days; i += pageRows(app)) {
    const slice = Array.from({ length: Math.min(pageRows(app), days - i) }, (_, k) =>
      new Date(fromMs + (i + k) * DAY_S * 1000).toISOString().slice(0, 10),
    );
    const docs = new Map((await models.dailyTx.getMany(slice)).map((d) => [d._id, d]));
    const page: DailyTxCount[] = [];
    for (const date of slice) {
      const doc = docs.get(date);
      const count =
        doc === undefined
          ? 0
          : doc.pos <= at
            ? doc.count
            : await dayCountAt(models, date, offset, height, pageRows(app));
      page.push({ date, count });
    }
    yield page;
  }
}

export const exportDailyTxsRoute = defineStreamRoute({
  path: '/api/export/stats/daily-txs',
  operationId: 'exportDailyTxs',
  tag: 'exports',
  summary: 'Transactions per day over a date range, streamed (CSV or NDJSON), oldest first',
  description:
    'One row per day from fromDate to toDate (default: today; none when toDate is before fromDate), in the statistics time zone, as /tx-stats history gives them, counted up to the indexed height H (a day still moving is counted at H). Over EXPORT_MAX_ROWS days: 400.',
  query: z.object({
    fromDate: DateParam.describe('First day, YYYY-MM-DD.'),
    toDate: DateParam.optional().describe('Last day, YYYY-MM-DD (default: today).'),
    format: FormatQuery,
  }),
  mediaTypes: MEDIA,
  responseDescription: RESPONSE,
  rows: DailyTxCount,
  errors: [400],
  async handle(input, app) {
    const { query } = input;
    const offset = app.config.STATS_UTC_OFFSET_MINUTES;
    const toDate = query.toDate ?? statsDay(Math.floor(app.now() / 1000), offset);
    const from = dayMs('fromDate', query.fromDate);
    const to = dayMs('toDate', toDate);
    // A range that ends before it starts holds no day: an empty export.
    const days = Math.max(0, Math.round((to - from) / (DAY_S * 1000)) + 1);
    if (days > app.config.EXPORT_MAX_ROWS) throw overCap(days, app.config.EXPORT_MAX_ROWS, 'the date range');
    const { height } = await input.head();
    const meta = { fromDate: query.fromDate, toDate };
    return answer(input, app, 'daily-txs', height, DailyTxCount, meta, dailyPages(app.models, from, days, height, app));
  },
});

export const EXPORT_ROUTES = [
  exportTxsRoute,
  exportAddressActivityRoute,
  exportTokenTransfersRoute,
  exportTokenHoldersRoute,
  exportNftHoldersRoute,
  exportDailyTxsRoute,
] as const;
