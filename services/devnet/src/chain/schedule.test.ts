import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_JOBS } from '../jobs/registry.ts';
import { LEGACY_JOBS } from '../families/mrc010/legacy/registry.ts';
import { HISTORY_FILES } from '../history/file-history.ts';
import {
  GENERATOR_VERSION,
  generatorFingerprint,
  historyDirBeside,
  imageOriginPort,
  openDevnet as openScheduled,
} from './schedule.ts';

const WANTED = { seed: 9, historyBlocks: 50, historyDays: 1, liveIntervalMs: 2000 };

describe('openDevnet', () => {
  const dirs: string[] = [];
  const opened: { devnet: { close(): void } }[] = [];
  /** openDevnet, closing what it opened after the test. */
  const openDevnet = async (...args: Parameters<typeof openScheduled>) => {
    const clock = await openScheduled(...args);
    opened.push(clock);
    return clock;
  };
  const fresh = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'mtc-clock-'));
    dirs.push(dir);
    return join(dir, 'devnet.json');
  };
  afterEach(async () => {
    for (const { devnet } of opened.splice(0)) devnet.close();
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

  it('ends a long history now, whatever its genesis time does to the chain (no burst of live blocks)', async () => {
    // Auctions, orders and lock-ups steer the chain by its timestamps; the span must not follow them.
    const file = await fresh();
    const now = Date.UTC(2026, 10, 24, 13, 7, 5);
    const long = { seed: 4, historyBlocks: 1500, historyDays: 30, liveIntervalMs: 2000 };
    const { devnet, catchUp } = await openDevnet(file, long, now);
    expect(devnet.clock()).toBe(Math.floor(now / 1000));
    expect(catchUp(now + 1999)).toBe(0);
    expect(catchUp(now + 2000)).toBe(1);
  });

  it("keeps the NFT image origin of the chain's first start, and names its loopback port", async () => {
    const file = await fresh();
    const first = await openDevnet(file, { ...WANTED, imageOrigin: 'http://127.0.0.1:41234' }, Date.UTC(2026, 5, 1));
    expect(first.schedule.imageOrigin).toBe('http://127.0.0.1:41234');
    expect(imageOriginPort(first.schedule)).toBe(41_234);
    // The URLs are part of the chain: a restart asking for another origin still gets the first.
    const again = await openDevnet(file, { ...WANTED, imageOrigin: 'http://127.0.0.1:5' }, Date.UTC(2026, 5, 1));
    expect(again.schedule.imageOrigin).toBe('http://127.0.0.1:41234');
    expect(imageOriginPort({ ...again.schedule, imageOrigin: 'https://images.example.org' })).toBeNull();
    expect(imageOriginPort({ ...again.schedule, imageOrigin: undefined })).toBeNull();
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

  it('keeps the history in files beside the schedule, written afresh on every start', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    const first = await openDevnet(file, WANTED, now);
    const blocksLog = join(historyDirBeside(file), HISTORY_FILES.blocks);
    expect(historyDirBeside(file)).toBe(join(dirname(file), 'devnet-history'));
    first.devnet.close();
    const written = await readFile(blocksLog, 'utf8');
    expect(written.split('\n')).toHaveLength(first.devnet.height() + 1);
    const again = await openDevnet(file, WANTED, now);
    again.devnet.close();
    expect(await readFile(blocksLog, 'utf8')).toBe(written);
    expect(existsSync(join(historyDirBeside(file), HISTORY_FILES.transactions))).toBe(true);
  });

  it('saves txsPerBlock with the schedule, and refuses to open it with another', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    const dense = await openDevnet(file, { ...WANTED, txsPerBlock: 12 }, now);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { txsPerBlock?: number };
    expect(saved.txsPerBlock).toBe(12);
    await expect(openDevnet(file, WANTED, now)).rejects.toThrow(/12 transactions per block/);
    await expect(openDevnet(file, { ...WANTED, txsPerBlock: 13 }, now)).rejects.toThrow(/12 transactions per block/);
    const reopened = await openDevnet(file, { ...WANTED, txsPerBlock: 12 }, now);
    expect(reopened.devnet.block(50)).toEqual(dense.devnet.block(50));
  });

  it('writes no txsPerBlock without one, and refuses to add one to such a schedule', async () => {
    const file = await fresh();
    const now = Date.UTC(2026, 5, 1);
    await openDevnet(file, WANTED, now);
    expect(JSON.parse(await readFile(file, 'utf8'))).not.toHaveProperty('txsPerBlock');
    await expect(openDevnet(file, { ...WANTED, txsPerBlock: 12 }, now)).rejects.toThrow(
      /the built-in transactions per block/,
    );
  });
});
