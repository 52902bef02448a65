import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteReadStore } from '@mtc/adapters';
import { startDevnetServer, type Devnet } from '@mtc/devnet';
import { dumpReadModels } from '@mtc/read-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor } from '../support/explorer-process.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { spawnService, type ServiceProcess } from '../support/service-process.ts';
import { printFaults, type FaultRecord } from './support/chaos.ts';

/**
 * The embedded mode's data directory fails under it: it fills up mid-backfill, or is read-only at
 * start. The explorer must stop with a clear error (not hang, not crash with a stack trace), and
 * the next start on the mended directory must read its log and store as they were and end with the
 * read models of an uninterrupted run. The directory is a size-limited tmpfs, which needs root
 * (mount); without it the test is skipped with a notice.
 */

const TEST = 'disk faults';
const canMount = process.getuid?.() === 0;
if (!canMount) console.warn(`skipping ${TEST}: mounting a size-limited tmpfs needs root`);

describe.runIf(canMount)(`a full or read-only data directory (${TEST})`, () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let mount = '';
  let referenceDir = '';
  let mounted = false;
  const faults: FaultRecord[] = [];
  const remount = (options: string): void => {
    execFileSync('mount', ['-o', `remount,${options}`, mount]);
  };
  const explorer = (): ServiceProcess =>
    spawnService('services/explorer/src/main.ts', {
      PORT: '0',
      KAFKA_BROKERS: undefined,
      MONGO_URL: undefined,
      REDIS_URL: undefined,
      CHAIN_NODE_URL: node.url,
      DATA_DIR: join(mount, 'data'),
      LOG_LEVEL: 'warn',
    });

  beforeAll(async () => {
    devnet = recentDevnet(31, 800);
    node = await startDevnetServer(devnet, { port: 0 });
    mount = await mkdtemp(join(tmpdir(), 'mtc-faults-disk-'));
    // Room for part of the history only: the log and the store fill it on the way.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mount]);
    mounted = true;
    referenceDir = await mkdtemp(join(tmpdir(), 'mtc-faults-disk-reference-'));
  }, 60_000);

  afterAll(async () => {
    printFaults(TEST, faults);
    if (mounted) execFileSync('umount', ['-l', mount]);
    await node?.close();
    for (const dir of [mount, referenceDir]) if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('stops with a clear error when the disk fills up, and the next start finishes the job', async () => {
    const full = explorer();
    const code = await Promise.race([full.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 180_000))]);
    if (code === 'hung') await full.kill('SIGKILL');
    expect(code, full.output()).toBe(1);
    expect(full.output()).toMatch(/data directory .* is full/);
    expect(full.output()).not.toMatch(/^\s+at /m); // a message, not a stack trace
    faults.push({
      target: 'explorer',
      fault: 'data directory full (tmpfs of 3 MB)',
      at:
        full
          .output()
          .match(/data directory .*/)?.[0]
          ?.slice(0, 120) ?? '',
      resumed: '',
    });

    remount('size=512m');
    const mended = explorer();
    const reference = await spawnExplorer({ CHAIN_NODE_URL: node.url, DATA_DIR: referenceDir, LOG_LEVEL: 'warn' });
    try {
      const store = createSqliteReadStore({ path: join(mount, 'data', 'read-models.sqlite') });
      const uninterrupted = createSqliteReadStore({ path: join(referenceDir, 'read-models.sqlite') });
      try {
        await waitFor(
          'the mended run to reach the node head',
          async () => {
            if (mended.child.exitCode !== null) throw new Error(`exited:\n${mended.output()}`);
            return (await dumpReadModels(store)).counts['blocks'] === devnet.height() ? true : undefined;
          },
          300_000,
          500,
        );
        const mine = await waitFor(
          'the mended run to settle',
          async () => {
            const [a, b] = [await dumpReadModels(store), await dumpReadModels(store)];
            return a.sha256 === b.sha256 ? a : undefined;
          },
          120_000,
          500,
        );
        const same = await waitFor(
          'the uninterrupted run to reach the same read models',
          async () => ((await dumpReadModels(uninterrupted)).sha256 === mine.sha256 ? true : undefined),
          300_000,
          1000,
        ).catch(() => false);
        const theirs = await dumpReadModels(uninterrupted);
        if (!same) expect(theirs).toEqual(mine);
        faults.at(-1)!.resumed =
          `next start: sha256 ${mine.sha256.slice(0, 16)}… = uninterrupted ${theirs.sha256.slice(0, 16)}…`;
        console.log(`[${TEST}] read models after a full disk: ${mine.sha256}; uninterrupted run: ${theirs.sha256}`);
      } finally {
        await store.close();
        await uninterrupted.close();
      }
    } finally {
      await mended.kill('SIGTERM');
      await reference.kill('SIGTERM');
    }
  }, 600_000);

  it('refuses to start on a read-only data directory with a clear error, and starts once it is writable', async () => {
    remount('ro');
    const readOnly = explorer();
    const code = await Promise.race([readOnly.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
    if (code === 'hung') await readOnly.kill('SIGKILL');
    expect(code, readOnly.output()).toBe(1);
    expect(readOnly.output()).toMatch(/data directory .* is read-only/);
    expect(readOnly.output()).not.toMatch(/^\s+at /m);
    faults.push({
      target: 'explorer',
      fault: 'data directory read-only at start',
      at:
        readOnly
          .output()
          .match(/data directory .*/)?.[0]
          ?.slice(0, 120) ?? '',
      resumed: '',
    });

    remount('rw');
    const writable = explorer();
    try {
      const [, url] = /Explorer API: (http:\/\/\S+)\/api\/chain/.exec(
        await waitFor('the API', async () => /Explorer API: \S+/.exec(writable.output())?.[0], 60_000, 50),
      ) ?? ['', ''];
      const { status, body } = await getJson<{ localBlock: number }>(`${url}/api/chain`);
      expect(status).toBe(200);
      expect(body.localBlock).toBe(devnet.height());
      faults.at(-1)!.resumed = `next start serves head ${body.localBlock}`;
    } finally {
      await writable.kill('SIGTERM');
    }
  }, 180_000);
});
