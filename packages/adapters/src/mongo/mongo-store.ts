import {
  MongoBulkWriteError,
  MongoClient,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type AnyBulkWriteOperation,
  type Db,
  type Document,
} from 'mongodb';
import type {
  AnyDoc,
  Collection,
  CollectionSpec,
  Doc,
  Filter,
  FindOptions,
  ReadStore,
  SortSpec,
  Write,
} from '@mtc/ports';

/**
 * ReadStore on MongoDB (≥ 6; also runs on wire-compatible stand-ins). The only module that imports
 * the driver.
 *
 * Guarded writes are upserts whose filter carries the guard (`pos < new pos`); when a newer
 * document exists, the upsert collides on `_id` (E11000): that is the "already applied" answer,
 * not a fault. Batches go out as ORDERED bulk writes, so writes to one document keep their order
 * (several increments of one day's counter in a batch); after a collision the rest of the batch is
 * sent again from the next write. Only features that MongoDB and its stand-ins treat the same are
 * used: no transactions, no pipeline updates, no $lookup.
 */
export interface MongoReadStoreOptions {
  url: string;
  database: string;
  /**
   * Bulk calls the store has in flight at once, over all its `write` calls (lanes by collection
   * and id hash, each in order). Default by server, see `WRITE_LIMITS`.
   */
  writeLanes?: number;
  /** Writes per bulk call at most. Default by server, see `WRITE_LIMITS`. */
  bulkChunk?: number;
  /**
   * The longest a caller waits for one call (its time budget, see timed/budget.ts). The driver's
   * own timeouts sit above it: a hang then reaches callers as the budget's retryable timeout, never
   * as a driver error the projector would take for a fatal one, and the driver still frees, soon
   * after, the pooled connections and queue places that abandoned calls hold. Default 30 s.
   */
  callBudgetMs?: number;
  /** Server-side limit of one read (maxTimeMS), so a query nobody waits for stops running. */
  readBudgetMs?: number;
}

/**
 * Default write limits by the server the store finds at connect (buildInfo).
 *
 * MongoDB (and mongo-java-server, the benchmark stand-in): bigger and concurrent calls save round
 * trips, and an ordered call that meets a stale write costs the same at any size. On
 * mongo-java-server (bench/store-ceiling.ts) calls of 1,000 guarded upserts ran ~2× faster than
 * calls of 100, and 8 lanes ~2× faster than one; MongoDB itself was not measured here.
 *
 * FerretDB 1.x (the CI stand-in) keeps one PostgreSQL connection for every update statement of a
 * command that matched a document until the whole command is done, and waits for ever for a
 * connection when its pool is used up: a 100-write bulk call needs 100 connections. Every process
 * on one FerretDB must therefore keep lanes × chunk (summed over processes) below its pool
 * (infra's FERRETDB_PG_POOL, 400; FerretDB's own default is 50). 4 × 25 = 100 per process keeps
 * three writing processes safe, and is ~4× faster there than one lane of 100.
 */
export const WRITE_LIMITS = {
  mongodb: { writeLanes: 8, bulkChunk: 1_000 },
  ferretdb: { writeLanes: 4, bulkChunk: 25 },
} as const;

const DUPLICATE_KEY = 11000;
/** How far the driver's timeouts sit above the callers' budgets. */
const DRIVER_MARGIN_MS = 5_000;

/** Our documents carry string ids, never ObjectIds. */
type Stored = Document & { _id: string };
type Op = AnyBulkWriteOperation<Stored>;

export async function createMongoReadStore(options: MongoReadStoreOptions): Promise<ReadStore> {
  const driverMs = (options.callBudgetMs ?? 30_000) + DRIVER_MARGIN_MS;
  const client = new MongoClient(options.url, {
    retryWrites: false,
    maxPoolSize: 20,
    // Finding a server, and opening a connection, may take up to 10 s however short the budgets.
    serverSelectionTimeoutMS: Math.max(10_000, driverMs),
    connectTimeoutMS: Math.max(10_000, driverMs),
    // A server that stopped answering gives back a connection (closed) or a place in the pool's
    // queue after this long, instead of never.
    socketTimeoutMS: driverMs,
    waitQueueTimeoutMS: driverMs,
  });
  // Past the caller's budget, plus a margin, so the budget fires first (see callBudgetMs).
  const reads = options.readBudgetMs === undefined ? {} : { maxTimeMS: options.readBudgetMs + DRIVER_MARGIN_MS };
  await client.connect();
  const db: Db = client.db(options.database);
  const defaults = WRITE_LIMITS[await serverKind(db)];
  const writeLanes = Math.max(1, Math.trunc(options.writeLanes ?? defaults.writeLanes));
  const bulkChunk = Math.max(1, Math.trunc(options.bulkChunk ?? defaults.bulkChunk));
  // One limit for the whole store: concurrent `write` calls share the lanes.
  const inFlight = limiter(writeLanes);
  const bulk = (name: string, ops: Op[]): Promise<unknown> =>
    inFlight(() => db.collection<Stored>(name).bulkWrite(ops, { ordered: true })).catch(markConnectionFault);

  const collection = <T extends Doc = AnyDoc>(name: string): Collection<T> => {
    const c = db.collection<Stored>(name);
    return {
      get: async (id) => (await c.findOne({ _id: id }, reads).catch(markConnectionFault)) as unknown as T | null,
      getMany: async (ids) =>
        ids.length === 0
          ? []
          : ((await c
              .find({ _id: { $in: [...ids] } }, reads)
              .toArray()
              .catch(markConnectionFault)) as unknown as T[]),
      find: async (filter: Filter, opts: FindOptions = {}) => {
        let cursor = c.find(filter, reads).sort(toSort(opts.sort));
        if (opts.skip !== undefined) cursor = cursor.skip(opts.skip);
        if (opts.limit !== undefined) cursor = cursor.limit(opts.limit);
        return (await cursor.toArray().catch(markConnectionFault)) as unknown as T[];
      },
      count: async (filter: Filter = {}) => c.countDocuments(filter, reads).catch(markConnectionFault),
    };
  };

  return {
    async ensureCollections(specs: readonly CollectionSpec[]) {
      const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
      for (const spec of specs) {
        if (!existing.has(spec.name)) await createIfMissing(db, spec.name);
        // Only what is missing: index builds are DDL, which a stand-in serialises poorly, and a
        // restart should not issue any.
        const present = new Set((await db.collection(spec.name).indexes()).map((i) => i.name));
        for (const index of spec.indexes) {
          const key = Object.fromEntries(index.fields.map(([f, d]) => [f, d]));
          const name = index.fields.map(([f, d]) => `${f}_${d}`).join('_');
          if (!present.has(name))
            await db.collection(spec.name).createIndex(key, { name, unique: index.unique ?? false });
        }
      }
    },
    collection,
    async write(writes: readonly Write[]) {
      // Lanes run side by side; each keeps its writes in order (see `lanes`).
      const queue = lanes(writes, writeLanes);
      const worker = async (): Promise<void> => {
        for (let lane = queue.shift(); lane; lane = queue.shift())
          await bulkInOrder((ops) => bulk(lane.collection, ops), lane.ops, bulkChunk);
      };
      await Promise.all(Array.from({ length: Math.min(writeLanes, queue.length) }, worker));
    },
    async drop() {
      await db.dropDatabase();
    },
    async close() {
      await client.close();
    },
  };
}

const NAMESPACE_EXISTS = 48;

/**
 * Driver errors where the server did not answer (a connection refused or reset, no server to
 * select: a restart of the server) or answered that it is shutting down or not the primary (the
 * codes MongoDB's retryable-writes specification names) are marked retryable for `isRetryable`
 * (@mtc/runtime): a later attempt, on a new connection, may be answered. Sending a write again
 * whose answer was lost is safe: every write is a full replacement, a delete or guarded by
 * position. A bulk call carries the driver's error inside its own (`errorResponse`, `cause`).
 */
function markConnectionFault(error: unknown): never {
  if (error instanceof Error && isConnectionFault(error)) Object.assign(error, { retryable: true });
  throw error;
}

/**
 * HostUnreachable, HostNotFound, NetworkTimeout, ShutdownInProgress, PrimarySteppedDown,
 * ExceededTimeLimit, SocketException, NotWritablePrimary, InterruptedAtShutdown,
 * InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
 */
const TRANSIENT_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

function isConnectionFault(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError) return true;
  if (error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.ResetPool)) return true;
  if (error instanceof MongoServerError && typeof error.code === 'number' && TRANSIENT_CODES.has(error.code))
    return true;
  const inner = error as { cause?: unknown; errorResponse?: unknown };
  return isConnectionFault(inner.cause, depth + 1) || isConnectionFault(inner.errorResponse, depth + 1);
}

/** FerretDB answers buildInfo with its own version besides the MongoDB one it emulates. */
async function serverKind(db: Db): Promise<keyof typeof WRITE_LIMITS> {
  const info = await db.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info ? 'ferretdb' : 'mongodb';
}

/** At most `n` calls of the returned function run at once; the others wait their turn. */
function limiter(n: number): <T>(run: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      // Hand the slot straight to the next in line, or give it back.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** Several processes start at once: a collection another one just created is fine. */
async function createIfMissing(db: Db, name: string): Promise<void> {
  try {
    await db.createCollection(name);
  } catch (error) {
    if ((error as { code?: unknown }).code !== NAMESPACE_EXISTS) throw error;
  }
}

function toSort(sort: SortSpec | undefined): Record<string, 1 | -1> {
  if (!sort || sort.length === 0) return { _id: 1 };
  return Object.fromEntries(sort.map(([f, d]) => [f, d]));
}

function docId(w: Write): string {
  return w.op === 'put' || w.op === 'putIfNewer' ? w.doc._id : w.id;
}

/** FNV-1a: a cheap, stable spread of ids over lanes. */
function laneOf(id: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

/**
 * The writes grouped by collection and, with several lanes, by a hash of the document id, each
 * group in the order given: the port promises order per document only.
 */
function lanes(writes: readonly Write[], count: number): { collection: string; ops: Op[] }[] {
  if (count === 1) return runsByCollection(writes);
  const groups = new Map<string, { collection: string; ops: Op[] }>();
  for (const w of writes) {
    const key = `${laneOf(docId(w), count)}\u0000${w.collection}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { collection: w.collection, ops: [] }));
    g.ops.push(toOperation(w));
  }
  return [...groups.values()];
}

function toOperation(w: Write): Op {
  switch (w.op) {
    case 'put':
      return { replaceOne: { filter: { _id: w.doc._id }, replacement: w.doc, upsert: true } };
    case 'putIfNewer':
      return {
        replaceOne: { filter: { _id: w.doc._id, pos: { $lt: w.doc.pos } }, replacement: w.doc, upsert: true },
      };
    case 'incIfNewer':
      return {
        updateOne: {
          filter: { _id: w.id, pos: { $lt: w.pos } },
          update: { $inc: w.inc, $set: { ...w.set, pos: w.pos } },
          upsert: true,
        },
      };
    case 'delete':
      return { deleteOne: { filter: { _id: w.id } } };
  }
}

/** Consecutive writes to the same collection, in order: one lane. */
function runsByCollection(writes: readonly Write[]): { collection: string; ops: Op[] }[] {
  const runs: { collection: string; ops: Op[] }[] = [];
  for (const w of writes) {
    const last = runs.at(-1);
    if (last && last.collection === w.collection) last.ops.push(toOperation(w));
    else runs.push({ collection: w.collection, ops: [toOperation(w)] });
  }
  return runs;
}

/**
 * Sends `ops` in ordered bulk calls of at most `chunk`. A guarded write that lost to a newer
 * document (E11000 on it) is skipped, and the rest of its call is sent again from the next write;
 * a duplicate key on any other write (a unique secondary index) is a real fault.
 *
 * FerretDB 1.x reports a failed update statement as index 0 whatever its place in the call, after
 * applying the statements before it. When the write at the reported index is not guarded, the
 * call's writes therefore go again one per call (so each error's index is exact) up to its end:
 * sending again what was applied changes nothing, as writes are full replacements, deletes or
 * guarded. On MongoDB this path is only taken for a real fault, which then surfaces as before.
 * (mongo-java-server goes on past a failed update statement despite `ordered`; the writes after it
 * are then applied twice, which changes nothing either.)
 */
async function bulkInOrder(send: (ops: Op[]) => Promise<unknown>, ops: Op[], chunk: number): Promise<void> {
  let from = 0;
  let oneByOneUntil = 0;
  while (from < ops.length) {
    const end = Math.min(ops.length, from + (from < oneByOneUntil ? 1 : chunk));
    try {
      await send(ops.slice(from, end));
      from = end;
    } catch (error) {
      const first = error instanceof MongoBulkWriteError ? [error.writeErrors].flat()[0] : undefined;
      if (!first || first.code !== DUPLICATE_KEY) throw error;
      if (isGuarded(ops[from + first.index])) from += first.index + 1;
      else if (end - from > 1) oneByOneUntil = end;
      else throw error;
    }
  }
}

function isGuarded(op: Op | undefined): boolean {
  const filter =
    op && ('replaceOne' in op ? op.replaceOne.filter : 'updateOne' in op ? op.updateOne.filter : undefined);
  return filter !== undefined && 'pos' in filter;
}
