import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, Section, SectionResult } from './section.ts';
import { environment, fmt, printTable } from './support.ts';

/**
 * `npm run bench` (full, under 20 minutes) and `npm run bench -- --quick` (under 3 minutes): every
 * section in turn, one table, then one JSON summary line (also kept in bench/results/). Each
 * figure sits beside the ceiling it is held to, measured in the same run. Benchmarks report; a
 * missed target is a `NO` in the table, never a failed exit. A section that breaks is reported
 * as such and the others still run.
 *
 * Options: `--quick`, `--embedded-only` (skip distributed mode even when `npm run infra:up` is
 * running), `--only=<section,…>` (api, replay, backfill, freshness, caching, soak, export, stream, start, users).
 */
const SECTIONS: Record<string, () => Promise<Section>> = {
  api: async () => (await import('./api-load.ts')).default,
  replay: async () => (await import('./replay.ts')).default,
  backfill: async () => (await import('./backfill.ts')).default,
  freshness: async () => (await import('./freshness.ts')).default,
  caching: async () => (await import('./caching.ts')).default,
  soak: async () => (await import('./soak.ts')).default,
  export: async () => (await import('./export.ts')).default,
  stream: async () => (await import('./stream.ts')).default,
  start: async () => (await import('./start.ts')).default,
  users: async () => (await import('./users.ts')).default,
};

const args = process.argv.slice(2);
const options: BenchOptions = { quick: args.includes('--quick'), distributed: !args.includes('--embedded-only') };
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const names = Object.keys(SECTIONS).filter((n) => !only || only.includes(n));

const started = performance.now();
const env = environment();
console.log(`npm run bench${options.quick ? ' -- --quick' : ''}: ${names.join(', ')}`);
console.log(JSON.stringify(env));
console.log();

const results: (SectionResult & { seconds: number; error?: string })[] = [];
for (const name of names) {
  const t = performance.now();
  process.stdout.write(`== ${name} … `);
  try {
    const section = await SECTIONS[name]!();
    const result = await section(options);
    results.push({ ...result, seconds: (performance.now() - t) / 1000 });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    results.push({ section: name, rows: [], notes: [], seconds: (performance.now() - t) / 1000, error: message });
  }
  console.log(`${fmt((performance.now() - t) / 1000)} s`);
}
console.log();

const cell = (v: number | undefined): string | number => (v === undefined || Number.isNaN(v) ? '' : v);
const table: (string | number)[][] = [];
for (const r of results) {
  if (r.error) table.push([r.section, `FAILED: ${r.error.split('\n')[0]}`, '', '', '', '', '', '']);
  for (const m of r.rows)
    table.push([
      r.section,
      m.name,
      cell(m.value),
      m.unit,
      cell(m.ceiling),
      cell(m.ratio),
      m.target ?? '',
      m.met === undefined ? '' : m.met ? 'yes' : 'NO',
    ]);
}
printTable(['section', 'measure', 'value', 'unit', 'ceiling', 'ratio', 'target', 'met'], table);
for (const r of results) {
  for (const note of r.notes) console.log(`${r.section}: ${note}`);
  if (r.error) console.log(`${r.section}: FAILED\n${r.error}`);
}
const targets = results.flatMap((r) => r.rows).filter((m) => m.met !== undefined);
const summary = {
  bench: options.quick ? 'quick' : 'full',
  at: new Date().toISOString(),
  seconds: Math.round((performance.now() - started) / 1000),
  environment: env,
  targets: { met: targets.filter((m) => m.met).length, missed: targets.filter((m) => !m.met).length },
  failedSections: results.filter((r) => r.error).map((r) => r.section),
  sections: results.map(({ section, rows, notes, seconds }) => ({
    section,
    seconds: Math.round(seconds),
    rows,
    notes,
  })),
};
console.log();
const line = JSON.stringify(summary);
console.log(line);
const dir = fileURLToPath(new URL('./results/', import.meta.url));
await mkdir(dir, { recursive: true });
await writeFile(join(dir, `${summary.bench}-latest.json`), `${JSON.stringify(summary, null, 2)}\n`);
process.exit(0);
