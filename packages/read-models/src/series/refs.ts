import type { Collection } from '@mtc/ports';
import {
  counterId,
  parseFiled,
  refsChunk,
  refsId,
  REFS_PER_DOC,
  seriesRowId,
  seriesRows,
  seriesWindow,
  type SeriesCounterDoc,
  type SeriesRefsDoc,
  type SeriesRow,
  type SeriesWindow,
} from './series.ts';

/** What a list reads: the series' rows, the filed keys' references, the counters. */
export interface SeriesCollections<R extends SeriesRow> {
  rows: Collection<R>;
  refs: Collection<SeriesRefsDoc>;
  counters: Collection<SeriesCounterDoc>;
}

/**
 * A numbered list to page: a series key's own rows (no suffix), or a list its rows are filed under
 * by reference (`series.ts`). `total` is its count as read when opened.
 */
export class SeriesList<R extends SeriesRow> {
  private readonly chunks = new Map<number, Promise<number[]>>();
  private readonly c: SeriesCollections<R>;
  private readonly series: { readonly name: string };
  readonly base: string;
  /** The list's key: `base`, or `base|suffix`. */
  readonly key: string;
  readonly total: number;
  /** How many rows `base` has. */
  private readonly baseTotal: number;
  /** The references of the list's last chunk, when partly filled (kept in the counter). */
  private readonly tail: number[];

  private constructor(
    c: SeriesCollections<R>,
    series: { readonly name: string },
    base: string,
    suffix: string,
    counter: SeriesCounterDoc | null,
  ) {
    this.c = c;
    this.series = series;
    this.base = base;
    this.key = suffix === '' ? base : `${base}|${suffix}`;
    this.baseTotal = counter?.n ?? 0;
    const list = suffix === '' ? undefined : parseFiled(counter?.filed).get(suffix);
    this.total = suffix === '' ? this.baseTotal : (list?.n ?? 0);
    this.tail = list?.tail ?? [];
  }

  /** `base`'s list, or with a suffix the one filed under `base|suffix`: one read, of base's counter. */
  static async open<R extends SeriesRow>(
    c: SeriesCollections<R>,
    series: { readonly name: string },
    base: string,
    suffix = '',
  ): Promise<SeriesList<R>> {
    return new SeriesList(c, series, base, suffix, await c.counters.get(counterId(series.name, base)));
  }

  /** Rows `from` … `to` (1-based, both included, at most `total`), ascending or newest first. */
  async rows(range: { from: number; to: number; newestFirst?: boolean }): Promise<R[]> {
    const from = Math.max(1, range.from);
    const to = Math.min(this.total, range.to);
    if (this.key === this.base) return seriesRows(this.c.rows, this.key, { ...range, from, to });
    if (to < from) return [];
    const first = refsChunk(from);
    const chunks = await Promise.all(
      Array.from({ length: refsChunk(to) - first + 1 }, (_, i) => this.chunk(first + i)),
    );
    const refs: number[] = [];
    chunks.forEach((chunk, i) => {
      const start = (first + i) * REFS_PER_DOC + 1;
      for (let m = Math.max(from, start); m <= Math.min(to, start + chunk.length - 1); m++)
        refs.push(chunk[m - start]!);
    });
    const found = await this.c.rows.getMany(refs.map((n) => seriesRowId(this.base, n)));
    return found.sort(range.newestFirst ? (a, b) => b.n - a.n : (a, b) => a.n - b.n);
  }

  /**
   * The rows between positions `after` (excluded) and `upTo` (included), either bound open: the own
   * key's window by bisection (`seriesWindow`), then the filed rows whose references fall in it.
   */
  async window(range: { after?: string | undefined; upTo?: string | undefined }): Promise<SeriesWindow> {
    if (this.key === this.base) return seriesWindow(this.c.rows, this.key, this.total, range);
    if (range.after === undefined && range.upTo === undefined) return { first: 1, last: this.total };
    const own = await seriesWindow(this.c.rows, this.base, this.baseTotal, range);
    const [before, through] = await Promise.all([
      range.after === undefined ? 0 : this.countUpTo(own.first - 1),
      range.upTo === undefined ? this.total : this.countUpTo(own.last),
    ]);
    return { first: before + 1, last: through };
  }

  /** How many of the list's rows refer to own rows numbered `n` or below: a bisection over chunks. */
  private async countUpTo(n: number): Promise<number> {
    let lo = -1; // the last chunk known to start at or below n (-1: none)
    let hi = refsChunk(this.total);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const first = (await this.chunk(mid))[0];
      if (first !== undefined && first <= n) lo = mid;
      else hi = mid - 1;
    }
    if (lo < 0) return 0;
    const chunk = await this.chunk(lo);
    let inChunk = 0;
    while (inChunk < chunk.length && chunk[inChunk]! <= n) inChunk++;
    return lo * REFS_PER_DOC + inChunk;
  }

  /** A chunk's references: a full one's stored document, or the partly filled last one's from the counter. */
  private chunk(k: number): Promise<number[]> {
    if (this.total % REFS_PER_DOC !== 0 && k === refsChunk(this.total)) return Promise.resolve(this.tail);
    let got = this.chunks.get(k);
    if (!got) {
      got = this.c.refs.get(refsId(this.series.name, this.key, k)).then((doc) => doc?.refs ?? []);
      this.chunks.set(k, got);
    }
    return got;
  }
}

/** A list's rows in `window`, oldest first, page by page. */
export async function* seriesRowsBetween<R extends SeriesRow>(
  list: SeriesList<R>,
  window: SeriesWindow,
  pageSize: number,
): AsyncGenerator<R[]> {
  for (let n = window.first; n <= window.last; n += pageSize) {
    const page = await list.rows({ from: n, to: Math.min(window.last, n + pageSize - 1) });
    if (page.length === 0) return;
    yield page;
  }
}
