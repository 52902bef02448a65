import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * Where a V8 CPU profile (`node --cpu-prof`) spent its time: self time by function and by file, the
 * top lines of each, as a share of the profile. For comparing two profiles of the same work, e.g.
 * the start and the end of a backfill (docs/BENCHMARKS.md, "What grows with history").
 *
 *   ./node_modules/.bin/node bench/profile-summary.ts FILE.cpuprofile [TOP]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export function selfTimes(profile: CpuProfile): { byFunction: Map<string, number>; byFile: Map<string, number> } {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const f = frames.get(id);
    if (!f) return;
    const file = f.url === '' ? `(${f.functionName || 'native'})` : fileOf(f.url);
    add(byFunction, `${f.functionName || '(anonymous)'} ${file}${f.url ? `:${f.lineNumber + 1}` : ''}`, us);
    add(byFile, file, us);
  });
  return { byFunction, byFile };
}

/** `node_modules/<package>` for dependencies, the path from the repository's top for our files. */
function fileOf(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dep) return `dep:${dep[1]}`;
  const ours = /\/(packages|services|bench|scripts)\/(.*)$/.exec(path);
  return ours ? `${ours[1]}/${ours[2]}` : basename(path);
}

function top(m: Map<string, number>, total: number, n: number): string[] {
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`,
    );
}

if (import.meta.main) {
  const [file, n = '25'] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/profile-summary.ts FILE.cpuprofile [TOP]');
    process.exit(2);
  }
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const { byFunction, byFile } = selfTimes(profile);
  const total = [...byFile.values()].reduce((a, b) => a + b, 0);
  const idle = byFile.get('((idle))') ?? 0;
  console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${((100 * idle) / total).toFixed(1)} % idle`);
  console.log(`\nself time by file (top ${n}):`);
  for (const line of top(byFile, total, Number(n))) console.log(line);
  console.log(`\nself time by function (top ${n}):`);
  for (const line of top(byFunction, total, Number(n))) console.log(line);
}
