import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createHttpChainSource, createSqliteCounters, createSqliteReadStore } from '@mtc/adapters';
import { createApiApp, createNftImageFetcher, parseApiConfig } from '@mtc/api';
import type { Collection, Doc, Filter, FindOptions, ReadStore } from '@mtc/ports';
import { pino } from 'pino';
import { requestListener } from '../services/api/src/app.ts';
import { rawRequest, recordingStore, type StoreCall } from '../services/api/src/testing/harness.ts';
import { longTail } from './users.ts';

/**
 * What one uncached request costs, by kind of URL: the long tail of bench/users.ts asked once each,
 * one at a time, of a fresh API (empty caches) over the read models of a stopped `npm start`, with
 * no Accept-Encoding (as wrk asks). Per kind: the server's time for the request (from its routing to
 * its last byte handed to the socket), the part of it spent in store calls (their synchronous part:
 * SQLite's reads and the JSON.parse of their documents), and the store calls one request makes.
 *
 *   DATA_DIR=/tmp/ex npm start   # caught up, then stopped
 *   ./node_modules/.bin/node bench/miss-cost.ts /tmp/ex
 */
const dataDir = resolve(process.argv[2] ?? 'data');
const inner = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
const counters = createSqliteCounters({ path: join(dataDir, 'counters.sqlite') });
let storeMs = 0;
const timed: ReadStore = {
  ...inner,
  collection<T extends Doc>(name: string): Collection<T> {
    const c = inner.collection<T>(name);
    const time =
      <A extends unknown[], R>(fn: (...args: A) => R) =>
      (...args: A): R => {
        const started = performance.now();
        try {
          return fn(...args);
        } finally {
          storeMs += performance.now() - started;
        }
      };
    return {
      get: time((id: string) => c.get(id)),
      getMany: time((ids: readonly string[]) => c.getMany(ids)),
      find: time((filter: Filter, options?: FindOptions) => c.find(filter, options)),
      count: time((filter?: Filter) => c.count(filter)),
    };
  },
};

async function serve(store: ReadStore, onSeconds: (s: number) => void): Promise<{ url: string; server: Server }> {
  const config = parseApiConfig({});
  const logger = pino({ level: 'silent' });
  const app = createApiApp({
    config,
    logger,
    store,
    images: createNftImageFetcher({ config, logger, store }),
    counters,
    chain: createHttpChainSource({ baseUrl: 'http://127.0.0.1:9' }),
    onResponse: ({ seconds }) => onSeconds(seconds),
  });
  const server = createServer(requestListener(app)).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// The list from one app, measured on another, so that no answer of the list is held already.
const lister = await serve(inner, () => {});
const head = ((await (await fetch(`${lister.url}/api/chain`)).json()) as { localBlock: number }).localBlock;
const { urls } = await longTail(lister.url, head, 5_000);
lister.server.close();

const calls: StoreCall[] = [];
let seconds = 0;
const measured = await serve(recordingStore(timed, calls), (s) => (seconds = s));
const kindOf = (url: string): string =>
  url
    .replace(/[0-9a-f]{64}/, '{tx}')
    .replace(/MT\w{38}/, '{address}')
    .replace(/MRC40\w+/, '{nft}')
    .replace(/\/\d+/g, '/{n}');
const kinds = new Map<string, { ms: number[]; storeMs: number; calls: number; sample: string }>();
for (const url of urls) {
  calls.length = 0;
  storeMs = 0;
  const answer = await rawRequest(measured.url, url);
  if (answer.status !== 200) throw new Error(`${url}: ${answer.status}`);
  const kind = kinds.get(kindOf(url)) ?? { ms: [], storeMs: 0, calls: 0, sample: '' };
  kind.ms.push(seconds * 1000);
  kind.storeMs += storeMs;
  kind.calls += calls.length;
  kind.sample = calls.map((c) => `${c.collection}.${c.method}`).join(' ');
  kinds.set(kindOf(url), kind);
}
measured.server.close();

console.log(`${urls.length} uncached requests over ${dataDir} at height ${head}, one at a time\n`);
console.log(
  'kind'.padEnd(34),
  'n'.padStart(5),
  'p50 ms'.padStart(7),
  'mean ms'.padStart(8),
  'store ms'.padStart(9),
  'calls',
  ' store calls of one',
);
for (const [kind, k] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
  const sorted = [...k.ms].sort((a, b) => a - b);
  const mean = (x: number) => (x / k.ms.length).toFixed(2);
  console.log(
    kind.padEnd(34),
    String(k.ms.length).padStart(5),
    sorted[sorted.length >> 1]!.toFixed(2).padStart(7),
    mean(k.ms.reduce((a, b) => a + b, 0)).padStart(8),
    mean(k.storeMs).padStart(9),
    (k.calls / k.ms.length).toFixed(1).padStart(5),
    '',
    k.sample,
  );
}
process.exit(0);
