import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { LEGACY_JOBS } from '../jobs/legacy/registry.ts';
import { GENERATOR_VERSION, generatorFingerprint, openDevnet } from './schedule.ts';

const WANTED = { seed: 9, historyBlocks: 50, historyDays: 1, liveIntervalMs: 2000 };

describe('openDevnet', () => {
  const dirs: string[] = [];
  const fresh = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'mtc-clock-'));
    dirs.push(dir);
    return join(dir, 'devnet.json');
  };
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('rebuilds the same chain after a restart and extends it with the blocks that fell due', async () => {
    const file = await fresh();
    const t0 = Date.UTC(2026, 5, 1);
    const first = await openDevnet(file, WANTED, t0);
    first.catchUp(t0 + 20_000);
    const before = first.devnet.height();
    expect(before).toBe(60);

    const later = await openDevnet(file, WANTED, t0 + 60_000);
    expect(later.devnet.height()).toBe(80);
    for (let h = 1; h <= before; h++) expect(later.devnet.block(h)).toEqual(first.devnet.block(h));
  });

  it('refuses a data directory whose devnet has another seed', async () => {
    const file = await fresh();
    await openDevnet(file, WANTED, Date.UTC(2026, 5, 1));
    await expect(openDevnet(file, { ...WANTED, seed: 10 }, Date.UTC(2026, 5, 1))).rejects.toThrow(/seed 9/);
  });

  it('spreads the first history over the configured days, ending now', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    const { devnet } = await openDevnet(file, WANTED, now);
    const schedule = JSON.parse(await readFile(file, 'utf8')) as { genesisTime: number };
    expect(devnet.block(1)!.timestamp).toBe(schedule.genesisTime);
    // The peers' clock ends now; the last block's timestamp is its first client's, minutes off at most.
    expect(devnet.clock()).toBe(now / 1000);
    expect(Math.abs(devnet.block(devnet.height())!.timestamp - now / 1000)).toBeLessThanOrEqual(900);
    // Gaps vary around the interval, so the span is about a day, not exactly one.
    expect(now / 1000 - schedule.genesisTime).toBeGreaterThan(0.5 * 86_400);
    expect(now / 1000 - schedule.genesisTime).toBeLessThan(1.5 * 86_400);
  });

  it('saves the generator version and job fingerprint with the schedule', async () => {
    const file = await fresh();
    await openDevnet(file, WANTED, Date.UTC(2026, 5, 1));
    const saved = JSON.parse(await readFile(file, 'utf8')) as {
      generator: { version: number; hash: string; jobs: string[] };
    };
    expect(saved.generator.version).toBe(GENERATOR_VERSION);
    expect(saved.generator.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(saved.generator.jobs).toContain('current transfer weight=55 writes=transfer,receive');
    expect(saved.generator.jobs).toContain(
      'legacy exchange weight=6 writes=exchange,exchangePair,exchangeFee,exchangeFeePair',
    );
  });

  it('refuses a data directory written by another generator version, saying what to do', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    await openDevnet(file, WANTED, now);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { generator: { version: number } };
    saved.generator.version = GENERATOR_VERSION - 1;
    await writeFile(file, JSON.stringify(saved));
    const opening = openDevnet(file, WANTED, now);
    await expect(opening).rejects.toThrow(
      `generator version ${GENERATOR_VERSION - 1}, this is version ${GENERATOR_VERSION}`,
    );
    await expect(openDevnet(file, WANTED, now)).rejects.toThrow(
      /Remove the data directory .* or run the devnet version that wrote it/,
    );
  });

  it('refuses a data directory whose job set differs, naming the jobs that changed', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    await openDevnet(file, WANTED, now);
    const reweighted = DEFAULT_JOBS.map((job) => (job.fcn === 'transfer' ? { ...job, weight: 50 } : job));
    const changed = generatorFingerprint({ current: reweighted, legacy: LEGACY_JOBS });
    await expect(openDevnet(file, WANTED, now, changed)).rejects.toThrow(
      'job set differs: saved "current transfer weight=55 writes=transfer,receive"; now "current transfer weight=50 writes=transfer,receive"',
    );
  });

  it('refuses a schedule saved before fingerprints existed', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    await openDevnet(file, WANTED, now);
    const { generator: _dropped, ...old } = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify(old));
    await expect(openDevnet(file, WANTED, now)).rejects.toThrow(/written before generator fingerprints/);
  });

  it('rejects a schedule file it cannot read rather than starting a different chain', async () => {
    const file = await fresh();
    await writeFile(file, '{"seed":"x"}');
    await expect(openDevnet(file, WANTED, Date.UTC(2026, 5, 1))).rejects.toThrow();
  });
});
