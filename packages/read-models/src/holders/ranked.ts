import type { Collection, Write } from '@mtc/ports';
import { defineModel } from '../model.ts';

/**
 * Ranked lists: an asset's holders in page order (largest first, then address) kept as documents a
 * reader finds by `_id` — per list a directory of pages (each page's first entry and size), and
 * the pages of entries. A page of holders is then three reads by `_id` (directory, the one or two
 * pages that hold its window, the holder rows), the same at page 1 and page 10,000, on any
 * MongoDB-compatible store: mongo-java-server serves nothing but `_id` and unique equality from an
 * index, so a sort by balance over the holder rows scans the collection there.
 *
 * An entry is a string key whose order is the list's: `rankKey` (rank descending as integers, then
 * address), `lockKey` (latest unlock date, then address), an item's collection and id.
 *
 * Pages are copy-on-write, which keeps a list exact under crashes and replays with any batch
 * boundaries: a batch writes the pages it changed under new ids (phase 1), then the directory that
 * names them (phase 2, with the aggregates), then deletes the pages it replaced (phase 3). So a
 * directory only ever names complete pages. The directory carries the position of the last move
 * it applied and a replay skips moves at or before it, as holder stats skip deltas; a move's
 * "from" is the holder row before the write, which is still the pre-batch row whenever the move is
 * not skipped, because rows are written (phase 3) only after the directory (phase 2).
 */
export type RankPageRef = { id: string; first: string; n: number };

export type RankDirDoc = {
  /** The list: `mrc010:<token>`, `mrc402:<id>`, `mrc400:<collection>` (as the holding-change log). */
  _id: string;
  /** The last move applied. */
  pos: string;
  /** The next page number to give out. */
  next: number;
  pages: RankPageRef[];
  /** Pages the last write replaced: deleted after it, and again by the next write (after a crash). */
  retired: string[];
};

export type RankPageDoc = {
  /** `<list>#<n>`. */
  _id: string;
  entries: string[];
};

export const rankDirs = defineModel<RankDirDoc>('rank_dirs');
export const rankPages = defineModel<RankPageDoc>('rank_pages');

/** A page is split once it holds more than this; a run of rewritten pages is cut near half of it. */
const PAGE_MAX = 512;
const PAGE_TARGET = 256;
/** The widest unlock date a lock key holds (seconds; a JS number has at most 16 digits). */
const DATE_WIDTH = 20;

/** Complements each decimal digit (9 − d): ascending order of the result is descending of the input. */
const complement = (digits: string): string => {
  let out = '';
  for (let i = 0; i < digits.length; i++) out += String(57 - digits.charCodeAt(i));
  return out;
};

/**
 * An entry's key in a holder list: rank descending as integers (of any size: its digit count
 * complemented first, then its digits), then the address after a space (below every digit).
 */
export function rankKey(rank: string, address: string): string {
  const digits = rank.replace(/^0+(?=.)/, '');
  if (!/^[0-9]{1,999}$/.test(digits)) throw new Error(`a rank is an integer string, got "${rank}"`);
  return `${complement(String(digits.length).padStart(3, '0'))}${complement(digits)} ${address}`;
}

/** An entry's key in a list of locks: the latest unlock date ascending, then the address. */
export const lockKey = (lockUntil: number, address: string): string =>
  `${String(lockUntil).padStart(DATE_WIDTH, '0')} ${address}`;

/** The address a holder or lock key ends with. */
export const addressOfKey = (key: string): string => key.slice(key.indexOf(' ') + 1);

/** A holding that changed rank at a wallet or item write: `from`/`to` are entry keys, null when not listed. */
export interface RankMove {
  list: string;
  pos: string;
  from: string | null;
  to: string | null;
}

/** The page of `refs` that a key belongs in: the last whose first entry is at or below it (else the first). */
function pageIndex(refs: readonly RankPageRef[], key: string): number {
  let lo = 0;
  let hi = refs.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (refs[mid]!.first <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The moves a directory has not applied yet, by list, in chain order. */
function pendingMoves(moves: readonly RankMove[], dirs: ReadonlyMap<string, RankDirDoc>): Map<string, RankMove[]> {
  const out = new Map<string, RankMove[]>();
  for (const m of [...moves].sort((a, b) => (a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : 0))) {
    if ((dirs.get(m.list)?.pos ?? '') >= m.pos) continue;
    let list = out.get(m.list);
    if (!list) out.set(m.list, (list = []));
    list.push(m);
  }
  return out;
}

/** The directories a batch's moves need (to read first). */
export const rankListsOf = (moves: readonly RankMove[]): string[] => [...new Set(moves.map((m) => m.list))];

/** The pages a batch's moves touch, given the stored directories (to read second). */
export function rankPagesToRead(moves: readonly RankMove[], dirs: readonly RankDirDoc[]): string[] {
  const byList = new Map(dirs.map((d) => [d._id, d]));
  const ids = new Set<string>();
  for (const [list, pending] of pendingMoves(moves, byList)) {
    const refs = byList.get(list)?.pages ?? [];
    if (refs.length === 0) continue;
    for (const m of pending)
      for (const key of [m.from, m.to]) if (key !== null) ids.add(refs[pageIndex(refs, key)]!.id);
  }
  return [...ids];
}

/**
 * A batch's writes to the ranked lists its moves name: new pages (phase 1), directories (phase 2),
 * deletions of the pages replaced (phase 3). `prior` holds the stored directories of those lists
 * and the pages `rankPagesToRead` named.
 */
export function projectRanked(
  moves: readonly RankMove[],
  prior: { dirs: readonly RankDirDoc[]; pages: readonly RankPageDoc[] },
): { pages: Write[]; dirs: Write[]; retired: Write[] } {
  const dirs = new Map(prior.dirs.map((d) => [d._id, d]));
  const stored = new Map(prior.pages.map((p) => [p._id, p.entries]));
  const out = { pages: [] as Write[], dirs: [] as Write[], retired: [] as Write[] };
  const todo = pendingMoves(moves, dirs);
  for (const list of rankListsOf(moves).sort()) {
    const dir = dirs.get(list) ?? { _id: list, pos: '', next: 0, pages: [], retired: [] };
    const pending = todo.get(list);
    if (!pending) {
      // Every move applied already (a replay): finish the deletions a crash may have cut short.
      for (const id of dir.retired) out.retired.push({ op: 'delete', collection: rankPages.name, id });
      continue;
    }
    const refs = dir.pages.length > 0 ? dir.pages : [{ id: '', first: '', n: 0 }];
    /**
     * Per page this batch changes (by index in `refs`), each key's presence after its last move:
     * entries are a set, so a removal of an absent key or an insertion of a present one does nothing.
     */
    const changed = new Map<number, Map<string, boolean>>();
    const mark = (key: string, present: boolean): void => {
      const i = pageIndex(refs, key);
      let marks = changed.get(i);
      if (!marks) changed.set(i, (marks = new Map<string, boolean>()));
      marks.set(key, present);
    };
    for (const m of pending) {
      if (m.from !== null) mark(m.from, false);
      if (m.to !== null) mark(m.to, true);
    }
    /** The pages changed, as they end: one sort per page, whatever the number of moves. */
    const open = new Map<number, string[]>();
    for (const [i, marks] of changed) {
      const ref = refs[i]!;
      const found = ref.id === '' ? [] : stored.get(ref.id);
      if (!found) throw new Error(`ranked list ${list}: page ${ref.id} was not loaded`);
      const kept = found.filter((e) => marks.get(e) !== false);
      const had = new Set(found);
      for (const [key, present] of marks) if (present && !had.has(key)) kept.push(key);
      open.set(i, kept.sort());
    }
    // Each run of adjacent changed pages is joined and cut again: pages stay near PAGE_TARGET.
    let next = dir.next;
    const pages: RankPageRef[] = [];
    const replaced: string[] = [];
    for (let i = 0; i < refs.length;) {
      if (!open.has(i)) {
        pages.push(refs[i]!);
        i++;
        continue;
      }
      const run: string[] = [];
      for (; open.has(i); i++) {
        for (const e of open.get(i)!) run.push(e); // no spread: a first batch may list 100,000s
        if (refs[i]!.id !== '') replaced.push(refs[i]!.id);
      }
      const count = run.length <= PAGE_MAX ? Math.min(run.length, 1) : Math.ceil(run.length / PAGE_TARGET);
      for (let k = 0; k < count; k++) {
        const entries = run.slice(Math.floor((k * run.length) / count), Math.floor(((k + 1) * run.length) / count));
        const id = `${list}#${next++}`;
        out.pages.push({ op: 'put', collection: rankPages.name, doc: { _id: id, entries } });
        pages.push({ id, first: entries[0]!, n: entries.length });
      }
    }
    const doc: RankDirDoc = { _id: list, pos: pending.at(-1)!.pos, next, pages, retired: replaced };
    out.dirs.push({ op: 'putIfNewer', collection: rankDirs.name, doc });
    // (Pages a crashed run wrote beyond what its replay writes are named by no directory: a leak of
    // a few pages per crash, never read, and not part of the dump.)
    for (const id of [...dir.retired, ...replaced]) out.retired.push({ op: 'delete', collection: rankPages.name, id });
  }
  return out;
}

// ---------------------------------------------------------------- queries

/** Where a page of a list starts: at a position, just after an entry key, or where it ends: just before one. */
export type RankedSeek = { skip: number } | { after: string } | { before: string };

/** A page of a list: its entry keys in order, the position of the first, and the list's size. */
export interface RankedSlice {
  keys: string[];
  start: number;
  size: number;
}

/** Reads pages by id, each at most once per reader; null when one is missing. */
function pageReader(pages: Collection<RankPageDoc>): (ids: readonly string[]) => Promise<string[][] | null> {
  const read = new Map<string, string[]>();
  return async (ids) => {
    const missing = ids.filter((id) => !read.has(id));
    if (missing.length > 0) for (const p of await pages.getMany(missing)) read.set(p._id, p.entries);
    const out: string[][] = [];
    for (const id of ids) {
      const entries = read.get(id);
      if (!entries) return null;
      out.push(entries);
    }
    return out;
  };
}

type ReadPages = ReturnType<typeof pageReader>;

/** How many entries of a list sort below `key` (with `inclusive`, at or below it); null as for reads. */
async function positionOf(dir: RankDirDoc, read: ReadPages, key: string, inclusive: boolean): Promise<number | null> {
  const i = pageIndex(dir.pages, key);
  const found = await read([dir.pages[i]!.id]);
  if (!found) return null;
  let before = 0;
  for (let k = 0; k < i; k++) before += dir.pages[k]!.n;
  return before + found[0]!.filter((e) => (inclusive ? e <= key : e < key)).length;
}

/** The entry keys at positions [start, end) of a list, in order; null as for reads. */
async function entriesBetween(dir: RankDirDoc, read: ReadPages, start: number, end: number): Promise<string[] | null> {
  const wanted: { id: string; from: number; to: number }[] = [];
  let at = 0;
  for (const ref of dir.pages) {
    const stop = at + ref.n;
    if (stop > start && at < end)
      wanted.push({ id: ref.id, from: Math.max(0, start - at), to: Math.min(ref.n, end - at) });
    if (stop >= end) break;
    at = stop;
  }
  if (wanted.length === 0) return [];
  const entries = await read(wanted.map((w) => w.id));
  return entries && wanted.flatMap((w, i) => entries[i]!.slice(w.from, w.to));
}

/**
 * A page of at most `limit` entries of a list, as `seek` places it, from one reading of its
 * directory; null when a page the directory names is missing (a store read while a batch was
 * written over it: read again). With `floor` the list is read as if it began at that key: entries
 * below it are left out, and `start` and `size` count from it. A key that `seek` names need not be
 * listed (any more): the page starts just after where it would be, or ends just before. Keys are
 * read from the pages around them, so a page deep in the list costs what the first does.
 */
export async function rankedSlice(
  lists: RankedLists,
  list: string,
  seek: RankedSeek,
  limit: number,
  floor?: string,
): Promise<RankedSlice | null> {
  const dir = await lists.rankDirs.get(list);
  if (!dir || dir.pages.length === 0) return { keys: [], start: 0, size: 0 };
  const read = pageReader(lists.rankPages);
  let size = 0;
  for (const ref of dir.pages) size += ref.n;
  const low = floor === undefined ? 0 : await positionOf(dir, read, floor, false);
  if (low === null) return null;
  let start: number;
  let end: number;
  if ('before' in seek) {
    const at = await positionOf(dir, read, seek.before, false);
    if (at === null) return null;
    end = Math.max(low, at);
    start = Math.max(low, end - Math.max(limit, 0));
  } else {
    let from = low + ('skip' in seek ? seek.skip : 0);
    if ('after' in seek) {
      const at = await positionOf(dir, read, seek.after, true);
      if (at === null) return null;
      from = Math.max(low, at);
    }
    start = Math.min(from, size);
    end = Math.min(size, start + Math.max(limit, 0));
  }
  const keys = await entriesBetween(dir, read, start, end);
  return keys && { keys, start: start - low, size: size - low };
}

/**
 * The entry keys at positions [skip, skip + limit) of a list, in order; null when a page the
 * directory names is missing (see `rankedSlice`).
 */
export async function rankedWindow(
  lists: RankedLists,
  list: string,
  window: { skip: number; limit: number },
): Promise<string[] | null> {
  return (await rankedSlice(lists, list, { skip: window.skip }, window.limit))?.keys ?? null;
}

/** Every entry of a list in order (the canonical dump): null as for `rankedWindow`. */
export async function rankedEntries(pages: Collection<RankPageDoc>, dir: RankDirDoc): Promise<string[] | null> {
  const entries = await pageReader(pages)(dir.pages.map((p) => p.id));
  return entries && entries.flat();
}

/**
 * The first `limit` entry keys at or after `from`, in order; null as for `rankedWindow`. Pages
 * before the one `from` falls in are not read.
 */
export async function rankedFrom(
  lists: RankedLists,
  list: string,
  from: string,
  limit: number,
): Promise<string[] | null> {
  return (await rankedSlice(lists, list, { skip: 0 }, limit, from))?.keys ?? null;
}

/** Where a list's rows are: their collection, the row a key names, and the key a row has now. */
export interface ListedRows<R extends { _id: string }> {
  rows: Collection<R>;
  idOf(key: string): string;
  keyOf(row: R): string;
}

/**
 * The rows a list's keys name, in the keys' order, read by `_id`; null when one is missing or no
 * longer has the key it is listed by (the list was read while a batch was written over it: read
 * again). A holder list's keys end with the address (`addressOfKey`).
 */
export async function rowsOfKeys<R extends { _id: string }>(
  listed: ListedRows<R>,
  keys: readonly string[] | null,
): Promise<R[] | null> {
  if (keys === null) return null;
  if (keys.length === 0) return [];
  const ids = keys.map((k) => listed.idOf(k));
  const byId = new Map((await listed.rows.getMany(ids)).map((r) => [r._id, r]));
  const out: R[] = [];
  for (const [i, id] of ids.entries()) {
    const row = byId.get(id);
    if (!row || listed.keyOf(row) !== keys[i]) return null;
    out.push(row);
  }
  return out;
}

/** The collections of every ranked list, keyed as in `Models` so the opened models pass as they are. */
export type RankedLists = { rankDirs: Collection<RankDirDoc>; rankPages: Collection<RankPageDoc> };

/** A page of a ranked list with the rows its keys name (`rankedSlice`, `rowsOfKeys`). */
export interface RankedRows<R> extends RankedSlice {
  rows: R[];
}

/** The rows of a page of a ranked list, as `rankedSlice` places it; null as for `rowsOfKeys`. */
export async function rankedRows<R extends { _id: string }>(
  lists: RankedLists,
  list: string,
  listed: ListedRows<R>,
  seek: RankedSeek,
  limit: number,
  floor?: string,
): Promise<RankedRows<R> | null> {
  const slice = await rankedSlice(lists, list, seek, limit, floor);
  const rows = await rowsOfKeys(listed, slice?.keys ?? null);
  return slice && rows && { ...slice, rows };
}
