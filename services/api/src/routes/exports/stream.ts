import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Logger } from 'pino';
import { z } from 'zod';
import { badRequest, type ApiError } from '../../errors.ts';

/**
 * How an export goes on the wire. The body is pulled page by page as the client reads it (a
 * Readable over an async generator, one page buffered at most), so memory does not grow with the
 * export's size; a client that goes away destroys the stream, which ends the generator after the
 * page in hand, and the store is not read further.
 *
 * The first line states the indexed height H every row is consistent with (also sent as the
 * X-Indexed-Height header): in NDJSON a meta object `{"indexed_height":H,"export":…}`, in CSV a
 * comment line `# indexed_height=H` before the header row (csv-parse `comment: '#'`, pandas
 * `comment='#'`). In CSV, array and object cells are compact JSON, and a field a row lacks is an
 * empty cell. An export cut short ends with an error line — `{"error":{"code","message"}}` or
 * `# error: …` — at the row cap (when the size was not known up front), and also with the
 * connection reset when the store did not give a page in time, so a client never takes a partial
 * export for a whole one.
 */
export const FORMATS = ['csv', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];
export const MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
export type ExportMediaType = (typeof MEDIA_TYPES)[Format];

export const FormatQuery = z
  .enum(FORMATS)
  .optional()
  .describe('csv (the default) or ndjson; without it, the Accept header chooses (text/csv or application/x-ndjson).');

/** `format` when given, else the media type the Accept header prefers (by q), else CSV. */
export function chooseFormat(given: Format | undefined, accept: string): Format {
  if (given !== undefined) return given;
  let best: { format: Format; q: number } | null = null;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const format = type === MEDIA_TYPES.ndjson ? 'ndjson' : type === MEDIA_TYPES.csv ? 'csv' : null;
    if (format === null) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (best === null || q > best.q) best = { format, q };
  }
  return best?.format ?? 'csv';
}

/** The 400 of an export whose size is known up front and over the cap, before any row. */
export function overCap(rows: number, cap: number, narrow: string): ApiError {
  return badRequest(
    `this export would hold ${rows} rows, over the limit of ${cap} (EXPORT_MAX_ROWS): narrow ${narrow} and export it in parts`,
  );
}

export interface ExportSpec {
  /** e.g. `txs`: in the meta line, the log and the file name. */
  name: string;
  format: Format;
  height: number;
  /** The row fields, in order: the CSV header. */
  columns: readonly string[];
  /** Said in the NDJSON meta line besides the height (the export's parameters as applied). */
  meta: Readonly<Record<string, unknown>>;
  pages: AsyncIterable<readonly object[]>;
  maxRows: number;
  pageTimeoutMs: number;
  signal: AbortSignal;
  logger: Logger;
}

/** The store did not give a page in time: the stream ends with an error line and a reset. */
export class ExportCutShort extends Error {
  override name = 'ExportCutShort';
  /** For the app's error log: a dependency's failure (one line), not a fault of ours. */
  readonly status = 503;
}

function cell(value: unknown): string | number {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ExportCutShort(`the data store did not give the next rows within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function errorLine(format: Format, code: string, message: string): string {
  return format === 'ndjson' ? `${JSON.stringify({ error: { code, message } })}\n` : `# error: ${message}\n`;
}

async function* lines(spec: ExportSpec): AsyncGenerator<string> {
  const { format, columns } = spec;
  const log = spec.logger.child({ component: 'export', export: spec.name, format, height: spec.height });
  const started = Date.now();
  let rows = 0;
  let outcome = 'complete';
  yield format === 'ndjson'
    ? `${JSON.stringify({ indexed_height: spec.height, export: spec.name, ...spec.meta })}\n`
    : `# indexed_height=${spec.height}\n${stringify([[...columns]])}`;
  const pages = spec.pages[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (spec.signal.aborted) return void (outcome = 'client gone');
      const next = await within(pages.next(), spec.pageTimeoutMs);
      if (next.done === true) return;
      if (spec.signal.aborted) return void (outcome = 'client gone');
      let page = next.value;
      const over = rows + page.length > spec.maxRows;
      if (over) page = page.slice(0, spec.maxRows - rows);
      rows += page.length;
      if (page.length > 0)
        yield format === 'ndjson'
          ? page.map((row) => `${JSON.stringify(row)}\n`).join('')
          : stringify(page.map((row) => columns.map((c) => cell((row as Record<string, unknown>)[c]))));
      if (over) {
        outcome = 'cut at the row limit';
        const message = `the export reached the limit of ${spec.maxRows} rows (EXPORT_MAX_ROWS) and was cut short: narrow it and export it in parts`;
        yield errorLine(format, 'too_many_rows', message);
        return;
      }
    }
  } catch (error) {
    outcome = error instanceof ExportCutShort ? error.message : 'failed';
    if (!(error instanceof ExportCutShort)) log.warn({ err: error }, 'export failed');
    const message = error instanceof ExportCutShort ? error.message : 'the export failed; retry it';
    yield errorLine(format, 'unavailable', message);
    throw error;
  } finally {
    // Ends the pages' generator (between reads: the store is not read further).
    void pages.return?.(undefined);
    if (spec.signal.aborted) outcome = 'client gone';
    log.info({ rows, ms: Date.now() - started, outcome }, 'export ended');
  }
}

/** The export's body and headers (Content-Disposition names a file; X-Indexed-Height is the app's). */
export function exportAnswer(spec: ExportSpec): {
  body: Readable;
  mediaType: ExportMediaType;
  headers: Record<string, string>;
} {
  return {
    body: Readable.from(lines(spec), { highWaterMark: 1 }),
    mediaType: MEDIA_TYPES[spec.format],
    headers: {
      'Content-Disposition': `attachment; filename="${spec.name}-at-${spec.height}.${spec.format === 'csv' ? 'csv' : 'ndjson'}"`,
      'X-Content-Type-Options': 'nosniff',
    },
  };
}
