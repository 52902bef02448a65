import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ConfigError, parseConfig } from '@mtc/runtime';
import { describe, expect, it } from 'vitest';
import { DevnetConfigSchema, devnetOptionsFrom, faultOptionsFrom } from './config.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
/** A Node that runs .ts natively: this one if it strips types (≥ 23.6), else the workspace's pinned one. */
const NODE =
  process.features.typescript !== undefined && process.features.typescript !== false
    ? process.execPath
    : fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));

describe('DevnetConfigSchema', () => {
  it('fills every default when the environment is empty', () => {
    expect(parseConfig(DevnetConfigSchema, {})).toMatchObject({
      DEVNET_PORT: 20922,
      DEVNET_SEED: 1,
      DEVNET_HISTORY_BLOCKS: 1_000,
      DEVNET_BLOCK_INTERVAL_MS: 3_000,
      DEVNET_FAULT_RATE: 0,
    });
  });

  it("defaults the fault kinds to the real node's own transient answers and parses a comma-separated list", () => {
    expect(parseConfig(DevnetConfigSchema, {}).DEVNET_FAULT_KINDS).toEqual([
      'height-zero',
      'tx-not-found',
      'block-missing',
    ]);
    const config = parseConfig(DevnetConfigSchema, { DEVNET_FAULT_KINDS: 'reset, proxy-502,timeout' });
    expect(config.DEVNET_FAULT_KINDS).toEqual(['reset', 'proxy-502', 'timeout']);
    expect(() => parseConfig(DevnetConfigSchema, { DEVNET_FAULT_KINDS: 'reset,boom' })).toThrow(/DEVNET_FAULT_KINDS/);
  });

  it('turns the fault settings into server options, a hidden block only when one is named', () => {
    expect(faultOptionsFrom(parseConfig(DevnetConfigSchema, {}))).toMatchObject({
      faultRate: 0,
      faultKinds: ['height-zero', 'tx-not-found', 'block-missing'],
      faultHideBlock: undefined,
    });
    const config = parseConfig(DevnetConfigSchema, {
      DEVNET_FAULT_RATE: '0.2',
      DEVNET_FAULT_TIMEOUT_MS: '3000',
      DEVNET_FAULT_HIDE_BLOCK: '40',
      DEVNET_FAULT_HIDE_BLOCK_MS: '9000',
    });
    expect(faultOptionsFrom(config)).toMatchObject({
      faultRate: 0.2,
      faultTimeoutMs: 3000,
      faultHideBlock: 40,
      faultHideBlockMs: 9000,
    });
    expect(() => parseConfig(DevnetConfigSchema, { DEVNET_FAULT_HIDE_BLOCK: '0' })).toThrow(/DEVNET_FAULT_HIDE_BLOCK/);
  });

  it('rejects a bad value with a readable message', () => {
    expect(() => parseConfig(DevnetConfigSchema, { DEVNET_PORT: 'x' })).toThrow(ConfigError);
    expect(() => parseConfig(DevnetConfigSchema, { DEVNET_FAULT_RATE: '1.5' })).toThrow(/DEVNET_FAULT_RATE/);
  });
});

describe('devnetOptionsFrom', () => {
  it('places the history so that it ends about now unless a genesis time is given', () => {
    const config = parseConfig(DevnetConfigSchema, { DEVNET_HISTORY_BLOCKS: '100', DEVNET_BLOCK_INTERVAL_MS: '2000' });
    expect(devnetOptionsFrom(config, 1_000_000)).toMatchObject({
      genesisTime: 1_000_000 - 200,
      historyBlocks: 100,
      blockIntervalSec: 2,
    });
    const pinned = parseConfig(DevnetConfigSchema, { DEVNET_GENESIS_TIME: '5' });
    expect(devnetOptionsFrom(pinned, 1_000_000).genesisTime).toBe(5);
  });

  it('passes DEVNET_TXS_PER_BLOCK on, and leaves it unset (the built-in mix) by default', () => {
    expect(devnetOptionsFrom(parseConfig(DevnetConfigSchema, {}), 0).txsPerBlock).toBeUndefined();
    const dense = parseConfig(DevnetConfigSchema, { DEVNET_TXS_PER_BLOCK: '20' });
    expect(devnetOptionsFrom(dense, 0).txsPerBlock).toBe(20);
    expect(() => parseConfig(DevnetConfigSchema, { DEVNET_TXS_PER_BLOCK: '0' })).toThrow(/DEVNET_TXS_PER_BLOCK/);
  });
});

describe('main', () => {
  const start = (env: Record<string, string>) =>
    spawn(NODE, [MAIN], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: 'pipe' });

  it('exits 1 with the readable message when the configuration is bad', async () => {
    const child = start({ DEVNET_SEED: 'abc' });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toContain('DEVNET_SEED');
  });

  it('serves the node API and stops cleanly on SIGTERM', async () => {
    const child = start({
      DEVNET_PORT: '0',
      DEVNET_HOST: '127.0.0.1',
      DEVNET_HISTORY_BLOCKS: '20',
      DEVNET_BLOCK_INTERVAL_MS: '0',
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /"url":"([^"]+)"/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`main exited early with ${code}: ${stdout}`)));
    });
    expect(await (await fetch(`${url}/block`)).text()).toBe('20');
    // Without a schedule or DEVNET_HISTORY_DIR the history goes to a directory of this run only.
    const historyDir = /"historyDir":"([^"]+)"/.exec(stdout)![1]!;
    expect(existsSync(historyDir)).toBe(true);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(existsSync(historyDir)).toBe(false);
  });
});
