import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * ops/: the Prometheus alert rules (checked and unit-tested by promtool, from Debian's prometheus
 * package: scripts/install-promtool.sh) and the Grafana dashboard, held to the metrics the code
 * declares. Without promtool the promtool checks are skipped with a notice; in CI (CI set, or
 * REQUIRE_PROMTOOL=1) a missing promtool is a failure.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OPS = join(ROOT, 'ops');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const promtool = spawnSync('promtool', ['--version']).status === 0;
const required = (process.env['CI'] ?? '') !== '' || process.env['REQUIRE_PROMTOOL'] === '1';
if (!promtool && !required)
  console.warn('skipping the promtool checks: no promtool (bash scripts/install-promtool.sh)');

/** Every metric name the services and packages declare (`name: 'mtc_…'`), from their sources. */
function declaredMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (entry === 'node_modules') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts'))
        for (const [, name] of readFileSync(path, 'utf8').matchAll(/name: '(mtc_[a-z0-9_]+)'/g)) names.add(name!);
    }
  };
  for (const dir of ['services', 'packages']) walk(join(ROOT, dir));
  return names;
}

/** The mtc_ metrics an expression reads, with a histogram's _bucket/_count/_sum read as the histogram. */
const metricsIn = (expr: string): string[] =>
  [...expr.matchAll(/\bmtc_[a-z0-9_]+/g)].map(([m]) => m.replace(/_(bucket|count|sum)$/, ''));

interface Rule {
  alert: string;
  expr: string;
}
const rules = (parse(read('ops/prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(read('ops/grafana/mtc-explorer.json')) as { uid: string; panels: Panel[] };

describe('ops/prometheus', () => {
  it.skipIf(!promtool && !required)('passes promtool check rules and its unit tests', () => {
    const run = (args: string[]): string => execFileSync('promtool', args, { cwd: join(OPS, 'prometheus') }).toString();
    expect(run(['check', 'rules', 'alerts.yml'])).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(run(['test', 'rules', 'alerts.test.yml'])).toContain('SUCCESS');
    expect(run(['check', 'config', 'prometheus.yml'])).toContain('is valid prometheus config file syntax');
  });

  it('alerts on indexer lag, stalls, 5xx, store timeouts and consumer lag, with a unit test each', () => {
    const tested = read('ops/prometheus/alerts.test.yml');
    for (const metric of [
      'mtc_follower_lag_blocks',
      'mtc_projector_height',
      'mtc_follower_stalled',
      'mtc_projector_stalled',
      'mtc_api_request_duration_seconds',
      'mtc_store_timeouts_total',
      'mtc_projector_consumer_lag',
    ])
      expect(
        rules.some((r) => metricsIn(r.expr).includes(metric)),
        metric,
      ).toBe(true);
    const untested = rules.filter((r) => !tested.includes(`alertname: ${r.alert}`)).map((r) => r.alert);
    expect(untested.filter((a) => a !== 'MtcUnknownJobTypes' && a !== 'MtcApiSlow')).toEqual([]);
  });

  it('reads only metrics the code declares', () => {
    const declared = declaredMetrics();
    expect(declared.size).toBeGreaterThan(10);
    for (const rule of rules)
      for (const m of metricsIn(rule.expr)) expect(declared, `${rule.alert}: ${m}`).toContain(m);
  });
});

describe('ops/grafana/mtc-explorer.json', () => {
  const queries = dashboard.panels.filter((p) => p.type !== 'row');

  it('reads only metrics the code declares, and every declared one', () => {
    const declared = declaredMetrics();
    const read = new Set(queries.flatMap((p) => (p.targets ?? []).flatMap((t) => metricsIn(t.expr))));
    for (const m of read) expect(declared, m).toContain(m);
    expect([...declared].filter((m) => !read.has(m))).toEqual([]);
  });

  it('has unique panel ids, a query in every panel, and panels that do not overlap', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of queries) expect(p.targets?.length, p.title).toBeGreaterThan(0);
    const cells = new Set<string>();
    for (const { gridPos: g, title } of dashboard.panels)
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(x < 24 && !cells.has(`${x},${y}`), `${title} at ${x},${y}`).toBe(true);
          cells.add(`${x},${y}`);
        }
  });
});
