import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WRITE_LIMITS } from '@mtc/adapters';
import { readEnvFile } from '@mtc/runtime';
import { MongoClient, type AnyBulkWriteOperation, type Collection } from 'mongodb';

/**
 * The bulk-write ceiling of a MongoDB server (or wire-compatible stand-in): what the official
 * driver alone gets out of it, with no adapter, projection or pipeline in between. Another
 * benchmark holds the distributed store's throughput to `storeCeiling(url, docs)`.
 *
 * Documents are shaped like our transaction read model (string `_id`, ~450 bytes of JSON, a
 * unique and a plain secondary index). Each figure is measured on its own scratch collection of
 * `docs` documents in a scratch database that is dropped afterwards:
 *   - insertMany: all documents in ordered batches of 100, 500 and 1,000;
 *   - upsert: ordered bulkWrites of `bulk` replaceOne upserts guarded as the adapter guards them
 *     (`{_id, pos: {$lt: new pos}}`), every one replacing an existing document;
 *   - $inc: the same with updateOne `{$inc, $set: {pos}}` upserts (the adapter's incIfNewer);
 *   - finds: findOne by `_id` of random existing ids, `findConcurrency` in flight.
 * Writes go in `lanes` concurrent bulk calls of `bulk` writes; both default to what the store
 * adapter uses on that server (WRITE_LIMITS: 8 × 1,000 on MongoDB and mongo-java-server, 4 × 25
 * on FerretDB), so the figures are the ceiling of the adapter's own calls.
 *
 * FerretDB 1.x holds one PostgreSQL connection per matched update statement until its command
 * ends (infra/README.md): keep `bulk × lanes` (plus other clients' bulk calls) below its pool
 * (FERRETDB_PG_POOL, 400), or it hangs for good.
 *
 *   node bench/store-ceiling.ts [--docs 5000] [--bulk N] [--lanes N] [--finds 2000]
 *                               [--find-concurrency 8] [--phase-seconds 20] [URL ...]
 *
 * Without URLs it measures every stand-in named in .infra/env (MONGO_URL: FerretDB,
 * MONGO_JAVA_URL: mongo-java-server) or the MONGO_URL of the environment.
 */
export interface StoreCeiling {
  /** The best insertMany rate over the batch sizes tried. */
  insertManyDocsPerSec: number;
  upsertDocsPerSec: number;
  findsPerSec: number;
}

export interface StoreCeilingOptions {
  /** Documents per scratch collection. */
  docs: number;
  /** Writes per bulkWrite call of the upsert and $inc figures; default: the adapter's chunk. */
  bulk?: number;
  /** Bulk calls in flight at once; default: the adapter's lanes. */
  lanes?: number;
  /** insertMany batch sizes. */
  insertBatches?: readonly number[];
  /** Point finds to time (at most). */
  finds?: number;
  findConcurrency?: number;
  /** A phase stops early after this long; its rate counts what it did by then. */
  phaseSeconds?: number;
}

export interface StoreCeilingDetail extends StoreCeiling {
  url: string;
  server: string;
  /** Documents per second by insertMany batch size. */
  insertMany: Record<number, number>;
  incDocsPerSec: number;
  /** Documents each figure covers: fewer than `docs` when a phase hit `phaseSeconds`. */
  covered: { upsert: number; inc: number; finds: number };
  options: Required<StoreCeilingOptions>;
}

const DEFAULTS: Required<Omit<StoreCeilingOptions, 'docs' | 'bulk' | 'lanes'>> = {
  insertBatches: [100, 500, 1_000],
  finds: 2_000,
  findConcurrency: 8,
  phaseSeconds: 20,
};

export async function storeCeiling(url: string, docs: number): Promise<StoreCeiling> {
  const { insertManyDocsPerSec, upsertDocsPerSec, findsPerSec } = await measureStore(url, { docs });
  return { insertManyDocsPerSec, upsertDocsPerSec, findsPerSec };
}

type BenchDoc = {
  _id: string;
  pos: string;
  seq: number;
  height: number;
  index: number;
  timestamp: number;
  valid: boolean;
  count: number;
  volume: number;
  summary: { type: string; from: string; to: string; amount: string; token: string; fee: string };
  entries: { address: string; token: string; amount: string }[];
};

const pad = (n: number): string => String(n).padStart(12, '0');
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const address = (): string => `M${hex(16)}`;

function makeDoc(i: number, pos: number): BenchDoc {
  const from = address();
  const to = address();
  const amount = String(1 + ((i * 7919) % 1_000_000_000));
  return {
    _id: hex(32),
    pos: pad(pos),
    seq: i,
    height: 1_000_000 + Math.floor(i / 20),
    index: i % 20,
    timestamp: 1_700_000_000 + i,
    valid: true,
    count: 0,
    volume: 0,
    summary: { type: 'transfer', from, to, amount, token: 'MTC', fee: '1000' },
    entries: [
      { address: from, token: 'MTC', amount: `-${amount}` },
      { address: to, token: 'MTC', amount },
    ],
  };
}

export async function measureStore(url: string, options: StoreCeilingOptions): Promise<StoreCeilingDetail> {
  const client = new MongoClient(url, {
    retryWrites: false,
    serverSelectionTimeoutMS: 10_000,
    // A stand-in that hangs fails the run instead of stalling it.
    socketTimeoutMS: 120_000,
    maxPoolSize: 40,
  });
  await client.connect();
  const db = client.db(`store_ceiling_${process.pid}_${Date.now().toString(36)}`);
  try {
    const info = await db.admin().command({ buildInfo: 1 });
    const ferretdb = 'ferretdbVersion' in info;
    // What the server claims to be (mongo-java-server answers with the version infra/up.sh sets).
    const server = `${ferretdb ? 'FerretDB as ' : ''}MongoDB ${String(info['version'])}`;
    const limits = WRITE_LIMITS[ferretdb ? 'ferretdb' : 'mongodb'];
    const o: Required<StoreCeilingOptions> = {
      ...DEFAULTS,
      bulk: limits.bulkChunk,
      lanes: limits.writeLanes,
      ...options,
    };
    const docs = Array.from({ length: o.docs }, (_, i) => makeDoc(i, 1));

    const fresh = async (name: string): Promise<Collection<BenchDoc>> => {
      const c = db.collection<BenchDoc>(name);
      await db.createCollection(name);
      await c.createIndex({ seq: 1 }, { unique: true });
      await c.createIndex({ height: 1 });
      return c;
    };

    const insertMany: Record<number, number> = {};
    let c: Collection<BenchDoc> | undefined;
    for (const batch of o.insertBatches) {
      c = await fresh(`insert_${batch}`);
      const target = c;
      const started = performance.now();
      await inLanes(chunks(docs, batch), o.lanes, (part) => target.insertMany(part, { ordered: true }));
      insertMany[batch] = rate(o.docs, started);
    }
    if (!c) throw new Error('no insert batch sizes given');
    const loaded = c;

    const upsertOps = docs.map((d): AnyBulkWriteOperation<BenchDoc> => ({
      replaceOne: {
        filter: { _id: d._id, pos: { $lt: pad(2) } },
        replacement: { ...d, pos: pad(2), valid: false },
        upsert: true,
      },
    }));
    const upsert = await timedBulk(loaded, upsertOps, o);

    const incOps = docs.map((d): AnyBulkWriteOperation<BenchDoc> => ({
      updateOne: {
        filter: { _id: d._id, pos: { $lt: pad(3) } },
        update: { $inc: { count: 1, volume: 5 }, $set: { pos: pad(3) } },
        upsert: true,
      },
    }));
    const inc = await timedBulk(loaded, incOps, o);

    const ids = docs.map((d) => d._id);
    const findCount = Math.min(o.finds, Math.max(1, o.docs) * 4);
    let next = 0;
    let misses = 0;
    const deadline = performance.now() + o.phaseSeconds * 1000;
    const started = performance.now();
    const finder = async (): Promise<void> => {
      while (next < findCount && performance.now() < deadline) {
        next++;
        const id = ids[Math.floor(Math.random() * ids.length)];
        if (!(await loaded.findOne({ _id: id }))) misses++;
      }
    };
    await Promise.all(Array.from({ length: o.findConcurrency }, finder));
    const findsPerSec = rate(next, started);
    if (misses > 0) throw new Error(`${misses} point finds of existing ids found nothing`);

    const rates = Object.values(insertMany);
    return {
      url,
      server,
      insertMany,
      insertManyDocsPerSec: Math.max(...rates),
      upsertDocsPerSec: upsert.perSec,
      incDocsPerSec: inc.perSec,
      findsPerSec,
      covered: { upsert: upsert.done, inc: inc.done, finds: next },
      options: o,
    };
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

/** Ordered bulkWrites of `bulk` ops in `lanes` lanes until done or `phaseSeconds` passed. */
async function timedBulk(
  c: Collection<BenchDoc>,
  ops: AnyBulkWriteOperation<BenchDoc>[],
  o: Required<StoreCeilingOptions>,
): Promise<{ perSec: number; done: number }> {
  const deadline = performance.now() + o.phaseSeconds * 1000;
  let done = 0;
  const started = performance.now();
  await inLanes(chunks(ops, o.bulk), o.lanes, async (part) => {
    if (performance.now() > deadline) return;
    const r = await c.bulkWrite(part, { ordered: true });
    const n = r.matchedCount + r.upsertedCount;
    if (n !== part.length) throw new Error(`bulkWrite applied ${n} of ${part.length} guarded writes`);
    done += part.length;
  });
  return { perSec: rate(done, started), done };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function inLanes<T>(parts: T[][], lanes: number, run: (part: T[]) => Promise<unknown>): Promise<void> {
  const queue = [...parts];
  const lane = async (): Promise<void> => {
    for (let part = queue.shift(); part; part = queue.shift()) await run(part);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, queue.length)) }, lane));
}

const rate = (n: number, startedMs: number): number => n / Math.max(1e-3, (performance.now() - startedMs) / 1000);

// ---------------------------------------------------------------- command line

const ENV_FILE = fileURLToPath(new URL('../.infra/env', import.meta.url));
/** The stand-ins infra/up.sh starts, by the name it writes into .infra/env. */
const STAND_INS = [
  ['MONGO_URL', 'FerretDB'],
  ['MONGO_JAVA_URL', 'mongo-java-server'],
] as const;

function defaultTargets(): { label: string; url: string }[] {
  const file = readEnvFile(ENV_FILE);
  const found = STAND_INS.flatMap(([key, label]) => {
    const url = file[key];
    return url ? [{ label, url }] : [];
  });
  if (found.length > 0) return found;
  const url = process.env['MONGO_URL'];
  return url ? [{ label: 'MONGO_URL', url }] : [];
}

function printTable(results: { label: string; detail: StoreCeilingDetail }[]): void {
  const o = results[0]?.detail.options;
  if (!o) return;
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const header = ['', ...results.map((r) => r.label)];
  const rows: string[][] = [
    header,
    ['server', ...results.map((r) => r.detail.server)],
    ['address', ...results.map((r) => new URL(r.detail.url).host)],
    ...o.insertBatches.map((b) => [
      `insertMany, batches of ${b}, docs/s`,
      ...results.map((r) => fmt(r.detail.insertMany[b] ?? 0)),
    ]),
    ['bulk calls: lanes × writes', ...results.map((r) => `${r.detail.options.lanes} × ${r.detail.options.bulk}`)],
    ['guarded replaceOne upsert, docs/s', ...results.map((r) => fmt(r.detail.upsertDocsPerSec))],
    ['guarded updateOne $inc upsert, docs/s', ...results.map((r) => fmt(r.detail.incDocsPerSec))],
    [`findOne by _id (${o.findConcurrency} in flight), /s`, ...results.map((r) => fmt(r.detail.findsPerSec))],
  ];
  const widths = header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const cell = (text: string, i: number): string =>
    i === 0 ? text.padEnd(widths[i] ?? 0) : text.padStart(widths[i] ?? 0);
  for (const row of rows) console.log(row.map(cell).join('  '));
  console.log(
    `${o.docs} docs of ~${JSON.stringify(makeDoc(0, 1)).length} B JSON per collection` +
      `, write phases capped at ${o.phaseSeconds} s`,
  );
  for (const { label, detail } of results) {
    const { upsert, inc } = detail.covered;
    if (upsert < o.docs || inc < o.docs)
      console.log(`${label}: phase cap reached (upsert ${upsert}, $inc ${inc} of ${o.docs} docs)`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      docs: { type: 'string', default: '5000' },
      bulk: { type: 'string' },
      lanes: { type: 'string' },
      finds: { type: 'string', default: String(DEFAULTS.finds) },
      'find-concurrency': { type: 'string', default: String(DEFAULTS.findConcurrency) },
      'phase-seconds': { type: 'string', default: String(DEFAULTS.phaseSeconds) },
    },
  });
  const int = (name: keyof typeof values): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const options: StoreCeilingOptions = {
    docs: int('docs'),
    ...(values.bulk === undefined ? {} : { bulk: int('bulk') }),
    ...(values.lanes === undefined ? {} : { lanes: int('lanes') }),
    finds: int('finds'),
    findConcurrency: int('find-concurrency'),
    phaseSeconds: int('phase-seconds'),
  };
  const targets =
    positionals.length > 0 ? positionals.map((url) => ({ label: new URL(url).host, url })) : defaultTargets();
  if (targets.length === 0) throw new Error('no MongoDB URL: pass one, or run npm run infra:up');
  const results: { label: string; detail: StoreCeilingDetail }[] = [];
  for (const { label, url } of targets) {
    console.error(`measuring ${label} at ${url} …`);
    results.push({ label, detail: await measureStore(url, options) });
  }
  printTable(results);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
