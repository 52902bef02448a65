import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDevnet } from './schedule.ts';

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
    expect(devnet.block(devnet.height())!.timestamp).toBe(now / 1000);
    // Gaps vary around the interval, so the span is about a day, not exactly one.
    expect(now / 1000 - schedule.genesisTime).toBeGreaterThan(0.5 * 86_400);
    expect(now / 1000 - schedule.genesisTime).toBeLessThan(1.5 * 86_400);
  });

  it('rejects a schedule file it cannot read rather than starting a different chain', async () => {
    const file = await fresh();
    await writeFile(file, '{"seed":"x"}');
    await expect(openDevnet(file, WANTED, Date.UTC(2026, 5, 1))).rejects.toThrow();
  });
});
