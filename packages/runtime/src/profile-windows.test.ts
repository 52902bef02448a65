import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { profileWindows } from './profile-windows.ts';

describe('profileWindows', () => {
  let dir = '';
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes one profile per mark, opened when the height first reaches it, and none below the first', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtc-profiles-'));
    const windows = profileWindows({ at: [50, 10], seconds: 1, dir, name: 't', logger: pino({ level: 'silent' }) });
    windows.observe(5);
    expect(await readdir(dir)).toEqual([]);
    windows.observe(12); // opens the window of 10
    windows.observe(60); // a window is open: 50 waits
    await new Promise((r) => setTimeout(r, 1_300));
    windows.observe(61); // opens the window of 50
    await windows.stop();
    expect((await readdir(dir)).sort()).toEqual(['t-at-10.cpuprofile', 't-at-50.cpuprofile']);
    const profile = JSON.parse(await readFile(join(dir, 't-at-10.cpuprofile'), 'utf8')) as {
      nodes: unknown[];
      samples: number[];
    };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.samples.length).toBeGreaterThan(0);
  });
});
