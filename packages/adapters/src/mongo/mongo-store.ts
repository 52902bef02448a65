import { MongoBulkWriteError, MongoClient, type AnyBulkWriteOperation, type Db, type Document } from 'mongodb';
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
   * Bulk calls one `write` may have in flight (lanes by collection and id hash, each in order).
   * A real MongoDB gains about threefold from 8; the FerretDB 1.x stand-in can deadlock for good
   * under concurrent bulk writes (all its PostgreSQL sessions idle in ClientRead), so the default
   * is 1 until the stand-in question is settled.
   */
  writeLanes?: number;
}

const DUPLICATE_KEY = 11000;

/** Our documents carry string ids, never ObjectIds. */
type Stored = Document & { _id: string };
type Op = AnyBulkWriteOperation<Stored>;

export async function createMongoReadStore(options: MongoReadStoreOptions): Promise<ReadStore> {
  const client = new MongoClient(options.url, {
    retryWrites: false,
    serverSelectionTimeoutMS: 10_000,
    maxPoolSize: 20,
  });
  await client.connect();
  const db: Db = client.db(options.database);
  const writeLanes = Math.max(1, Math.trunc(options.writeLanes ?? 1));

  const collection = <T extends Doc = AnyDoc>(name: string): Collection<T> => {
    const c = db.collection<Stored>(name);
    return {
      get: async (id) => (await c.findOne({ _id: id })) as unknown as T | null,
      getMany: async (ids) =>
        ids.length === 0 ? [] : ((await c.find({ _id: { $in: [...ids] } }).toArray()) as unknown as T[]),
      find: async (filter: Filter, opts: FindOptions = {}) => {
        let cursor = c.find(filter).sort(toSort(opts.sort));
        if (opts.skip !== undefined) cursor = cursor.skip(opts.skip);
        if (opts.limit !== undefined) cursor = cursor.limit(opts.limit);
        return (await cursor.toArray()) as unknown as T[];
      },
      count: async (filter: Filter = {}) => c.countDocuments(filter),
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
        for (let lane = queue.shift(); lane; lane = queue.shift()) await bulkInOrder(db, lane.collection, lane.ops);
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

/**
 * Writes per bulk call at most: large bulk writes stall wire-compatible stand-ins (FerretDB 1.x on
 * PostgreSQL deadlocked for good on one 1,000-document insert), and a real MongoDB gains little
 * from bigger calls at these document sizes.
 */
const BULK_CHUNK = 100;

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

async function bulkInOrder(db: Db, name: string, ops: Op[]): Promise<void> {
  let from = 0;
  while (from < ops.length) {
    try {
      const end = Math.min(ops.length, from + BULK_CHUNK);
      await db.collection<Stored>(name).bulkWrite(ops.slice(from, end), { ordered: true });
      from = end;
    } catch (error) {
      const first = error instanceof MongoBulkWriteError ? [error.writeErrors].flat()[0] : undefined;
      // A guarded write that lost to a newer document: skip it and carry on after it. A duplicate
      // key on any other write (a unique secondary index) is a real fault.
      if (!first || first.code !== DUPLICATE_KEY || !isGuarded(ops[from + first.index])) throw error;
      from += first.index + 1;
    }
  }
}

function isGuarded(op: Op | undefined): boolean {
  const filter =
    op && ('replaceOne' in op ? op.replaceOne.filter : 'updateOne' in op ? op.updateOne.filter : undefined);
  return filter !== undefined && 'pos' in filter;
}
