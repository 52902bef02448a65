import { COLLECTIONS } from '@mtc/read-models';
import { freePort, launch, statusMB, stopChild } from './harness.ts';
import type { Measure, Section, SectionResult } from './section.ts';
import { buildDevnet, indexChain, openAdapters, serveDevnet, tempDir } from './support.ts';

/**
 * Streamed exports: the transaction export of a devnet history indexed into SQLite, in CSV and
 * NDJSON, over the whole range (≥ 100,000 rows in a full run) and over a tenth of it, each by a
 * fresh API process whose peak RSS (VmHWM) is printed beside the row count: the same peak for 10×
 * the rows is what constant memory means. Also counts the holding-change log's documents, the
 * writes the log adds to a backfill.
 */
/**
 * The heap cap of the last run: the idle API's heap is about 38 MB, and the NDJSON export of the
 * whole history is 38 MB of text (its rows as objects several times that), so only an export that
 * holds a page at a time finishes under it.
 */
const HEAP_CAP_MB = 80;

const section: Section = async (options) => {
  const blocks = options.quick ? 4_000 : 40_000;
  const notes: string[] = [];
  const rows: Measure[] = [];
  const tmp = await tempDir();
  const { devnet, ms: buildMs } = buildDevnet(blocks, 11);
  const node = await serveDevnet(devnet);
  try {
    const adapters = await openAdapters(tmp.dir);
    const times = await indexChain(node.url, devnet.height(), adapters);
    const count = (name: string) => adapters.store.collection(name).count();
    const [txs, changes, holders, nftHolders, collectionHolders] = await Promise.all([
      count(COLLECTIONS.txs),
      count(COLLECTIONS.holdingChanges),
      count(COLLECTIONS.holders),
      count(COLLECTIONS.nftHolders),
      count(COLLECTIONS.collectionHolders),
    ]);
    await adapters.close();
    notes.push(
      `devnet ${blocks} blocks, ${txs} transactions (built in ${(buildMs / 1000).toFixed(1)} s, indexed in ${(times.projectMs / 1000).toFixed(1)} s)`,
      `holding-change log: ${changes} documents written by the backfill (${(changes / txs).toFixed(2)} per transaction), beside ${holders + nftHolders + collectionHolders} holder rows at the end`,
    );
    const height = devnet.height();
    // The last run caps the API's V8 heap far below the export's size: it can only finish if rows
    // are not held (the peak RSS of an uncapped run also counts garbage V8 has not collected yet).
    const runs = [
      ['whole history', height, 'csv', undefined],
      ['whole history', height, 'ndjson', undefined],
      ['a tenth', Math.ceil(height / 10), 'csv', undefined],
      ['a tenth', Math.ceil(height / 10), 'ndjson', undefined],
      ['whole history', height, 'ndjson', HEAP_CAP_MB],
    ] as const;
    for (const [label, toHeight, format, heapCapMb] of runs) {
      const port = await freePort();
      const api = launch('api', ['services/api/src/main.ts'], {
        ...process.env,
        NODE_OPTIONS: heapCapMb === undefined ? process.env['NODE_OPTIONS'] : `--max-old-space-size=${heapCapMb}`,
        DATA_DIR: tmp.dir,
        CHAIN_NODE_URL: node.url,
        PORT: String(port),
        OPS_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        STORE_READ_TIMEOUT_MS: '30000',
      });
      try {
        const base = `http://127.0.0.1:${port}`;
        for (let i = 0; ; i++) {
          const up = await fetch(`${base}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
          if (up) break;
          if (i > 600) throw new Error('the API did not start');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const started = performance.now();
        const res = await fetch(`${base}/api/export/txs?fromHeight=1&toHeight=${toHeight}&format=${format}`);
        if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
        let bytes = 0;
        let lines = 0;
        for await (const chunk of res.body! as AsyncIterable<Uint8Array>) {
          bytes += chunk.byteLength;
          for (const b of chunk) if (b === 10) lines++;
        }
        const seconds = (performance.now() - started) / 1000;
        // NDJSON: a meta line; CSV: the height comment and the header.
        const exported = lines - (format === 'csv' ? 2 : 1);
        const peak = statusMB(api.pid, 'VmHWM') ?? 0;
        const what = `export txs ${format} ${label}${heapCapMb === undefined ? '' : `, API heap capped at ${heapCapMb} MB`}`;
        rows.push(
          { name: `${what}: rows`, value: exported, unit: 'rows' },
          { name: `${what}: bytes`, value: bytes, unit: 'B' },
          { name: `${what}: rows/s`, value: Math.round(exported / seconds), unit: 'rows/s' },
          { name: `${what}: API peak RSS (${exported} rows)`, value: Math.round(peak), unit: 'MB' },
        );
      } finally {
        await stopChild(api);
      }
    }
  } finally {
    await node.close();
    await tmp.remove();
  }
  return { section: 'export', rows, notes } satisfies SectionResult;
};

export default section;
